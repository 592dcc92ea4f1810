"""bpe_core: byte pair encoding, exact and fast, for the BPE playground.

    from bpe_core import train, load_encoding
    tok = train(text, vocab_size=1000)          # learn merges
    tok.encode("hello world")                    # tiktoken's interface
    gpt4 = load_encoding("cl100k_base")          # same ids as tiktoken, offline

    import bpe_core as tiktoken                  # a drop-in for tiktoken's public interface
    enc = tiktoken.encoding_for_model("gpt-4o")

The engine, at the top of the package: `encoding_base` (tiktoken's
interface, once for every kind of tokenizer), `patterns` (pre-tokenization),
`specials` (special tokens), `utf8`, `corpus` (text to weighted pieces),
`merge_learning` (the training algorithm), `merge_loop` (encoding one
piece), `tokenizer` (the Tokenizer), `training` (`train`), `encodings` (the
bundled OpenAI vocabularies, and every name `load_encoding` takes), `zoo`
(Llama, Tekken, Mistral, Qwen, Whisper and Claude 1/2, from their makers'
packages or files shipped here: `bundled_files`, `normalized`),
`sentencepiece_model` (SentencePiece BPE with the Tokenizer's interface),
`hf_trainers` (Hugging Face's WordPiece, Unigram and parity-aware BPE),
`chat` (chat templates; gpt-oss's through `harmony`), `samples` and `udhr` (the bundled texts), `deck`
(a talk's links), `token_ids` and `cli`; bounded work for a web page:
`untrusted_regex`, `budgeted_encoding`, and `budgeted_jobs` (a job in a
worker process, its turn at the machine's cores from `machine_turns`,
shared by identical requests through `shared_jobs`) with its uses
`budgeted_training` and `budgeted_counting`; `dask_counting` (a corpus
counted on a Dask cluster, optional). Importing it loads neither
Streamlit nor plotly, pandas or PIL.

Beside it: `formats` (each file format a tokenizer travels in, read and
written), `analysis` (what the pages compute) and `drawing` (HTML, charts,
slides, saved pages and GIFs).
"""

from .engine.encoding_base import EncodingBase
from .engine.merge_learning import MergeStep
from .engine.patterns import PRESETS, PatternError
from .engine.tokenizer import Tokenizer, TokenSpan
from .engine.training import train
from .formats import TokenizerFileError, load_tokenizer, save_tokenizer
from .vocabularies.encodings import (
    ENCODING_NAMES,
    Encoding,
    encoding_for_model,
    encoding_name_for_model,
    get_encoding,
    list_encoding_names,
    load_encoding,
    tiktoken_encoding,
)

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
