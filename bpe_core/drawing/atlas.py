"""The atlas of the tokenization tax, drawn: pure functions, no Streamlit.

From the `AtlasRow`s of `analysis.atlas` (one per tokenizer and declaration)
and the declarations' metadata (`udhr.declarations()`):

- `atlas_map_figure`: every declaration a point at its place on a world
  map, coloured by its premium on a log scale centred on the base's 1×;
- `script_spreads_html`: the premiums of each writing system's declarations
  (median and quartiles), per tokenizer, so it shows that the tax follows
  scripts;
- `atlas_frame`: every declaration, sortable by any column;
- `language_frame`: one declaration under every tokenizer;
- `atlas_summary`: the map in a sentence;
- `tokens_to_show`: how many tokens of a declaration its view draws at first.

The map's base layer (coastlines, countries) is plotly's world topojson,
which plotly.js fetches from `topojsonURL`: pages serve it from the app
(`TOPOJSON_URL`), so the map draws offline. Names are the udhr package's
and tokenizer names can be file names: both are escaped before they reach
a figure, which plotly renders as HTML.
"""

from __future__ import annotations

import html
import math
import statistics
from collections.abc import Mapping, Sequence

import pandas as pd
import plotly.graph_objects as go

from ..analysis.atlas import AtlasRow
from ..corpora.udhr import ARTICLES, Declaration
from .bars import Spread, spread_rows_html
from .palette import series_colour
from .tax import BASE_LINE_COLOUR, FONT_SIZE, HEATMAP_COLOURS, PREMIUM_TICKS, TICK_FONT_SIZE

# Where plotly.js finds world_110m.json: the app's static files (see static/topojson/README.md).
TOPOJSON_URL = "app/static/topojson/"
MAP_CONFIG = {"topojsonURL": TOPOJSON_URL, "displaylogo": False}
MAP_HEIGHT = 560
POINT_SIZE = 9  # px; a projector's map takes PRESENTED_POINT_SIZE
PRESENTED_POINT_SIZE = 14
LAND, BORDERS, OCEAN = "#ECECEC", "#BBBBBB", "#F7FBFF"
SELECTED_COLOUR = "#000"
# A declaration's point: its name and script, premium (after NFC where that differs), tokens, characters.
MAP_HOVER = ("<b>%{customdata[1]}</b> (%{customdata[0]})<br>%{customdata[2]} script<br>"
             "premium %{customdata[3]:.2f}×%{customdata[4]}<br>%{customdata[5]:,} tokens · "
             "%{customdata[6]:,} characters<extra></extra>")


def rows_of(rows: Sequence[AtlasRow], tokenizer: str) -> dict[str, AtlasRow]:
    """{code: row} of one tokenizer."""
    return {row.code: row for row in rows if row.tax.tokenizer == tokenizer}


def premium_reach(premiums) -> float:
    """How far from 1× (in doublings) the colour scale reaches: at least 4×."""
    return max(2.0, max(abs(math.log2(premium)) for premium in premiums))


def nfc_note(row: AtlasRow, declaration: Declaration) -> str:
    if declaration.nfc or math.isclose(row.nfc_premium, row.premium):
        return ""
    return f" as written, {row.nfc_premium:.2f}× in NFC"


