"""Tokenizer files: each format a tokenizer travels in, read and written.

- `native`: the playground's own JSON, the merges in order and the training
  trace (`save_tokenizer`, `load_tokenizer`);
- `tiktoken_file`: tiktoken's `.tiktoken` rank files, and tiktoken's own
  `Encoding` built from a tokenizer;
- `hf_json`: Hugging Face's `tokenizer.json`;
- `data_gym`: GPT-2's vocabulary as first released (`vocab.bpe` and `encoder.json`).

Every reader raises `TokenizerFileError` with the reason for a file it
cannot use faithfully. `tokenizer_from_file` reads whichever one a user
brings, telling them apart by their content.
"""

from __future__ import annotations

from ..engine.tokenizer import Tokenizer
from .hf_json import hf_export_problem, hf_tokenizer_json, tokenizer_from_hf_json
from .native import FORMAT, load_tokenizer, save_tokenizer, tokenizer_from_dict, tokenizer_from_json, tokenizer_to_json
from .reading import TokenizerFileError, parse_json, unpacked
from .tiktoken_file import tiktoken_file_text, to_tiktoken, tokenizer_from_tiktoken_file

__all__ = [
    "TokenizerFileError",
    "hf_export_problem",
    "hf_tokenizer_json",
    "load_tokenizer",
    "save_tokenizer",
    "tiktoken_file_text",
    "to_tiktoken",
    "tokenizer_from_file",
    "tokenizer_from_hf_json",
    "tokenizer_from_json",
    "tokenizer_from_tiktoken_file",
    "tokenizer_to_json",
]


def tokenizer_from_file(file_name: str, data: bytes, pattern: str = "cl100k") -> Tokenizer:
    """Any tokenizer file a user may bring, told apart by its content:

    - JSON saved by this playground (`save_tokenizer`);
    - a Hugging Face byte-level BPE tokenizer.json;
    - a tiktoken rank file, plain or gzip-compressed, split with `pattern`
      (rank files hold no pattern and no special tokens).
    """
    data = unpacked(data)  # a gzip-compressed file of either kind
    if data.lstrip(b" \t\r\n\xef\xbb\xbf")[:1] in (b"{", b"["):
        document = parse_json(data, f"“{file_name}”")
        if isinstance(document, dict) and document.get("format") == FORMAT:
            return tokenizer_from_dict(document)
        return tokenizer_from_hf_json(document, file_name)
    return tokenizer_from_tiktoken_file(data, pattern, file_name)
