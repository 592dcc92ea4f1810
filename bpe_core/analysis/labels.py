"""A token as readable text, for tables, captions and the views built on them.

A token is bytes, and neither its whitespace nor its partial characters
show up as themselves: a space is invisible and the first two bytes of
"あ" decode to a meaningless "�". So a label shows a space as "·", a tab
as "→", a line break as "↵", and bytes that are only part of a character
as "<E3 81>". Every label is exactly as many characters as it stands for
(one marker per invisible character), so rows of labels stay aligned.
"""

from __future__ import annotations

import itertools
import unicodedata

WHITESPACE_MARKERS = {" ": "·", "\t": "→", "\r": "␍", "\n": "↵"}
WHITESPACE_TABLE = str.maketrans(WHITESPACE_MARKERS)


def visible_marker(char: str) -> str | None:
    """The one character that stands for an invisible one (whitespace, a
    control character), or None for a character that shows itself. Always
    exactly one character, so that stacked rows of text stay aligned."""
    if char in WHITESPACE_MARKERS:
        return WHITESPACE_MARKERS[char]
    category = unicodedata.category(char)
    if category == "Cc":  # control characters: their Unicode "control picture"
        code = ord(char)
        return chr(0x2400 + code) if code < 0x20 else "␡" if code == 0x7F else "⍰"
    if category == "Zs":  # other spaces (no-break, thin, ideographic ...)
        return "·"
    if category in ("Zl", "Zp"):  # line and paragraph separators
        return "↵"
    return None


def split_stray_bytes(token_bytes: bytes) -> list[tuple[str, bool]]:
    """A token as runs of whole characters, (text, False), and of bytes that
    are only part of a character, ("E3 81", True), in order."""
    text = token_bytes.decode("utf-8", errors="surrogateescape")
    runs = []
    for stray, chars in itertools.groupby(text, key=lambda char: 0xDC80 <= ord(char) <= 0xDCFF):
        chars = "".join(chars)
        runs.append((" ".join(f"{ord(char) - 0xDC00:02X}" for char in chars), True) if stray else (chars, False))
    return runs


def label_text(token_bytes: bytes) -> str:
    """A token as plain text, for tables: visible whitespace, and bytes that
    are only part of a character as <E3 81> rather than a meaningless "�"."""
    text = token_bytes.decode("utf-8", errors="surrogateescape")  # a stray byte becomes a lone surrogate
    if text.isprintable() and " " not in text:  # most tokens: whole characters that all show themselves
        return text
    shown = text.translate(WHITESPACE_TABLE)
    if shown.isprintable():  # most others: whole characters, and whitespace with markers of its own (" the")
        return shown
    return "".join(
        f"<{run}>" if stray else "".join(visible_marker(char) or char for char in run)
        for run, stray in split_stray_bytes(token_bytes)
    )


def byte_offsets(text: str) -> list[int]:
    """UTF-8 byte offset of every character position (and of the end)."""
    offsets, total = [0], 0
    for char in text:
        total += len(char.encode("utf-8"))
        offsets.append(total)
    return offsets
