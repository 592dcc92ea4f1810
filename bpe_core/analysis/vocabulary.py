"""A tokenizer's vocabulary as a table: what is in it, in which script, and when it was learned.

One row per token, special tokens included, with the facts people ask about
a vocabulary: how long each token is, whether it is whole text or only part
of a character (byte-level BPE learns many of those), which writing system
it belongs to, whether it starts with a space (" the" and "the" are
different tokens), and, for a tokenizer trained here, at which merge it was
learned. A SentencePiece model's table also holds each piece as it spells
it ("▁Hello", "<0xE3>") and its score. Pure functions, no Streamlit and no
pandas: the table's columns, a few rows, the tokens per script and one
token in detail are plain Python (a page that shows a vocabulary's first
rows does without pandas, half a second of its first visit);
`vocabulary_search` makes the whole table a DataFrame and searches it.
"""

from __future__ import annotations

import functools
import unicodedata
from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple

import regex

from ..engine.tokenizer import Tokenizer
from ..engine.utf8 import text_of
from ..vocabularies.merge_list_bpe import MergeListTokenizer
from ..vocabularies.sentencepiece_model import SentencePieceTokenizer
from .labels import label_text, split_stray_bytes

# Scripts with a name of their own in the table (Unicode's Script property,
# as the `regex` module spells it). Hiragana and Katakana share one: Japanese
# mixes them freely. Letters of any script not listed count as OTHER_SCRIPT.
SCRIPT_LABELS = {
    "Latin": "Latin",
    "Cyrillic": "Cyrillic",
    "Greek": "Greek",
    "Armenian": "Armenian",
    "Georgian": "Georgian",
    "Hebrew": "Hebrew",
    "Arabic": "Arabic",
    "Syriac": "Syriac",
    "Thaana": "Thaana",
    "Devanagari": "Devanagari",
    "Bengali": "Bengali",
    "Gurmukhi": "Gurmukhi",
    "Gujarati": "Gujarati",
    "Oriya": "Odia",
    "Tamil": "Tamil",
    "Telugu": "Telugu",
    "Kannada": "Kannada",
    "Malayalam": "Malayalam",
    "Sinhala": "Sinhala",
    "Thai": "Thai",
    "Lao": "Lao",
    "Tibetan": "Tibetan",
    "Myanmar": "Myanmar",
    "Khmer": "Khmer",
    "Hangul": "Hangul",
    "Han": "Han (CJK)",
    "Hiragana": "Hiragana/Katakana",
    "Katakana": "Hiragana/Katakana",
    "Bopomofo": "Bopomofo",
    "Ethiopic": "Ethiopic",
    "Mongolian": "Mongolian",
    "Cherokee": "Cherokee",
    "Canadian_Aboriginal": "Canadian syllabics",
    "Tifinagh": "Tifinagh",
    "Nko": "N'Ko",
    "Javanese": "Javanese",
    "Ol_Chiki": "Ol Chiki",
    "Yi": "Yi",
}
OTHER_SCRIPT = "other script"

# Tokens without letters, or with no one script in the majority.
DIGITS = "digits"
WHITESPACE = "whitespace"
SYMBOLS = "punctuation/symbols"
MIXED = "mixed"
NOT_UTF8 = "bytes (not UTF-8)"
SPECIAL = "special token"
UNKNOWN = "unknown character"  # a character-level tokenizer's stand-in for unseen characters
NON_SCRIPT_CATEGORIES = [DIGITS, WHITESPACE, SYMBOLS, MIXED, NOT_UTF8, SPECIAL, UNKNOWN]

# Every value the script column can take, for a filter whose options do not
# change with the tokenizer (so a link to a filtered view stays valid).
CATEGORIES = [*dict.fromkeys(SCRIPT_LABELS.values()), OTHER_SCRIPT, *NON_SCRIPT_CATEGORIES]

# One alternative per script, so a single match names a character's script.
_SCRIPT_OF = regex.compile("|".join(rf"(?P<{name}>\p{{Script={name}}})" for name in SCRIPT_LABELS))
_LETTER = regex.compile(r"[\p{L}\p{M}]")  # marks too: Indic vowel signs are marks
_NO_SCRIPT = regex.compile(r"[\p{Script=Common}\p{Script=Inherited}]")  # "ー", a combining accent

SORTS = {"id": "id", "length": "longest first", "step": "step learned"}


# ----------------------------------------------------------------- scripts


@functools.cache
def letter_script(char: str) -> str | None:
    """The script label of a letter (or combining mark), or None for any
    other character and for letters shared by all scripts. Cached: a
    200,000-token vocabulary has only some tens of thousands of characters."""
    if not _LETTER.match(char) or _NO_SCRIPT.match(char):
        return None
    match = _SCRIPT_OF.match(char)
    return SCRIPT_LABELS[match.lastgroup] if match else OTHER_SCRIPT


def script_of(text: str) -> str:
    """The script most of a token's letters belong to ("mixed" when none has
    a majority); a token without letters is digits, whitespace or symbols."""
    if text.isascii() and any(char.isalpha() for char in text):  # half of a vocabulary: all its letters Latin
        return letter_script("a")
    scripts = [script for script in map(letter_script, text) if script is not None]
    if scripts:
        most_common = max(set(scripts), key=scripts.count)
        return most_common if 2 * scripts.count(most_common) > len(scripts) else MIXED
    visible = [char for char in text if not char.isspace()]
    if not visible:
        return WHITESPACE
    return DIGITS if all(unicodedata.category(char) == "Nd" for char in visible) else SYMBOLS


# ------------------------------------------------------------------ table


