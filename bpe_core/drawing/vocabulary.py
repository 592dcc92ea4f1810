"""The Vocabulary page's drawing, plain HTML: how many tokens each script has."""

from __future__ import annotations

import html

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
