"""Text and UTF-8 bytes, where they do not fit.

A Python string may hold lone surrogates (from broken input, e.g. a bad
JSON escape); they have no UTF-8 encoding, so byte-level BPE cannot take
them. Like tiktoken, everything here replaces them with U+FFFD first. And a
byte-level token may hold bytes that are no text on their own.
"""


def encodable(text: str) -> str:
    """`text` with lone surrogates replaced by U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def text_of(token_bytes: bytes) -> str | None:
    """The text that bytes stand for, or None when they are not valid UTF-8
    on their own (byte-level BPE may learn the first two bytes of "あ")."""
    try:
        return token_bytes.decode("utf-8")
    except UnicodeDecodeError:
        return None
