"""Handing a tokenizer to other libraries: tiktoken and Hugging Face `tokenizers`.

Both exports give the same ids as `Tokenizer.encode` (the tests check it on
many texts):

- tiktoken needs only the ranks (token bytes -> id), the pattern and the
  special tokens; our encoder is tiktoken's algorithm, so that is exact.
- Hugging Face's BPE applies *merges* (pairs of token strings), not ranks.
  To reproduce tiktoken's "merge any two parts whose bytes form a token",
  every way of splitting a token into two tokens is listed as a merge, at
  that token's rank, and `ignore_merges` gives tiktoken's shortcut for a
  piece that is itself a token. (`transformers` converts tiktoken
  vocabularies the same way.) Bytes become GPT-2's printable stand-in
  characters, as in every byte-level tokenizer.json.

Duplicate tokens. Two merges can produce the same bytes ("ab"+"c" and
"a"+"bc"). `merges` and `trace` keep both (the training history is exact),
but encoding can only ever produce the first, lower id, and a rank file or a
tokenizer.json maps each byte string to one id: the exports list the first
id and leave the later duplicate out, as an unused gap in the ids.
"""

from __future__ import annotations

import base64
import functools
import json

import pandas as pd
import regex

from .patterns import CL100K_PATTERN
from .tokenizer import Tokenizer

# Hugging Face compiles patterns with Oniguruma, which reads "{1,3}+" as
# "one or more runs of one to three" instead of tiktoken's possessive
# "{1,3}". At the very end of a top-level alternative nothing can make the
# engine backtrack into the repetition, so the plain greedy form is the same.
ONIGURUMA_EQUIVALENTS = {CL100K_PATTERN: CL100K_PATTERN.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}")}
POSSESSIVE_INTERVAL = regex.compile(r"\{\d+(?:,\d*)?\}\+")


def _require_bytes(tokenizer: Tokenizer, target: str) -> None:
    if tokenizer.units != "bytes":
        raise ValueError(f"{target} vocabularies are byte-level; this tokenizer was trained on characters.")


def mergeable_ranks(tokenizer: Tokenizer) -> dict[bytes, int]:
    """Token bytes -> id for every token that encoding can produce."""
    _require_bytes(tokenizer, "tiktoken")
    return dict(tokenizer._ids_by_token)


def to_tiktoken(tokenizer: Tokenizer):
    """A `tiktoken.Encoding` with the same ranks, pattern and special tokens."""
    import tiktoken

    try:
        return tiktoken.Encoding(
            tokenizer.name,
            pat_str=tokenizer.pattern,
            mergeable_ranks=mergeable_ranks(tokenizer),
            special_tokens=tokenizer.special_tokens,
        )
    except ValueError as error:  # tiktoken's Rust regex refused the pattern
        raise ValueError(f"tiktoken cannot use this split pattern: {error}") from None


def tiktoken_file_text(tokenizer: Tokenizer) -> str:
    """The ranks in tiktoken's file format, one "base64(token) id" per line.

    Like OpenAI's own files it holds no pattern and no special tokens; load
    it with `tiktoken.load.load_tiktoken_bpe` and pass those yourself.
    """
    ranks = mergeable_ranks(tokenizer)
    return "".join(
        f"{base64.b64encode(token).decode('ascii')} {rank}\n"
        for token, rank in sorted(ranks.items(), key=lambda item: item[1])
    )


@functools.cache
def byte_to_unicode() -> dict[int, str]:
    """GPT-2's map from each byte to a printable character (space -> "Ġ"),
    so that byte-level tokens can be written as JSON strings."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    mapping, extra = {}, 0
    for byte in range(256):
        if byte in printable:
            mapping[byte] = chr(byte)
        else:
            mapping[byte] = chr(256 + extra)
            extra += 1
    return mapping


def oniguruma_pattern(pattern: str) -> str:
    """`pattern` written so that Hugging Face's regex engine splits the same."""
    pattern = ONIGURUMA_EQUIVALENTS.get(pattern, pattern)
    if POSSESSIVE_INTERVAL.search(pattern):
        raise ValueError(
            "Hugging Face's regex engine reads a possessive repetition such as {1,3}+ "
            "differently from tiktoken; write it as an atomic group, (?>x{1,3})."
        )
    return pattern


