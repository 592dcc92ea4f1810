"""bpe_core: byte pair encoding, exact and fast, for the BPE playground.

    from bpe_core import train, load_encoding
    tok = train(text, vocab_size=1000)          # learn merges
    tok.encode("hello world")                    # tiktoken's interface
    gpt4 = load_encoding("cl100k_base")          # same ids as tiktoken, offline

    import bpe_core as tiktoken                  # a drop-in for tiktoken's public interface
    enc = tiktoken.encoding_for_model("gpt-4o")
    bpe_core.stand_in_for_tiktoken()             # `import tiktoken` anywhere gives bpe_core from now on

The package, floor by floor (each subpackage's docstring says more):

    sandbox/          fresh capped processes; a visitor's regex compiled and run under bounds
    engine/           the algorithm: split, count, learn merges, encode (`Tokenizer`, `train`)
    formats/          the files a tokenizer travels in, read and written
    vocabularies/     published tokenizers by name: `catalogue`, OpenAI's, the makers', chat templates
    tiktoken_bridge/  bpe_core as tiktoken for tiktoken's users; the real tiktoken with bpe_core's files
    algorithms/       trainers beside BPE (WordPiece, Unigram, parity-aware BPE; SuperBPE, BoundlessBPE, Picky BPE,
                      BPE-dropout)
    corpora/          the bundled texts, the UDHR, corpora in files, Dask counting
    analysis/         what the pages compute
    jobs/             a web page's heavy work, bounded in time, memory and turns at the cores
    drawing/          HTML, charts, slides, saved pages and GIFs
    cli/              python -m bpe_core

Imports run only downward in that list. Importing the engine loads neither
Streamlit nor plotly, pandas or PIL.
"""

import sys

from .engine.encoding import Encoding
from .engine.encoding_base import EncodingBase
from .engine.merge_learning import MergeStep
from .engine.patterns import PRESETS, PatternError
from .engine.tokenizer import Tokenizer, TokenSpan
from .engine.training import train
from .formats import TokenizerFileError, load_tokenizer, save_tokenizer

# tiktoken's public modules, which code written for tiktoken reads as attributes (`tiktoken.model.MODEL_TO_ENCODING`).
from .tiktoken_bridge import core as core
from .tiktoken_bridge import load as load
from .tiktoken_bridge import model as model
from .tiktoken_bridge import registry as registry
from .tiktoken_bridge import stand_in
from .vocabularies.catalogue import (
    ENCODING_NAMES,
    encoding_for_model,
    encoding_name_for_model,
    get_encoding,
    list_encoding_names,
    load_encoding,
)
from .vocabularies.openai import tiktoken_encoding


def stand_in_for_tiktoken() -> None:
    """From now on `import tiktoken`, and `import tiktoken.core`, `.model`,
    `.load` or `.registry`, give bpe_core: a library written for tiktoken
    encodes with it, offline, with tiktoken's ids. Call it before importing
    that library (one that imported tiktoken already keeps the real one)."""
    stand_in(sys.modules[__name__])


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
    "stand_in_for_tiktoken",
    "tiktoken_encoding",
    "train",
]
