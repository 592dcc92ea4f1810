"""Showing user text literally in Streamlit's Markdown.

Streamlit's messages and captions are Markdown, with Streamlit's own syntax
on top (`:red[...]`, `$math$`, `:material/icon:`). A file name, a pattern or
an error that quotes user text must be shown as typed: never as a link, an
image fetched from elsewhere, or formatting.
"""

from __future__ import annotations

import re

_MARKDOWN_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def markdown_literal(text: str) -> str:
    """`text` to show as itself in Markdown (Streamlit's messages and captions).

    Any ASCII punctuation escaped with a backslash is literal in CommonMark,
    which also disarms Streamlit's own syntax (`:red[...]`, `$math$`,
    `:material/icon:`): a file named "![x](http://…)" stays text and never
    becomes an image fetched from elsewhere."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", text)
