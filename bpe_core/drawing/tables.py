"""Plain tables as one piece of escaped HTML: no Streamlit.

A table a reader reads rather than sorts is drawn as HTML, which a browser
draws at once: Streamlit's own table element loads Arrow's code first (a
fifth of a second of a page's load) and its data grid more. Every name and
value is escaped: column names can be uploaded file names, cells tokens.
A column of tokens is drawn as tokens are everywhere: in type that shows
each character, never reordered with its neighbours.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a page that draws only lists of rows never loads pandas (half a second of a first visit)
    import pandas as pd

Rows = list[Mapping[str, object]]  # one dict per row, column -> value, every row with the same columns

TABLE_CSS = """<style>
.bpe-table-wrap { overflow-x: auto; }
.bpe-table { border-collapse: collapse; font-size: 0.875rem; font-variant-numeric: tabular-nums; }
.bpe-table th, .bpe-table td { padding: 0.2rem 0.6rem; border-bottom: 1px solid rgba(49, 51, 63, 0.12); }
.bpe-table th { text-align: left; font-weight: 600; border-bottom-color: rgba(49, 51, 63, 0.4); }
.bpe-table th[title] { text-decoration: underline dotted; cursor: help; }
.bpe-table .num { text-align: right; }
.bpe-table .tok { font-family: ui-monospace, "DejaVu Sans Mono", "Noto Sans Mono", monospace; white-space: pre;
  unicode-bidi: isolate; }
</style>"""
TOKEN_CHARS_SHOWN = 80  # of a longer token, the start and "…" (a token's own view shows all of it)

Format = str | Callable[[object], str]  # "{:.2f}×", or a function of the value


def table_rows(table: Rows | pd.DataFrame) -> Rows:
    """`table`'s rows as dicts: a list of them as it is, a pandas DataFrame's
    with its missing values (NaN, NA) as None and its numbers as Python's."""
    if isinstance(table, list):
        return table
    return table.astype(object).where(table.notna(), None).to_dict("records")


def table_html(table: Rows | pd.DataFrame, formats: Mapping[str, Format], helps: Mapping[str, str] | None = None,
               tokens: Collection[str] = ()) -> str:
    """`table` (rows as dicts, or a DataFrame) as a plain HTML table, every name and value escaped: the
    columns in `formats` (column -> a format such as "{:.2f}×", or a
    function) are numbers, written so and aligned right, empty where
    missing; the columns in `tokens` hold tokens' text (whitespace already
    made visible: "·the"), drawn as tokens, the first TOKEN_CHARS_SHOWN
    characters of a longer one; `helps` (column -> what it means) show on
    hovering a header."""
    helps = helps or {}

    def written(form: Format, value) -> str:
        return form(value) if callable(form) else form.format(value)

    def token(text: str) -> str:
        return text if len(text) <= TOKEN_CHARS_SHOWN else text[:TOKEN_CHARS_SHOWN] + "…"

    def cell(column: str, value) -> str:
        if column in formats:
            return f'<td class="num">{"" if missing(value) else html.escape(written(formats[column], value))}</td>'
        text = "" if value is None else str(value)
        if column in tokens:
            return f'<td class="tok">{html.escape(token(text))}</td>'
        return f"<td>{html.escape(text)}</td>"

    def header(column: str) -> str:
        number = " class=num" if column in formats else ""
        title = f' title="{html.escape(helps[column])}"' if helps.get(column) else ""
        return f"<th{number}{title}>{html.escape(str(column))}</th>"

    rows = table_rows(table)
    columns = list(rows[0]) if rows else list(getattr(table, "columns", []))
    head = "".join(header(column) for column in columns)
    body = "".join("<tr>" + "".join(cell(column, row[column]) for column in columns) + "</tr>" for row in rows)
    return (f'{TABLE_CSS}<div class="bpe-table-wrap"><table class="bpe-table"><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>")


def missing(value) -> bool:
    """No value: None, or a number that is not one (NaN)."""
    return value is None or (isinstance(value, float) and math.isnan(value))
