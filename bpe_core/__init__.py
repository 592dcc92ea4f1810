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

from __future__ import annotations

import importlib
import sys

# The public names and the modules they live in. Each is imported when first
# used (PEP 562's module __getattr__), so that `python -m bpe_core train`
# does not start by loading every vocabulary, chat template and encoder
# here (a fifth of a second, and ten megabytes).
_PUBLIC = {
    "Encoding": ".engine.encoding",
    "EncodingBase": ".engine.encoding_base",
    "MergeStep": ".engine.merge_learning",
    "PRESETS": ".engine.patterns",
    "PatternError": ".engine.patterns",
    "TokenSpan": ".engine.tokenizer",
    "Tokenizer": ".engine.tokenizer",
    "train": ".engine.training",
    "TokenizerFileError": ".formats",
    "load_tokenizer": ".formats",
    "save_tokenizer": ".formats",
    "ENCODING_NAMES": ".vocabularies.catalogue",
    "encoding_for_model": ".vocabularies.catalogue",
    "encoding_name_for_model": ".vocabularies.catalogue",
    "get_encoding": ".vocabularies.catalogue",
    "list_encoding_names": ".vocabularies.catalogue",
    "load_encoding": ".vocabularies.catalogue",
    "tiktoken_encoding": ".vocabularies.openai",
}
# tiktoken's public modules, which code written for tiktoken reads as attributes
# (`tiktoken.model.MODEL_TO_ENCODING` after `sys.modules["tiktoken"] = bpe_core`).
_TIKTOKEN_MODULES = ("core", "load", "model", "registry")


def stand_in_for_tiktoken() -> None:
    """From now on `import tiktoken`, and `import tiktoken.core`, `.model`,
    `.load` or `.registry`, give bpe_core: a library written for tiktoken
    encodes with it, offline, with tiktoken's ids. Call it before importing
    that library (one that imported tiktoken already keeps the real one)."""
    from .tiktoken_bridge import stand_in

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


def __getattr__(name: str):
    if name in _TIKTOKEN_MODULES:
        value = importlib.import_module(f".tiktoken_bridge.{name}", __name__)
    elif name in _PUBLIC:
        value = getattr(importlib.import_module(_PUBLIC[name], __name__), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # found directly from now on
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC, *_TIKTOKEN_MODULES})