def hf_export_problem(tokenizer: Tokenizer) -> str | None:
    """Why `hf_tokenizer_json` cannot export this tokenizer, or None if it can:
    its split pattern must compile in Hugging Face's regex engine (Oniguruma).

    Compiling is not meaning the same: Oniguruma reads some syntax of Python's
    `regex` as literal text (fuzzy matching such as {e<=1}). The presets are
    tested to split identically; a custom pattern is exact only as far as
    both engines read it alike."""
    from tokenizers import Regex

    try:
        Regex(oniguruma_pattern(tokenizer.pattern))
    except ValueError as error:
        return str(error)
    except Exception as error:  # tokenizers raises its own type for a pattern Oniguruma refuses
        return f"Hugging Face's regex engine cannot compile this split pattern ({error})."
    return None


def hf_tokenizer_json(tokenizer: Tokenizer) -> str:
    """A Hugging Face tokenizer.json (text) that gives the same ids.

    Exact whenever the split pattern covers all text (every preset does):
    Hugging Face keeps text between pattern matches, tiktoken drops it.
    """
    if tokenizer.units == "bytes":
        to_text = lambda token: "".join(byte_to_unicode()[byte] for byte in token)
    else:
        to_text = lambda token: token
    ids_by_token = tokenizer._ids_by_token
    vocab = {to_text(token): token_id for token, token_id in ids_by_token.items()}
    merges = []
    for token, token_id in sorted(ids_by_token.items(), key=lambda item: item[1]):
        splits = [
            (token[:cut], token[cut:])
            for cut in range(1, len(token))
            if token[:cut] in ids_by_token and token[cut:] in ids_by_token
        ]
        splits.sort(key=lambda split: (ids_by_token[split[0]], ids_by_token[split[1]]))
        merges.extend([to_text(left), to_text(right)] for left, right in splits)

    model = {
        "type": "BPE",
        "dropout": None,
        "unk_token": None,
        "continuing_subword_prefix": None,
        "end_of_word_suffix": None,
        "fuse_unk": False,
        "byte_fallback": False,
        "ignore_merges": True,
        "vocab": vocab,
        "merges": merges,
    }
    split = {"type": "Split", "pattern": {"Regex": oniguruma_pattern(tokenizer.pattern)}, "behavior": "Isolated", "invert": False}
    if tokenizer.units == "bytes":
        pre_tokenizer = {
            "type": "Sequence",
            "pretokenizers": [
                split,
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
            ],
        }
        decoder = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}
    else:  # the unknown token needs a name no character of the alphabet has
        unknown = next(name for name in ("\N{REPLACEMENT CHARACTER}", "<unk>", "[UNK]", "<|unk|>") if name not in vocab)
        vocab[unknown] = tokenizer.unknown_id
        model["unk_token"] = unknown
        pre_tokenizer = split
        decoder = {"type": "Fuse"}
    added_tokens = [
        {
            "id": token_id,
            "content": special,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
        for special, token_id in sorted(tokenizer.special_tokens.items(), key=lambda item: item[1])
    ]
    document = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added_tokens,
        "normalizer": None,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": decoder,
        "model": model,
    }
    return json.dumps(document, ensure_ascii=False)


# A spreadsheet runs a cell that starts with one of these as a formula.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value):
    """A text cell a spreadsheet shows as text: one that would start a formula
    (a token "=cmd|..." from an uploaded text) gets a leading apostrophe,
    the usual guard against CSV formula injection."""
    return "'" + value if isinstance(value, str) and value.startswith(_FORMULA_STARTS) else value


def frame_csv(frame: pd.DataFrame) -> str:
    """A table as CSV for download, its text cells spreadsheet-safe."""
    return frame.map(spreadsheet_safe).to_csv(index=False)


def merges_csv(tokenizer: Tokenizer) -> str:
    """The learned merges as CSV: one row per merge, with the ids, the text
    they stand for and, for a tokenizer trained here, the training numbers.
    Bytes that are not whole characters are written as \\xNN."""
    trace = tokenizer.trace
    rows = []
    for step, ((left, right), new_id) in enumerate(tokenizer.merges, start=1):
        left_text, right_text, token_text = (
            tokenizer.token_bytes(token_id).decode("utf-8", errors="backslashreplace") for token_id in (left, right, new_id)
        )
        rows.append({
            "step": step, "new_id": new_id, "left_id": left, "right_id": right,
            "left": left_text, "right": right_text, "token": token_text,
            "count": trace[step - 1].count if trace else None,
            "corpus_tokens": trace[step - 1].corpus_tokens if trace else None,
        })
    return frame_csv(pd.DataFrame(rows, columns=MERGES_CSV_COLUMNS))


MERGES_CSV_COLUMNS = ["step", "new_id", "left_id", "right_id", "left", "right", "token", "count", "corpus_tokens"]
