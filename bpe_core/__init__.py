"""bpe_core: byte pair encoding, exact and fast, for the BPE playground.

    from bpe_core import train, load_encoding
    tok = train(text, vocab_size=1000)          # learn merges
    tok.encode("hello world")                    # tiktoken's interface
    gpt4 = load_encoding("cl100k_base")          # same ids as tiktoken, offline

Modules, one idea each: `patterns` (pre-tokenization), `corpus` (text to
weighted pieces), `merge_learning` (the training algorithm), `merge_loop`
(encoding one piece), `tokenizer` (the Tokenizer), `training` (`train`),
`specials`, `serialization` (save/load), `exports` (tiktoken, Hugging Face),
`encodings` (the bundled OpenAI vocabularies).
"""

from .merge_learning import MergeStep
from .patterns import PRESETS, PatternError
from .tokenizer import TokenSpan, Tokenizer
from .training import train

__all__ = ["MergeStep", "PRESETS", "PatternError", "TokenSpan", "Tokenizer", "train"]
