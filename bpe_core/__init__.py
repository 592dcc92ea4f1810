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

from __future__ import annotations

import importlib

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


def __getattr__(name: str):
    if name not in _PUBLIC:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_PUBLIC[name], __name__), name)
    globals()[name] = value  # found directly from now on
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})
