"""Bars with their numbers, as HTML: a bar chart without a charting library.

Comparing a handful of numbers (tokens per tokenizer, bytes per token per
algorithm) needs bars of the right lengths with their values written on
them, nothing a chart library adds; plotly.js would cost a page a quarter of
a second to load and draw them. Two shapes, one style:

- `bars_panel` / `bars_html`: a few upright bars per panel, panels side by
  side (Compare's tokens per tokenizer, Algorithms' two measures);
- `horizontal_bars_html`: a row per name, longest list first, each row one
  bar or a group of them (Tax's premium per language and tokenizer,
  Vocabulary's tokens per script), with a legend and a marked value;
- `spread_rows_html`: a row per name, each a group of spreads (a bar over
  the middle half of some values and a dot at their median) on a log
  scale, with its ticks (the atlas's premiums per script and tokenizer).

Sizes are in rem, so presenter mode's larger type makes them larger too.
Every name and text is escaped: tokenizers can be named after uploaded files.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

BARS_CSS = """
<style>
.bpe-bars, .bpe-hbars { margin: 0.5rem 0 1rem; color: #31333f; }
.bpe-bars-title { font-weight: 600; font-size: 1rem; margin-bottom: 0.4rem; }
.bpe-bars-legend { display: flex; flex-wrap: wrap; gap: 0.3rem 1.2rem; font-size: 0.875rem; margin-bottom: 0.6rem; }
.bpe-bars-legend i { display: inline-block; width: 0.9rem; height: 0.9rem; margin-right: 0.35rem;
  vertical-align: -0.1rem; border: 1px solid rgba(0, 0, 0, 0.35); }
.bpe-bars { display: flex; flex-wrap: wrap; gap: 1.5rem 2.5rem; }
.bpe-bars-panel { flex: 1 1 14rem; min-width: 0; }
.bpe-bars-row { display: flex; align-items: flex-end; gap: 0.6rem; height: 14rem;
  border-bottom: 1px solid #b8bcc6; padding: 0 0.3rem; }
.bpe-bar { flex: 1 1 0; min-width: 0; height: 100%; display: flex; flex-direction: column;
  justify-content: flex-end; align-items: stretch; }
.bpe-bar-value { text-align: center; font-size: 0.9rem; font-variant-numeric: tabular-nums; line-height: 1.5rem; }
.bpe-bar-fill { border: 1px solid rgba(0, 0, 0, 0.35); border-bottom: none; border-radius: 2px 2px 0 0; }
.bpe-bars-names { display: flex; gap: 0.6rem; padding: 0.3rem 0.3rem 0; }
.bpe-bars-names > span { flex: 1 1 0; min-width: 0; text-align: center; font-size: 0.8rem; color: #555;
  overflow-wrap: anywhere; }
.bpe-hbars-rows { display: grid; grid-template-columns: max-content 1fr; align-items: center; }
.bpe-hbars-name { text-align: right; font-size: 0.875rem; padding: 0.25rem 0.8rem 0.25rem 0; }
.bpe-hbars-name, .bpe-hbars-group { border-bottom: 1px solid rgba(49, 51, 63, 0.08); align-self: stretch;
  display: flex; flex-direction: column; justify-content: center; }
.bpe-hbars-group { position: relative; padding: 0.25rem 0; }
.bpe-hbar { display: flex; align-items: center; gap: 0.3rem; height: 0.8rem; margin: 1px 0; }
.bpe-hbar:only-child { height: 1.2rem; }
.bpe-hbar-fill { flex: none; height: 100%; min-width: 2px; box-sizing: border-box; border: 1px solid rgba(0, 0, 0, 0.35);
  border-left: none; border-radius: 0 2px 2px 0; }
.bpe-hbar-value { font-size: 0.75rem; font-variant-numeric: tabular-nums; white-space: nowrap; }
.bpe-hbar:only-child .bpe-hbar-value { font-size: 0.875rem; }
.bpe-spreads .bpe-hbars-group { background: var(--bpe-grid); padding: 0.2rem 0; }
.bpe-spread { position: relative; height: 0.45rem; }
.bpe-spread-range { position: absolute; top: 0.15rem; height: 0.15rem; min-width: 2px; }
.bpe-spread-median { position: absolute; top: -0.075rem; width: 0.6rem; height: 0.6rem; margin-left: -0.3rem;
  box-sizing: border-box; border-radius: 50%; border: 1px solid #333; }
.bpe-spread-axis { position: relative; height: 1.3rem; font-size: 0.8rem; font-variant-numeric: tabular-nums; }
.bpe-spread-axis > span { position: absolute; bottom: 0.2rem; transform: translateX(-50%); }
.bpe-hbars-marked .bpe-hbars-group::after { content: ""; position: absolute; top: 0; bottom: 0; left: var(--bpe-mark);
  border-left: 2px dashed #444; pointer-events: none; }
</style>
"""
VALUE_ROOM = "1.5rem"  # above the tallest upright bar, for its value
ROW_VALUE_ROOM = "4rem"  # after the longest horizontal bar, for its value ("100,261", "17.01×")


class Bar(NamedTuple):
    name: str  # under an upright bar; a horizontal bar's row and legend say it
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


def horizontal_bars_html(title: str, rows: Mapping[str, Sequence[Bar]], legend: Mapping[str, str] | None = None,
                         mark: float | None = None) -> str:
    """`title` over a row per name (`rows`: name -> its bars, top to
    bottom), each bar as long as its value (from zero, one scale for all)
    with its text at its end; a row of one bar draws it thicker. `legend`
    (label -> colour) says what the colours mean; `mark` draws a dashed line
    at that value across every row (a premium's 1.0)."""
    top = max([bar.value for bars in rows.values() for bar in bars] + [mark or 0]) or 1

    def length(value: float) -> str:  # of the row, less the room for the longest bar's text
        return f"calc((100% - {ROW_VALUE_ROOM}) * {max(value, 0) / top:.4f})"

    def bar_html(bar: Bar) -> str:
        return (f'<div class="bpe-hbar" title="{html.escape(bar.hover)}">'
                f'<div class="bpe-hbar-fill" style="width: {length(bar.value)}; background: {html.escape(bar.colour)}">'
                f'</div><span class="bpe-hbar-value">{html.escape(bar.text)}</span></div>')

    lines = "".join(f'<div class="bpe-hbars-name">{html.escape(name)}</div>'
                    f'<div class="bpe-hbars-group">{"".join(bar_html(bar) for bar in bars)}</div>'
                    for name, bars in rows.items())
    keys = "".join(f'<span><i style="background: {html.escape(colour)}"></i>{html.escape(label)}</span>'
                   for label, colour in (legend or {}).items())
    figure = ('<div class="bpe-hbars"' if mark is None else
              f'<div class="bpe-hbars bpe-hbars-marked" style="--bpe-mark: {length(mark)}"')
    return (f'{BARS_CSS}{figure} role="figure" aria-label="{html.escape(title)}">'
            f'<div class="bpe-bars-title">{html.escape(title)}</div>'
            + (f'<div class="bpe-bars-legend">{keys}</div>' if keys else "")
            + f'<div class="bpe-hbars-rows">{lines}</div></div>')


class Spread(NamedTuple):
    """Some values (a script's declarations, under one tokenizer) as the middle
    of a box plot: a bar from the lower to the upper quartile, a dot at the median."""

    lower: float
    median: float
    upper: float
    colour: str
    hover: str  # the spread's tooltip


def spread_rows_html(title: str, rows: Mapping[str, Sequence[Spread]], legend: Mapping[str, str],
                     ticks: Sequence[float], mark: float | None = None) -> str:
    """`title` over a row per name (`rows`: name -> its spreads, top to
    bottom), all on one logarithmic scale over every spread (and `mark`),
    labelled at those of `ticks` within it ("2×") with a faint line across
    the rows at each; `legend` (label -> colour) says what the colours mean;
    `mark` draws a dashed line at that value (a premium's 1.0). Values must
    be positive."""
    values = [value for spreads in rows.values() for spread in spreads for value in (spread.lower, spread.upper)]
    values += [mark] if mark is not None else []
    low, high = math.log(min(values, default=1)), math.log(max(values, default=1))
    margin = 0.05 * (high - low) or 0.5  # a spread is never drawn on the figure's edge

    def at(value: float) -> float:  # percent of the row's width
        return 100 * (math.log(value) - low + margin) / (high - low + 2 * margin)

    def spread_html(spread: Spread) -> str:
        return (f'<div class="bpe-spread" title="{html.escape(spread.hover)}">'
                f'<i class="bpe-spread-range" style="left: {at(spread.lower):.2f}%; '
                f'width: {at(spread.upper) - at(spread.lower):.2f}%; background: {html.escape(spread.colour)}"></i>'
                f'<i class="bpe-spread-median" style="left: {at(spread.median):.2f}%; '
                f'background: {html.escape(spread.colour)}"></i></div>')

    shown_ticks = [tick for tick in ticks if 0 <= at(tick) <= 100]
    labels = "".join(f'<span style="left: {at(tick):.2f}%">{tick:g}×</span>' for tick in shown_ticks)
    grid = ", ".join(f"linear-gradient(#e4e6eb, #e4e6eb) {at(tick):.2f}% 0 / 1px 100% no-repeat" for tick in shown_ticks)
    lines = "".join(f'<div class="bpe-hbars-name">{html.escape(name)}</div>'
                    f'<div class="bpe-hbars-group">{"".join(spread_html(spread) for spread in spreads)}</div>'
                    for name, spreads in rows.items())
    keys = "".join(f'<span><i style="background: {html.escape(colour)}"></i>{html.escape(label)}</span>'
                   for label, colour in legend.items())
    classes = "bpe-hbars bpe-spreads" + (" bpe-hbars-marked" if mark is not None else "")
    style = f"--bpe-grid: {grid or 'none'}" + (f"; --bpe-mark: {at(mark):.2f}%" if mark is not None else "")
    return (f'{BARS_CSS}<div class="{classes}" style="{style}" role="figure" '
            f'aria-label="{html.escape(title)}"><div class="bpe-bars-title">{html.escape(title)}</div>'
            f'<div class="bpe-bars-legend">{keys}</div>'
            f'<div class="bpe-hbars-rows"><div></div><div class="bpe-spread-axis">{labels}</div>{lines}</div></div>')
