"""The engine's encoder in C, where it is built (the sources are in `native/`).

It is this engine's algorithm, not another: split the text into pieces, a
piece that is a token is that token, otherwise merge its bytes lowest rank
first (see `merge_loop`). What makes it fast:

- the split patterns below are not run by a regex engine but written out by
  hand (native/split.c): each alternative of a preset is a short rule about
  character classes, tried in the pattern's order, with Unicode's classes in
  a generated table (native/unicode_classes.h) of the Unicode version
  tiktoken's regex engine has (16.0), so that the pieces are tiktoken's;
- token bytes -> rank in an open-addressing hash table, whose slots hold a
  token's first eight bytes (one memory read finds a short token), placed
  by SipHash-1-3 under a key drawn per process (no vocabulary can be made
  whose tokens all collide there: see native/bpe.c);
- the pieces of a text that had to merge are remembered for the rest of
  that text (a text repeats them), in a table that lives for one call, so
  threads share nothing and no memory outlives the call;
- long pieces merge with a heap (n log n), short ones by tiktoken's scan;
- no lock held while it works: threads encode in parallel.

A pattern the C splitter does not know (a visitor's regex, SuperBPE's) is
split by Python's `regex` as before, and the C encoder then encodes the
pieces. Where the extension is not built (a checkout used without
`pip install -r requirements.txt`), `available()` is False and the
tokenizer encodes in Python alone: the same ids, more slowly.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Mapping, Sequence

from .patterns import CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN, WHOLE_TEXT_PATTERN
from .utf8 import encodable

try:
    from . import _native
except ImportError:  # not built: see setup.py
    _native = None

if _native is not None:
    # The key of the hash that places tokens in an Encoder's table and pieces
    # in its cache (SipHash-1-3, native/siphash.h), drawn once per process
    # as native_training.draw_hash_key draws the training modules': a
    # vocabulary of tokens that all land in one run of slots, making every
    # lookup walk them all, cannot be made without it.
    _native.seed_hash(*struct.unpack("<QQ", os.urandom(16)))

# The regexes native/split.c implements, character for character, by the
# number split.h gives each. Besides the presets, the makers' variants that
# the zoo loads (see `bpe_core.vocabularies.zoo`, and the test that each of
# its models is found here): Whisper's is GPT-2's written without
# possessive quantifiers (the same pieces); Llama 3's is cl100k's with
# o200k's whitespace rules, Qwen's the same with one digit per number;
# Tekken's is o200k's without contractions and with one digit per number.
LLAMA3_PATTERN = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
QWEN_PATTERN = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
WHISPER_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
TEKKEN_PATTERN = (
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?"""
    r"""[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
SPLIT_NAMES = {
    GPT2_PATTERN: "SPLIT_GPT2",
    WHISPER_PATTERN: "SPLIT_GPT2",
    CL100K_PATTERN: "SPLIT_CL100K",
    LLAMA3_PATTERN: "SPLIT_LLAMA3",
    QWEN_PATTERN: "SPLIT_QWEN",
    O200K_PATTERN: "SPLIT_O200K",
    TEKKEN_PATTERN: "SPLIT_TEKKEN",
    WHOLE_TEXT_PATTERN: "SPLIT_WHOLE",
}

# Pieces cut in Python: the C encoder's number for "no split of its own".
SPLIT_BY_CALLER = -1


def available() -> bool:
    """Whether the C encoder is built."""
    return _native is not None


def split_number(pattern: str) -> int | None:
    """split.h's number for a regex the C splitter implements, else None."""
    name = SPLIT_NAMES.get(pattern)
    return None if name is None or _native is None else getattr(_native, name)


def text_encoder(ranks: Mapping[bytes, int], pattern: str, special_tokens: Mapping[str, int]):
    """The C encoder of whole texts over `ranks` (token bytes -> id), split
    by `pattern`, or None: not built, or a pattern only `regex` reads."""
    split = split_number(pattern)
    if split is None:
        return None
    return _native.Encoder(_as_dict(ranks), split, dict(special_tokens))


def piece_encoder(ranks: Mapping[bytes, int]):
    """The C encoder of pieces cut elsewhere, over `ranks`, or None where it
    is not built. A vocabulary of characters, given as bytes (see
    `piece_bpe`), may lack single bytes: each of its pieces merges them."""
    if _native is None:
        return None
    return _native.Encoder(_as_dict(ranks), SPLIT_BY_CALLER)


def _as_dict(ranks: Mapping[bytes, int]) -> dict[bytes, int]:
    """The C encoder reads a dict (and copies it into its own table)."""
    return ranks if isinstance(ranks, dict) else dict(ranks)


def encode(encoder, text: str, allowed: frozenset[str] = frozenset()) -> list[int]:
    """`encoder`'s ids for `text`, the special tokens in `allowed` read as
    such. A text with lone surrogates has no UTF-8: like tiktoken, they
    become U+FFFD (`encodable`)."""
    try:
        return encoder.encode(text, allowed)
    except UnicodeEncodeError:
        return encoder.encode(encodable(text), allowed)


def encode_pieces(encoder, pieces: Sequence[str | bytes]) -> list[int]:
    """`encoder`'s ids for pieces cut elsewhere, one after another."""
    try:
        return encoder.encode_pieces(pieces)
    except UnicodeEncodeError:
        return encoder.encode_pieces([encodable(piece) if isinstance(piece, str) else piece for piece in pieces])
