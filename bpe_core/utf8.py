"""Text that can be UTF-8 encoded.

A Python string may hold lone surrogates (from broken input, e.g. a bad
JSON escape); they have no UTF-8 encoding, so byte-level BPE cannot take
them. Like tiktoken, everything here replaces them with U+FFFD first.
"""


def encodable(text: str) -> str:
    """`text` with lone surrogates replaced by U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