def atlas_map_figure(rows: Sequence[AtlasRow], about: Mapping[str, Declaration], tokenizer: str, base: str,
                     selected: str | None = None, point_size: int = POINT_SIZE) -> go.Figure:
    """Every declaration of `tokenizer` a point on the world map, coloured by
    log2 of its premium (white is 1×, the base's cost; red, more; blue,
    less); the base is a black-edged star, the selected declaration ringed.
    `point_size` in pixels (larger for a projector)."""
    by_code = rows_of(rows, tokenizer)
    codes = sorted(by_code, key=lambda code: by_code[code].premium)  # the most taxed on top
    reach = premium_reach(by_code[code].premium for code in codes)
    ticks = [tick for tick in PREMIUM_TICKS if abs(math.log2(tick)) <= reach]
    figure = go.Figure(go.Scattergeo(
        lat=[about[code].latitude for code in codes],
        lon=[about[code].longitude for code in codes],
        customdata=[[code, html.escape(about[code].name), html.escape(about[code].script), by_code[code].premium,
                     nfc_note(by_code[code], about[code]), by_code[code].tax.cost.tokens, by_code[code].tax.cost.chars]
                    for code in codes],
        hovertemplate=MAP_HOVER,
        mode="markers",
        name="declarations",
        marker=dict(
            size=point_size, opacity=0.9, line=dict(width=0.5, color="#555"),
            color=[math.log2(by_code[code].premium) for code in codes],
            colorscale=HEATMAP_COLOURS, cmid=0, cmin=-reach, cmax=reach,
            colorbar=dict(
                title=dict(text="premium"), thickness=14, len=0.8,
                tickvals=[math.log2(tick) for tick in ticks],
                ticktext=[f"1× = {html.escape(about[base].name)}" if tick == 1 else f"{tick:g}×" for tick in ticks],
            ),
        ),
    ))
    marks = [(base, "star", 2 * point_size, BASE_LINE_COLOUR, f"base: {about[base].name}")]
    if selected in by_code and selected != base:
        marks.append((selected, "circle-open", 2.4 * point_size, SELECTED_COLOUR, f"chosen: {about[selected].name}"))
    for code, symbol, size, colour, label in marks:
        row = by_code[code]
        figure.add_trace(go.Scattergeo(
            lat=[about[code].latitude], lon=[about[code].longitude], mode="markers", name=html.escape(label),
            customdata=[[code, html.escape(about[code].name), html.escape(about[code].script), row.premium,
                         nfc_note(row, about[code]), row.tax.cost.tokens, row.tax.cost.chars]],
            hovertemplate=MAP_HOVER,
            marker=dict(symbol=symbol, size=size, color="white" if symbol == "star" else colour,
                        line=dict(width=2, color=colour)),
        ))
    figure.update_geos(
        projection_type="natural earth", resolution=110, showland=True, landcolor=LAND, showcountries=True,
        countrycolor=BORDERS, showocean=True, oceancolor=OCEAN, showframe=False, lataxis_range=[-58, 84],
    )
    figure.update_layout(
        height=MAP_HEIGHT, margin=dict(l=0, r=0, t=10, b=0), font=dict(size=FONT_SIZE),
        hoverlabel=dict(font_size=TICK_FONT_SIZE), uirevision="atlas",
        # over the North Pacific's corner, where it takes no room from the map
        legend=dict(x=0.0, y=1.0, xanchor="left", yanchor="top", bgcolor="rgba(255,255,255,0.85)",
                    font=dict(size=TICK_FONT_SIZE)),
        clickmode="event+select",
    )
    return figure


def script_order(rows: Sequence[AtlasRow], about: Mapping[str, Declaration], tokenizer: str) -> list[str]:
    """Scripts by their median premium under `tokenizer`, the most taxed first."""
    by_script: dict[str, list[float]] = {}
    for row in rows_of(rows, tokenizer).values():
        by_script.setdefault(about[row.code].script, []).append(row.premium)
    return sorted(by_script, key=lambda script: (-statistics.median(by_script[script]), script))


def script_spreads_html(rows: Sequence[AtlasRow], about: Mapping[str, Declaration], tokenizers: Sequence[str],
                        base: str) -> str:
    """One row per writing system (how many declarations in brackets), the
    most taxed under the first tokenizer on top; per tokenizer a dot at the
    median premium of the script's declarations on a bar over its middle
    half, lower to upper quartile (log scale, the base's 1× dashed); the
    lowest and highest on hover. Plain HTML (`bars.spread_rows_html`): it
    needs nothing of a chart library, and is one figure fewer for plotly.js
    to lay out and draw beside the map."""
    order = script_order(rows, about, tokenizers[0])
    sizes = {script: sum(1 for row in rows_of(rows, tokenizers[0]).values() if about[row.code].script == script)
             for script in order}
    colours = {name: series_colour(index) for index, name in enumerate(tokenizers)}
    spreads: dict[str, list[Spread]] = {f"{script} ({sizes[script]})": [] for script in order}
    for name in tokenizers:
        premiums: dict[str, list[float]] = {script: [] for script in order}
        for row in rows_of(rows, name).values():
            premiums[about[row.code].script].append(row.premium)
        for script in order:
            lowest, lower, median, upper, highest = _spread(premiums[script])
            label = f"{script} ({sizes[script]})"
            spreads[label].append(Spread(lower, median, upper, colours[name], (
                f"{label}, {name}\nmedian {median:.2f}×\nquartiles {lower:.2f}× – {upper:.2f}×\n"
                f"lowest {lowest:.2f}×, highest {highest:.2f}×")))
    return spread_rows_html(f"Premium against {about[base].name} (log scale): median and quartiles of each script's "
                            "declarations", spreads, colours, PREMIUM_TICKS, mark=1.0)


