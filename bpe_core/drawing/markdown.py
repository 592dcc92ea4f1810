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


def markdown_table(rows: list[dict[str, object]]) -> str:
    """`rows` (each a dict, the first one's keys the columns) as a Markdown
    table: cells shown literally, whole numbers with thousands separators and
    their columns aligned right. For a few rows nobody sorts or searches,
    drawn with no table library (pandas, pyarrow) loaded to draw them."""
    columns = list(rows[0]) if rows else []

    def cell(value: object) -> str:
        if isinstance(value, int) and not isinstance(value, bool):
            return f"{value:,}"
        return markdown_literal(str(value)) or " "  # a pipe too is escaped: it stays in its cell

    numeric = [all(isinstance(row[column], int) and not isinstance(row[column], bool) for row in rows)
               for column in columns]
    lines = ["| " + " | ".join(cell(column) for column in columns) + " |",
             "|" + "|".join("---:" if right else ":---" for right in numeric) + "|"]
    lines += ["| " + " | ".join(cell(row[column]) for column in columns) + " |" for row in rows]
    return "\n".join(lines)
