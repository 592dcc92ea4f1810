"""Trying a tokenizer.json someone brought, as it is loaded.

Hugging Face's `tokenizers` compiles the regexes a tokenizer.json names
(a Split pre-tokenizer's, a Replace normalizer's) and runs them in Rust, with
no deadline: a file can hold a regex that backtracks for hours on a line of
text, or a vocabulary that asks for gigabytes. So a visitor's file is loaded,
and made to encode a sample of awkward text (`tried_tokenizer`), in the host
process that will hold it (`hosts`), within the processor time and memory
the host gives the making of its object; only a file that passes is kept
there, and a file that fails is remembered as refused (`refusal`), so that
bringing it again costs nothing. Loading it once, there, is the whole check:
a throwaway process that loaded it first, and a host that loaded it again,
took longer (Gemma 3's 33 MB file: an upload took 5.3 s that way, 3.7 s
this way).

Oniguruma, the regex engine `tokenizers` uses, gives up on a match that
backtracks too long (its retry limit), which `tokenizers` reports as a Rust
panic (`is_panic`). A sample cannot show what every text costs (a regex may
be slow without backtracking: `\\s*x|\\S` on a long run of spaces), which is
why the host gives every later encoding a deadline too.
"""

from __future__ import annotations

from .untrusted_regex import PROBE_TEXT


class RefusedTokenizer(ValueError):
    """`tokenizers` cannot load the file, or gave up encoding the sample: why, in one line."""


def tried_tokenizer(tokenizer_json: str):
    """The file loaded in `tokenizers`, once it has encoded the sample;
    RefusedTokenizer if it cannot. Whoever calls it bounds it: a host, by
    the time and memory of making its object, or the caps of this process."""
    import tokenizers

    try:
        tokenizer = tokenizers.Tokenizer.from_str(tokenizer_json)
    except Exception as error:  # noqa: BLE001 - tokenizers refuses a file with its own exception types
        raise RefusedTokenizer(f"Hugging Face's tokenizers cannot load it ({first_line(error)})") from None
    try:
        tokenizer.encode(PROBE_TEXT, add_special_tokens=False)
    except BaseException as error:  # a Rust panic is a BaseException
        if not is_panic(error):
            raise
        raise RefusedTokenizer(f"Hugging Face's tokenizers gave up encoding a short text with it "
                               f"({first_line(error)})") from None
    return tokenizer


def refusal(fingerprint: str) -> str | None:
    """Why the file with this SHA-256 was refused before, or None."""
    return _REFUSALS.get(fingerprint)


def remember_refusal(fingerprint: str, reason: str) -> str:
    """Keep why a file was refused (what the file did, not what the server
    could not do just then: a busy server's file is tried again). Kept by
    the file's SHA-256, not the file: a cache keyed by the text would hold
    up to 16 visitors' 50 MB files for the server's lifetime."""
    _REFUSALS[fingerprint] = reason
    while len(_REFUSALS) > KEPT_REFUSALS:
        del _REFUSALS[next(iter(_REFUSALS))]  # the oldest
    return reason


KEPT_REFUSALS = 256
_REFUSALS: dict[str, str] = {}  # SHA-256 of a file -> why it was refused, oldest first


def is_panic(error: BaseException) -> bool:
    """Whether `tokenizers` stopped on a Rust panic (pyo3's PanicException,
    which derives from BaseException: an `except Exception` lets it through)."""
    return type(error).__name__ == "PanicException"


def first_line(error: BaseException) -> str:
    return str(error).splitlines()[0][:300] if str(error) else type(error).__name__
