"""bpe_core: byte pair encoding, exact and fast, for the BPE playground.

    from bpe_core import train, load_encoding
    tok = train(text, vocab_size=1000)          # learn merges
    tok.encode("hello world")                    # tiktoken's interface
    gpt4 = load_encoding("cl100k_base")          # same ids as tiktoken, offline

    import bpe_core as tiktoken                  # a drop-in for tiktoken's public interface
    enc = tiktoken.encoding_for_model("gpt-4o")

The package, floor by floor (each subpackage's docstring says more):

    sandbox/       fresh capped processes; a visitor's regex compiled and run under bounds
    engine/        the algorithm: split, count, learn merges, encode (`Tokenizer`, `train`)
    formats/       the files a tokenizer travels in, read and written
    vocabularies/  published tokenizers by name: `catalogue`, OpenAI's, the makers', chat templates
    algorithms/    trainers beside BPE (WordPiece, Unigram, parity-aware BPE; SuperBPE, BoundlessBPE, Picky BPE, BPE-dropout)
    corpora/       the bundled texts, the UDHR, corpora in files, Dask counting
    analysis/      what the pages compute
    jobs/          a web page's heavy work, bounded in time, memory and turns at the cores
    drawing/       HTML, charts, slides, saved pages and GIFs
    cli/           python -m bpe_core

Imports run only downward in that list. Importing the engine loads neither
Streamlit nor plotly, pandas or PIL.
"""

from .engine.encoding import Encoding
from .engine.encoding_base import EncodingBase
from .engine.merge_learning import MergeStep
from .engine.patterns import PRESETS, PatternError
from .engine.tokenizer import Tokenizer, TokenSpan
from .engine.training import train
from .formats import TokenizerFileError, load_tokenizer, save_tokenizer
from .vocabularies.catalogue import (
    ENCODING_NAMES,
    encoding_for_model,
    encoding_name_for_model,
    get_encoding,
    list_encoding_names,
    load_encoding,
)
from .vocabularies.openai import tiktoken_encoding

__all__ = [
    "ENCODING_NAMES",
    "Encoding",
    "EncodingBase",
    "MergeStep",
    "PRESETS",
    "PatternError",
    "TokenSpan",
    "Tokenizer",
    "TokenizerFileError",
    "encoding_for_model",
    "encoding_name_for_model",
    "get_encoding",
    "list_encoding_names",
    "load_encoding",
    "load_tokenizer",
    "save_tokenizer",
    "tiktoken_encoding",
    "train",
]