def learned_steps(tokenizer: Tokenizer) -> dict[int, int]:
    """Token id -> the merge step (1 = first) that learned it. Only a
    tokenizer trained here (or loaded from a file saved here) has a trace;
    the ranks of a bundled encoding say nothing about training steps."""
    return {step.new_id: step.new_id - tokenizer.first_merge_id + 1 for step in tokenizer.trace}


def table_ids(tokenizer: Tokenizer) -> list[int]:
    """The ids of a tokenizer's table, in its order: every token, ordinary and special, by id."""
    return sorted([*tokenizer.vocab, *set(tokenizer.special_tokens.values())])  # two names may share an id


def vocabulary_columns(tokenizer: Tokenizer, ids: list[int] | None = None) -> dict[str, list]:
    """The table's columns (name -> one value per token), ordinary and
    special tokens in id order; with `ids` (some of `table_ids`, in order),
    those rows only: the first rows of a large vocabulary are read in a
    moment, all of them take most of a second.

    Columns: id; text (as `labels.label_text` shows it: a space as ·, part
    of a character as <E3 81>); bytes (length); characters (None when not
    valid UTF-8); valid_utf8; script (see `script_of`; special tokens are
    SPECIAL, broken bytes NOT_UTF8); leading_space; learned_at_step (None
    unless learned by a merge of a tokenizer trained here); special; string
    (the token's own text, for regex search and the CSV; U+FFFD for bytes
    that are not a whole character). For SentencePiece, also piece and
    score; for a merge list (Gemma 3), piece and first_merge (where the list
    first makes the token)."""
    special_ids = set(tokenizer.special_tokens.values())
    ids = table_ids(tokenizer) if ids is None else ids
    raw = [tokenizer.token_bytes(token_id) for token_id in ids]
    texts = [text_of(token) for token in raw]
    special = [token_id in special_ids for token_id in ids]
    steps = learned_steps(tokenizer)
    columns = {
        "id": ids,
        "text": [label_text(token) for token in raw],
        "bytes": [len(token) for token in raw],
        "characters": [None if text is None else len(text) for text in texts],
        "valid_utf8": [text is not None for text in texts],
        "script": [
            UNKNOWN if token_id == tokenizer.unknown_id else _category(text, is_special)
            for token_id, text, is_special in zip(ids, texts, special)
        ],
        "leading_space": [token.startswith(b" ") and not is_special for token, is_special in zip(raw, special)],
        "learned_at_step": [steps.get(token_id) for token_id in ids],
        "special": special,
        "string": [token.decode("utf-8", errors="replace") for token in raw],
    }
    if isinstance(tokenizer, SentencePieceTokenizer):  # its own spelling, and the scores that order merges
        columns["piece"] = [tokenizer.pieces[token_id] for token_id in ids]
        columns["score"] = [tokenizer.scores[token_id] for token_id in ids]
    elif isinstance(tokenizer, MergeListTokenizer):  # its own spelling, and where the list first makes it
        columns["piece"] = [tokenizer.pieces[token_id] for token_id in ids]
        parts = [tokenizer.merge_parts(token_id) for token_id in ids]
        columns["first_merge"] = [None if pair is None else tokenizer.rank_of_pair(*pair) for pair in parts]
    return columns


def vocabulary_rows(tokenizer: Tokenizer, ids: list[int]) -> list[dict]:
    """The table's rows for `ids` (some of `table_ids`, in order), one dict
    each: a page's first rows, read without building (or importing) a
    DataFrame."""
    columns = vocabulary_columns(tokenizer, ids)
    return [dict(zip(columns, values)) for values in zip(*columns.values())]


def _category(text: str | None, is_special: bool) -> str:
    if is_special:
        return SPECIAL  # a control signal, not text in any script
    return NOT_UTF8 if text is None else script_of(text)


# ------------------------------------------------------------ the chart


def script_counts(scripts: Iterable[str]) -> dict[str, int]:
    """How many tokens each script (or category) has, most first: `scripts`
    is the table's script column."""
    return dict(Counter(scripts).most_common())


# ------------------------------------------------------------------ detail


class TokenDetail(NamedTuple):
    """One token, closely: what the detail view shows."""

    id: int
    label: str  # as the table shows it
    token_bytes: bytes
    hex: str  # "E3 81 82"
    special: bool
    step: int | None  # the merge that learned it, for a tokenizer trained here
    parts: tuple[int, int] | None  # the two tokens that merge joined


def token_detail(tokenizer: Tokenizer, token_id: int) -> TokenDetail:
    """Everything the detail view shows about one token. An id the
    tokenizer does not have raises ValueError with the valid range."""
    token_bytes = tokenizer.token_bytes(token_id)
    merge = next((step for step in tokenizer.trace if step.new_id == token_id), None)
    return TokenDetail(
        id=token_id,
        label=label_text(token_bytes),
        token_bytes=token_bytes,
        hex=" ".join(f"{byte:02X}" for byte in token_bytes),
        special=token_id in tokenizer.special_tokens.values(),
        step=None if merge is None else merge.new_id - tokenizer.first_merge_id + 1,
        parts=None if merge is None else merge.pair,
    )


def code_points(token_bytes: bytes) -> list[dict[str, str]]:
    """Each character of a token with its code point and Unicode name, so
    that look-alikes (a no-break space, a Cyrillic "а") can be told apart.
    Bytes that are only part of a character appear as one row each."""
    rows = []
    for run, stray in split_stray_bytes(token_bytes):
        if stray:
            rows.extend((f"<{byte}>", "", "part of a character (not valid UTF-8 alone)") for byte in run.split())
        else:
            rows.extend((label_text(char.encode()), f"U+{ord(char):04X}", unicodedata.name(char, "(no name)")) for char in run)
    return [dict(zip(("character", "code point", "name"), row)) for row in rows]
