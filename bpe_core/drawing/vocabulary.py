"""The Vocabulary page's drawings, plain HTML: how many tokens each script
has, and the first rows of a vocabulary table."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..analysis.vocabulary import NON_SCRIPT_CATEGORIES
from .palette import PALETTE


SCRIPT_BARS_CSS = """
<style>
.voc-bars { display: grid; grid-template-columns: max-content 1fr; gap: 0.3rem 0.6rem; align-items: center;
  font-family: "Source Sans Pro", system-ui, sans-serif; font-size: 0.95rem; color: #111; }
.voc-bars .voc-script { text-align: right; color: #31333f; }
.voc-bars .voc-track { display: flex; align-items: center; gap: 0.4rem; min-width: 0; }
.voc-bars .voc-bar { height: 1.2rem; min-width: 2px; border-radius: 2px; }
.voc-bars .voc-count { font-variant-numeric: tabular-nums; white-space: nowrap; }
</style>
"""


def script_bars_html(counts: pd.Series) -> str:
    """Tokens per script as horizontal bars, the largest on top, each with
    its count: plain HTML, drawn at once (a plotly chart costs a page's
    visitor a third of a second of loading and drawing), scaled with the
    page's type in presenter mode. Scripts are blue; categories that are
    not a script (digits, bytes …) grey, so the writing systems stand out.
    Names are escaped like any text, though they come from a fixed list."""
    counts = counts.sort_values(ascending=False, kind="stable")
    largest = max(int(counts.max()), 1) if len(counts) else 1
    rows = "".join(
        f'<span class="voc-script">{html.escape(str(category))}</span><span class="voc-track">'
        f'<span class="voc-bar" style="width:{85 * int(count) / largest:.2f}%;'
        f'background:{PALETTE[-1] if category in NON_SCRIPT_CATEGORIES else PALETTE[0]}"></span>'
        f'<span class="voc-count">{int(count):,}</span></span>'
        for category, count in counts.items()
    )
    return f'{SCRIPT_BARS_CSS}<div class="voc-bars" role="list" aria-label="Tokens per script">{rows}</div>'


# ------------------------------------------------------------------ tables


class Column(NamedTuple):
    """How a plain table shows one column of a vocabulary table."""

    label: str
    help: str | None = None  # the header's tooltip
    number_format: str = "{:d}"  # for a numeric column: "{:,.0f}" for a score
    token: bool = False  # a token's text: in type that shows each character, never reordered with its neighbours


TOKEN_CHARS_SHOWN = 80  # of a longer token, the start and "…" (the detail view shows all of it)


PLAIN_TABLE_CSS = """
<style>
.voc-table { overflow-x: auto; }
.voc-table table { border-collapse: collapse; font-size: 0.875rem; color: #111;
  font-family: "Source Sans Pro", system-ui, sans-serif; }
.voc-table th, .voc-table td { padding: 0.2rem 0.5rem; border-bottom: 1px solid rgba(49, 51, 63, 0.12);
  text-align: left; vertical-align: top; white-space: nowrap; }
.voc-table th { color: #31333f; font-weight: 600; background: #f8f9fb; }
.voc-table th[title] { text-decoration: underline dotted; cursor: help; }
.voc-table .voc-num { text-align: right; font-variant-numeric: tabular-nums; }
.voc-table .voc-tok { font-family: ui-monospace, "DejaVu Sans Mono", "Noto Sans Mono", monospace;
  white-space: pre; unicode-bidi: isolate; }
</style>
"""


def plain_table_html(frame: pd.DataFrame, columns: Mapping[str, Column]) -> str:
    """The rows of `frame` (a few: a plain table has no scrolling of its
    own) in the given `columns`, as one piece of HTML with every header and
    cell escaped. Tokens are the user's bytes: a `<script>` or a `*` in one
    stays text, never markup or Markdown (Streamlit's own table element
    reads each cell as Markdown). Numbers align right, a yes/no column
    shows ✓ or ✗, a missing value nothing."""
    shown = [name for name in columns if name in frame]
    head = "".join(
        f'<th{_title(columns[name].help)}{_class(frame[name], columns[name])}>{html.escape(columns[name].label)}</th>'
        for name in shown
    )
    body = "".join(
        "<tr>" + "".join(
            f"<td{_class(frame[name], columns[name])}>{html.escape(_cell(value, columns[name]))}</td>"
            for name, value in zip(shown, row)
        ) + "</tr>"
        for row in frame[shown].itertuples(index=False, name=None)
    )
    return f'{PLAIN_TABLE_CSS}<div class="voc-table"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def _cell(value, column: Column) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "✓" if value else "✗"
    if isinstance(value, (int, float, np.integer, np.floating)):
        return column.number_format.format(value)
    text = str(value)
    return text[:TOKEN_CHARS_SHOWN] + "…" if column.token and len(text) > TOKEN_CHARS_SHOWN else text


def _class(values: pd.Series, column: Column) -> str:
    if column.token:
        return ' class="voc-tok"'
    numeric = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
    return ' class="voc-num"' if numeric else ""


def _title(text: str | None) -> str:
    return f' title="{html.escape(text)}"' if text else ""
