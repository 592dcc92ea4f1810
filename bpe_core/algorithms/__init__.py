"""Tokenizer algorithms beside the engine's BPE, each behind the interface
every page takes: Hugging Face's WordPiece, Unigram and parity-aware BPE
(`hf_trainers`); and the later ideas trained on the engine's own merge
learning, one file each: SuperBPE (`superbpe`, tokens across words),
BoundlessBPE (`boundless`, supermerges of whole pretokens), Picky BPE
(`picky`, removing the tokens a merge leaves behind) and BPE-dropout
(`dropout`, encoding that skips merges at random).
"""
