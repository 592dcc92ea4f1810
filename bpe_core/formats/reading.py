"""What reading any tokenizer file shares: one error type, JSON and gzip
read with limits, and the checks every byte-level vocabulary must pass.

A file comes from a user (an upload, a path on the command line), so
anything wrong in it is a `TokenizerFileError` that says what and where:
a page shows it as a message, the command line as one "error:" line.
"""

from __future__ import annotations

import json
import math
import zlib
from collections.abc import Iterable, Mapping

from ..engine.specials import special_tokens_problem
from ..engine.tokenizer import Tokenizer

_GZIP_MAGIC = b"\x1f\x8b"

# The work any tokenizer file may ask for. A file is small; what it asks to
# be built need not be (a merge list whose tokens grow by a byte each, a
# special id of 10**17 that sizes a table, a special token of a million
# characters that tiktoken compiles into a regex: see `specials`). o200k_base,
# the largest vocabulary bundled, has 200,019 tokens holding 1.4 MB of text.
MAX_VOCABULARY_TOKENS = 1_000_000  # ids run from 0 to one less than this
MAX_VOCABULARY_BYTES = 32_000_000


class TokenizerFileError(ValueError):
    """A file that is not a readable tokenizer (of the format it claims)."""


# Lists and objects a file may open: o200k_base as a tokenizer.json opens
# about 450,000 (a list per merge). Each costs Python 50-100 bytes and a
# call: 50 MB of "[]," is 17 million lists, 1.3 GB and seconds of reading.
MAX_JSON_CONTAINERS = 2_000_000