def _spread(values: list[float]) -> tuple[float, float, float, float, float]:
    """Lowest, lower quartile, median, upper quartile, highest (a lone value is all five)."""
    if len(values) == 1:
        return (values[0],) * 5
    lower, median, upper = statistics.quantiles(values, n=4, method="inclusive")
    return min(values), lower, median, upper, max(values)


MISSING = math.nan  # a number a table leaves empty (no words known, or NFC as written)


def _or_missing(value: float | None) -> float:
    return MISSING if value is None else float(value)


def parts(declaration: Declaration) -> str:
    """What of the declaration is there: "all", or what is missing."""
    if declaration.whole:
        return "all"
    missing = [] if declaration.preamble else ["no preamble"]
    if declaration.articles < ARTICLES:
        missing.append(f"{declaration.articles} of {ARTICLES} articles")
    return ", ".join(missing)


def atlas_frame(rows: Sequence[AtlasRow], about: Mapping[str, Declaration], tokenizer: str) -> pd.DataFrame:
    """One row per declaration, the most taxed under `tokenizer` first: who
    it is, one premium column per tokenizer, then `tokenizer`'s premium in
    NFC, tokens, tokens per word and words split."""
    names = list(dict.fromkeys(row.tax.tokenizer for row in rows))
    by_tokenizer = {name: rows_of(rows, name) for name in names}
    chosen = by_tokenizer[tokenizer]
    records = []
    for code in sorted(chosen, key=lambda code: (-chosen[code].premium, code)):
        declaration, row = about[code], chosen[code]
        record = {"code": code, "language": declaration.name, "script": declaration.script,
                  "ISO 639-3": declaration.iso6393, "BCP 47": declaration.bcp47, "text": parts(declaration),
                  "characters": row.tax.cost.chars}
        record.update({name: float(by_tokenizer[name][code].premium) for name in names})
        record.update({
            "NFC premium": float(row.nfc_premium) if not declaration.nfc else MISSING,
            "tokens": row.tax.cost.tokens,
            "tokens per word": _or_missing(row.tax.cost.fertility),
            "words split": _or_missing(row.tax.cost.split_share),
        })
        records.append(record)
    return pd.DataFrame(records)


def language_frame(rows: Sequence[AtlasRow], code: str) -> pd.DataFrame:
    """One declaration under every tokenizer: premiums, tokens and the per-word measures."""
    return pd.DataFrame([
        {"tokenizer": row.tax.tokenizer, "premium": float(row.premium), "NFC premium": float(row.nfc_premium),
         "tokens": row.tax.cost.tokens, "tokens per word": _or_missing(row.tax.cost.fertility),
         "words split": _or_missing(row.tax.cost.split_share)}
        for row in rows if row.code == code
    ])


def atlas_summary(rows: Sequence[AtlasRow], about: Mapping[str, Declaration], tokenizer: str, base: str) -> str:
    """The map in a sentence: the median premium, how many pay double, the worst."""
    by_code = rows_of(rows, tokenizer)
    premiums = [row.premium for row in by_code.values()]
    worst = max(by_code.values(), key=lambda row: row.premium)
    double = sum(premium >= 2 for premium in premiums)
    return (f"Under {tokenizer}, the median declaration costs {statistics.median(premiums):.2f}× as many tokens as "
            f"{about[base].name}; {double} of {len(premiums)} cost twice as many or more, and "
            f"{about[worst.code].name} the most: {worst.premium:.1f}×.")


def tokens_to_show(text: str, spans: Sequence, characters: int) -> int:
    """How many of `spans` (token spans over `text`'s UTF-8 bytes) a view
    draws to show the text's first `characters`: a screenful is so many
    characters whatever the tokenizer, and as many tokens as they take
    (Hindi under gpt2 takes five times more than under o200k_base)."""
    end = len(text[:characters].encode("utf-8"))
    shown = 0
    for span in spans:  # in order: only the first few are looked at (a long text's offsets are made as asked for)
        if span.start >= end:
            break
        shown += 1
    return shown
