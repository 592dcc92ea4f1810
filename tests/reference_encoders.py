"""Each published tokenizer's ids by code that is not this engine's: the
reference of the tests that count shipped data again.

- OpenAI's encodings: tiktoken's own, built by tiktoken from the shipped
  rank files (tests/tiktoken_oracle.py);
- Llama 3 and 4, Tekken, Mistral v3: the makers' own libraries
  (tests/test_zoo.py). For Llama that library is the engine itself (the
  zoo wraps llama-models' Encoding; tests/test_zoo.py says so);
- Qwen, Whisper, Claude 1/2: the makers' code written out over the shipped
  files (tests/test_zoo_more.py), Hugging Face's own for Claude.

Special-token text is plain text, as `encode_ordinary` reads it.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.test_zoo import maker_encode
from tests.test_zoo_more import maker_encode_ordinary
from tests.tiktoken_oracle import NAMES as OPENAI_NAMES
from tests.tiktoken_oracle import tiktokens_own


def reference_encoder(name: str) -> Callable[[str], list[int]]:
    """`name`'s encode_ordinary, by its reference."""
    if name in OPENAI_NAMES:
        return tiktokens_own(name).encode_ordinary
    if name in ("qwen", "whisper", "claude_legacy"):
        return lambda text: _known(maker_encode_ordinary(name, text), name)
    return maker_encode(name)


def _known(ids: list[int] | None, name: str) -> list[int]:
    assert ids is not None, f"{name}'s reference reads special-token text as special tokens: no plain-text ids"
    return ids