def parse_json(text: str | bytes, what: str = "a tokenizer file") -> object:
    """A file's JSON, or TokenizerFileError saying why not: JSON as the
    standard has it (no NaN or Infinity, which Python's reader accepts),
    numbers Python will read (not 5,000 digits long), nesting Python's
    recursion can follow, at most MAX_JSON_CONTAINERS lists and objects
    (counted before reading: every "[" and "{", those inside strings too,
    which only errs towards refusing a file no tokenizer writes)."""
    if isinstance(text, bytes) and text.startswith(b"\xef\xbb\xbf"):
        text = text[3:]  # a UTF-8 byte order mark, as some editors write
    containers = text.count(b"[" if isinstance(text, bytes) else "[") + text.count(b"{" if isinstance(text, bytes) else "{")
    if containers > MAX_JSON_CONTAINERS:
        raise TokenizerFileError(
            f"Not {what}: its JSON opens {containers:,} lists and objects; a tokenizer file opens at most "
            f"{MAX_JSON_CONTAINERS:,} (o200k_base's tokenizer.json about 450,000)."
        )
    try:
        return strict_json(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise TokenizerFileError(f"Not {what}: it is not valid JSON ({error}).") from None
    except RecursionError:
        raise TokenizerFileError(f"Not {what}: its JSON is nested too deeply to read.") from None
    except ValueError as error:  # NaN or Infinity, or an integer too long to convert
        raise TokenizerFileError(f"Not {what}: {error}.") from None


def strict_json(text: str | bytes) -> object:
    """`json.loads` that refuses, with a ValueError, NaN and Infinity (not
    JSON, and no number a count or an id can be), numbers too large for a
    float (1e309 would become Infinity) and integers too long to be one
    (converting thousands of digits is slow, and Python refuses them with
    advice meant for programmers)."""
    return json.loads(text, parse_constant=_refuse_constant, parse_int=_reasonable_int, parse_float=_finite_float)


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number JSON allows")


def _reasonable_int(digits: str) -> int:
    if len(digits.lstrip("-")) > 18:  # ids and counts fit in 18 digits; Python stops at 4,300 with a hint for coders
        raise ValueError(f"the number {digits[:12]}… is {len(digits):,} digits long")
    return int(digits)


def _finite_float(digits: str) -> float:
    if len(digits) > 40:
        raise ValueError(f"the number {digits[:12]}… is {len(digits):,} characters long")
    number = float(digits)
    if not math.isfinite(number):  # 1e309 is JSON, but no number Python holds
        raise ValueError(f"the number {digits} is too large")
    return number


def token_id_from_text(text: bytes | str) -> int:
    """A token id as a file writes it: ASCII digits only (int() also takes
    "+3", "3_0", "٣" and 4,000 digits), within MAX_VOCABULARY_TOKENS."""
    if not (text.isascii() and text.isdigit() and len(text) <= 18):
        shown = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
        raise ValueError(f"“{shown[:20]}” is not a token id, which is written in the digits 0-9")
    token_id = int(text)
    check_token_id(token_id, "A token")
    return token_id


def check_token_id(token_id: object, what: str) -> None:
    """TokenizerFileError unless `token_id` is a whole number from 0 to
    MAX_VOCABULARY_TOKENS - 1: tables are sized by the largest id, and
    the C encoder holds ids in 32 bits (native/bpe.h), as tiktoken does."""
    if type(token_id) is not int or not 0 <= token_id < MAX_VOCABULARY_TOKENS:
        raise TokenizerFileError(
            f"{what} has the id {token_id!r}; ids are whole numbers from 0 to {MAX_VOCABULARY_TOKENS - 1:,}."
        )


def check_vocabulary_size(vocab: Mapping[int, bytes | str]) -> None:
    """Refuse a vocabulary larger than any real one: in tokens, or in text."""
    if len(vocab) > MAX_VOCABULARY_TOKENS:
        raise TokenizerFileError(
            f"The file lists {len(vocab):,} tokens; a vocabulary here holds at most {MAX_VOCABULARY_TOKENS:,}."
        )
    total = sum(map(len, vocab.values()))
    if total > MAX_VOCABULARY_BYTES:
        raise TokenizerFileError(
            f"Its tokens hold {total / 1e6:,.0f} MB of text; no real vocabulary is larger than "
            f"{MAX_VOCABULARY_BYTES // 1_000_000} MB (o200k_base's 200,000 tokens hold 1.4 MB)."
        )
    for token_id in vocab:
        check_token_id(token_id, "A token")


def check_special_tokens(specials: object, where: str = "Special tokens") -> None:
    """Refuse special tokens that are not strings mapped to ids, or more of
    them, or longer ones, than a tokenizer may have (see `specials`)."""
    if not isinstance(specials, Mapping) or not all(isinstance(special, str) and special for special in specials):
        raise TokenizerFileError(f"{where} must map non-empty strings to ids.")
    for special, token_id in specials.items():
        check_token_id(token_id, f"{where}: “{special[:40]}”")
    problem = special_tokens_problem(specials)
    if problem:
        raise TokenizerFileError(f"{where} cannot be used: {problem}.")


MAX_UNPACKED_BYTES = 50_000_000  # o200k's rank file is 3.6 MB unpacked


def unpacked(data: bytes) -> bytes:
    """The file's text; a gzip-compressed file (the way the bundled ones
    are shipped) is recognised by its first two bytes and unpacked, up to a
    limit: a small upload must not unpack into gigabytes."""
    if not data.startswith(_GZIP_MAGIC):
        return data
    unpacker = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)  # the gzip format
    try:
        contents = unpacker.decompress(data, MAX_UNPACKED_BYTES)
    except zlib.error as error:
        raise TokenizerFileError(f"The file is gzip-compressed but cannot be unpacked: {error}.") from None
    if unpacker.unconsumed_tail:
        raise TokenizerFileError(f"The file unpacks to more than {MAX_UNPACKED_BYTES // 1_000_000} MB; no rank file is that large.")
    if not unpacker.eof:
        raise TokenizerFileError("The file is gzip-compressed but cannot be unpacked: it ends too early.")
    return contents


def check_all_single_bytes(tokens: Iterable[bytes]) -> None:
    """Every byte must be a token, or some text could not be encoded at all."""
    present = {token[0] for token in tokens if len(token) == 1}
    missing = [byte for byte in range(256) if byte not in present]
    if missing:
        examples = ", ".join(f"0x{byte:02X}" for byte in missing[:8]) + (", ..." if len(missing) > 8 else "")
        raise TokenizerFileError(
            f"The vocabulary lacks {len(missing)} of the 256 single bytes ({examples}); a byte-level "
            "vocabulary needs all of them so that any text can be encoded."
        )


def tokenizer_or_file_error(name: str, pattern: str, vocab: dict[int, bytes], special_tokens: Mapping[str, int]) -> Tokenizer:
    """The Tokenizer, once the work it asks for is within bounds, with its
    own refusals (a bad pattern, a special id that is also an ordinary id)
    turned into file errors."""
    check_vocabulary_size(vocab)
    check_special_tokens(special_tokens)
    try:
        return Tokenizer(name=name, pattern=pattern, vocab=vocab, special_tokens=special_tokens)
    except ValueError as error:  # PatternError is a ValueError too
        raise TokenizerFileError(str(error)) from None
