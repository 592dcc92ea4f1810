"""A few bars with their numbers, as HTML: a bar chart without a charting library.

Comparing a handful of numbers (tokens per tokenizer, bytes per token per
algorithm) needs bars of the right heights with their values written on
them, nothing a chart library adds; plotly.js would cost a page a quarter of
a second to load and draw them. The bars are sized in rem, so presenter
mode's larger type makes them larger too.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import NamedTuple

BARS_CSS = """
<style>
.bpe-bars { display: flex; flex-wrap: wrap; gap: 1.5rem 2.5rem; margin: 0.5rem 0 1rem; color: #31333f; }
.bpe-bars-panel { flex: 1 1 14rem; min-width: 0; }
.bpe-bars-title { font-weight: 600; font-size: 1rem; margin-bottom: 0.4rem; }
.bpe-bars-row { display: flex; align-items: flex-end; gap: 0.6rem; height: 14rem;
  border-bottom: 1px solid #b8bcc6; padding: 0 0.3rem; }
.bpe-bar { flex: 1 1 0; min-width: 0; height: 100%; display: flex; flex-direction: column;
  justify-content: flex-end; align-items: stretch; }
.bpe-bar-value { text-align: center; font-size: 0.9rem; font-variant-numeric: tabular-nums; line-height: 1.5rem; }
.bpe-bar-fill { border: 1px solid rgba(0, 0, 0, 0.35); border-bottom: none; border-radius: 2px 2px 0 0; }
.bpe-bars-names { display: flex; gap: 0.6rem; padding: 0.3rem 0.3rem 0; }
.bpe-bars-names > span { flex: 1 1 0; min-width: 0; text-align: center; font-size: 0.8rem; color: #555;
  overflow-wrap: anywhere; }
</style>
"""
VALUE_ROOM = "1.5rem"  # above the tallest bar, for its value


class Bar(NamedTuple):
    name: str
    value: float
    colour: str
    text: str  # the value as written on the bar
    hover: str  # the bar's tooltip


def bars_panel(title: str, bars: Sequence[Bar]) -> str:
    """One chart: `title` over bars whose heights are their values (from
    zero), each with its value above it and its name below."""
    top = max((bar.value for bar in bars), default=0) or 1
    columns = "".join(
        f'<div class="bpe-bar" title="{html.escape(bar.hover)}">'
        f'<span class="bpe-bar-value">{html.escape(bar.text)}</span>'
        f'<div class="bpe-bar-fill" style="height: calc((100% - {VALUE_ROOM}) * {max(bar.value, 0) / top:.4f}); '
        f'background: {html.escape(bar.colour)}"></div></div>'
        for bar in bars
    )
    names = "".join(f"<span>{html.escape(bar.name)}</span>" for bar in bars)
    return (f'<div class="bpe-bars-panel" role="figure" aria-label="{html.escape(title)}">'
            f'<div class="bpe-bars-title">{html.escape(title)}</div>'
            f'<div class="bpe-bars-row">{columns}</div><div class="bpe-bars-names">{names}</div></div>')


def bars_html(*panels: str) -> str:
    """Panels from `bars_panel` side by side (one under the other when narrow), with their style."""
    return BARS_CSS + f'<div class="bpe-bars">{"".join(panels)}</div>'
