"""bpe_core: byte pair encoding, exact and fast, for the BPE playground.

    from bpe_core import train, load_encoding
    tok = train(text, vocab_size=1000)          # learn merges
    tok.encode("hello world")                    # tiktoken's interface
    gpt4 = load_encoding("cl100k_base")          # same ids as tiktoken, offline

The engine: `patterns` (pre-tokenization), `corpus` (text to weighted
pieces), `merge_learning` (the training algorithm), `merge_loop` (encoding
one piece), `tokenizer` (the Tokenizer), `training` (`train`), `specials`,
`utf8`, `serialization` (save/load), `exports` (tiktoken, Hugging Face),
`loaders` (files people bring), `encodings` (the bundled OpenAI vocabularies).
For the pages: `render` (token HTML), `charts`, `slides`, `samples`,
`comparison`, `compression`, `tax` and `tax_charts`, `replay`, `vocabulary`,
`quirks`. None of them imports Streamlit.
"""

from .encodings import load_encoding, tiktoken_encoding
from .merge_learning import MergeStep
from .patterns import PRESETS, PatternError
from .tokenizer import Tokenizer, TokenSpan
from .training import train

__all__ = ["MergeStep", "PRESETS", "PatternError", "TokenSpan", "Tokenizer", "load_encoding", "tiktoken_encoding", "train"]
