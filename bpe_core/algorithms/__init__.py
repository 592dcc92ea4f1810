"""Tokenizer algorithms beside the engine's BPE, each behind the interface
every page takes: Hugging Face's WordPiece, Unigram and parity-aware BPE
(`hf_trainers`).
"""
