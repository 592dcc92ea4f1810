"""Tables and figures of the Tokenization tax page: pure functions, no Streamlit.

Everything here starts from the `TaxRow`s of `analysis.tax.tax_table` (one per
tokenizer and language) and the corpus manifest `analysis.tax.languages()`, and
turns them into what a reader compares at a glance:

- `premium_frame` / `metrics_frame`: sortable tables of numbers (floats, so
  a click on a column header sorts by value, not alphabetically);
- `premium_bars_html` / `premium_heatmap_figure`: the same premiums drawn,
  with the base language's 1.0 marked;
- `cost_frame` / `cost_summary`: the premium as money and context window;
- `measure_frame` / `measure_heatmap_figure`: any of the fairness
  measures (premium, fertility, words split into several tokens) per
  language and tokenizer;
- `experiment_figure`: the causal experiment, a tokenizer trained on a
  chosen mix of languages next to the OpenAI encodings;
- `parity_frame` / `parity_figure`: plain against parity-aware BPE, per
  language: the tax each leaves, and what English pays;
- `script_share_frame`: each script's share of each vocabulary beside what
  its languages pay (`analysis.script_share`).

Languages are always listed most taxed first (by the first tokenizer's
premium), in tables and figures alike, so the two read the same way.
Tokenizer names can come from uploaded file names, and Plotly renders labels
as HTML, so every name is escaped before it reaches a figure.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence

import pandas as pd
import plotly.graph_objects as go

from ..analysis.script_share import ScriptShare
from ..analysis.tax import Language, ParityExperiment, TaxRow, content_cost
from .bars import Bar, horizontal_bars_html
from .palette import PALETTE, series_colour

FONT_SIZE = 15
TICK_FONT_SIZE = 14
BASE_LINE_COLOUR = "#222"
TRAINED_COLOUR = "#222"  # the experiment's own tokenizer stands out from the palette colours

# A diverging scale that is safe for colour-blind readers (ColorBrewer RdBu,
# also Paul Tol's "BuRd"), drawn on log2(premium) and centred on 0: the base
# language's 1.0 is white, cheaper languages blue, taxed languages red, and
# twice as expensive is as far from white as half as expensive.
HEATMAP_COLOURS = "RdBu_r"
PREMIUM_TICKS = [0.25, 0.5, 1, 2, 4, 8, 16, 32]
# A language's dot on a premium chart: its name, the tokenizer (meta), the premium and the tokens.
PREMIUM_HOVER = "<b>%{y}</b>, %{meta}<br>premium %{x:.2f}×<br>%{customdata:,} tokens<extra></extra>"
# Fertility and the share of words split have no middle: light is good, dark
# is costly (ColorBrewer's sequential YlOrRd, readable by colour-blind readers).
SEQUENTIAL_COLOURS = "YlOrRd"
PLAIN_COLOUR, PARITY_COLOUR = PALETTE[0], PALETTE[1]
# Below this premium a language pays too little tax for "the share removed"
# to mean anything: on a 6-sentence passage, ±10 % is one phrasing.
MEANINGFUL_TAX = 1.1

# Above the top axis (which tall charts need in view), in the top margin.
LEGEND_ON_TOP = dict(orientation="h", yref="container", y=1.0, yanchor="top", x=0, font=dict(size=TICK_FONT_SIZE))


def rows_by_tokenizer(rows: Sequence[TaxRow]) -> dict[str, dict[str, TaxRow]]:
    """{tokenizer: {language code: row}}, tokenizers in the order of `rows`."""
    table: dict[str, dict[str, TaxRow]] = {}
    for row in rows:
        table.setdefault(row.tokenizer, {})[row.code] = row
    return table


def language_order(rows: Sequence[TaxRow], languages: Mapping[str, Language], by: str | None = None) -> list[str]:
    """Language codes, highest premium under tokenizer `by` (default: the
    first) first, ties by English name: the most taxed languages lead."""
    table = rows_by_tokenizer(rows)
    leading = table[by if by is not None else next(iter(table))]
    return sorted(leading, key=lambda code: (-leading[code].premium, languages[code].name))


# ------------------------------------------------------------------ tables


def premium_frame(rows: Sequence[TaxRow], languages: Mapping[str, Language]) -> pd.DataFrame:
    """One row per language: its names and script, the UTF-8 byte premium
    (what the script alone costs), then one premium column per tokenizer."""
    table = rows_by_tokenizer(rows)
    first = next(iter(table.values()))
    records = []
    for code in language_order(rows, languages):
        language = languages[code]
        record = {
            "language": language.name,
            "native name": language.native_name,
            "script": language.script,
            "byte premium": first[code].byte_premium,
        }
        record.update({name: float(by_code[code].premium) for name, by_code in table.items()})
        records.append(record)
    return pd.DataFrame(records)


def script_share_frame(shares: Mapping[str, Sequence[ScriptShare]], languages: Mapping[str, Language]) -> pd.DataFrame:
    """One row per script the passage is written in, the most taxed first
    under the first tokenizer: its languages, then for each tokenizer the
    share of its vocabulary that the script's tokens hold and the median
    premium of its languages (columns "NAME: vocabulary", "NAME: premium")."""
    by_script = {name: {share.script: share for share in found} for name, found in shares.items()}
    first = next(iter(by_script.values()))
    records = []
    for script in sorted(first, key=lambda script: (-first[script].premium, script)):
        record = {"script": script, "languages": ", ".join(languages[code].name for code in first[script].languages)}
        for name, found in by_script.items():
            record[f"{name}: vocabulary"] = found[script].share
            record[f"{name}: premium"] = found[script].premium
        records.append(record)
    return pd.DataFrame(records)


# The measures a reader can compare languages by: column title, and how a value reads.
MEASURES = {
    "premium": ("premium", "{:.2f}×"),
    "fertility": ("tokens per word", "{:.2f}"),
    "split_share": ("words split into several tokens", "{:.0%}"),
}


def measure_of(row: TaxRow, measure: str) -> float:
    return row.premium if measure == "premium" else getattr(row.cost, measure)


def measure_frame(rows: Sequence[TaxRow], languages: Mapping[str, Language], measure: str) -> pd.DataFrame:
    """One row per language (most taxed first), its names and script, then
    one column per tokenizer with `measure` (a key of MEASURES)."""
    table = rows_by_tokenizer(rows)
    records = []
    for code in language_order(rows, languages):
        record = {"language": languages[code].name, "native name": languages[code].native_name,
                  "script": languages[code].script}
        record.update({name: float(measure_of(by_code[code], measure)) for name, by_code in table.items()})
        records.append(record)
    return pd.DataFrame(records)


def metrics_frame(rows: Sequence[TaxRow], languages: Mapping[str, Language]) -> pd.DataFrame:
    """Every (language, tokenizer) pair with the counts behind its premium
    and the ratios that explain it: per token, and per word."""
    table = rows_by_tokenizer(rows)
    records = []
    for code in language_order(rows, languages):
        for name, by_code in table.items():
            cost = by_code[code].cost
            records.append(
                {
                    "language": languages[code].name,
                    "tokenizer": name,
                    "tokens": cost.tokens,
                    "premium": by_code[code].premium,
                    "bytes per token": cost.bytes_per_token,
                    "chars per token": cost.chars_per_token,
                    "words": cost.words,
                    "fertility": cost.fertility,
                    "words split": cost.split_share,
                }
            )
    return pd.DataFrame(records)


def cost_frame(
    rows: Sequence[TaxRow],
    languages: Mapping[str, Language],
    base_tokens: float,
    price_per_million: float,
    context_window: int,
) -> pd.DataFrame:
    """What content that takes `base_tokens` in the base language costs in
    every language, under one tokenizer: tokens, price, and how much of it
    fits in one context window (in %)."""
    if len(rows_by_tokenizer(rows)) != 1:
        raise ValueError("cost_frame needs the rows of exactly one tokenizer.")
    by_code = next(iter(rows_by_tokenizer(rows).values()))
    records = []
    for code in language_order(rows, languages):
        cost = content_cost(by_code[code].premium, base_tokens, price_per_million, context_window)
        records.append(
            {
                "language": languages[code].name,
                "tokens": round(cost.tokens),
                "cost": cost.price,
                "fits in one context": 100 * cost.fits,
            }
        )
    return pd.DataFrame(records)


def cost_summary(
    rows: Sequence[TaxRow],
    languages: Mapping[str, Language],
    base_code: str,
    base_tokens: float,
    price_per_million: float,
    context_window: int,
) -> str:
    """One plain-text sentence with the most taxed language against the base:
    what the same content costs in each, and how much less of it one
    context window holds."""
    by_code = next(iter(rows_by_tokenizer(rows).values()))
    taxed = max((code for code in by_code if code != base_code), key=lambda code: by_code[code].premium)
    taxed_cost = content_cost(by_code[taxed].premium, base_tokens, price_per_million, context_window)
    base_cost = content_cost(1.0, base_tokens, price_per_million, context_window)
    base_name = languages[base_code].name
    return (
        f"The same content costs ${taxed_cost.price:,.2f} in {languages[taxed].name} "
        f"vs ${base_cost.price:,.2f} in {base_name}, and a {context_window:,}-token window holds "
        f"{100 / by_code[taxed].premium:.3g}% of what it holds in {base_name}."
    )


# ----------------------------------------------------------------- figures


def premium_bars_html(rows: Sequence[TaxRow], languages: Mapping[str, Language], base_code: str) -> str:
    """Grouped bars as HTML (`bars.horizontal_bars_html`), one row per
    language (most taxed at the top), one bar per tokenizer with its premium
    written at its end, and a dashed line at 1.0 where the base language
    sits: the page's first view draws it at once (plotly.js costs a visit a
    quarter of a second or more). Each bar says on hover what it counts."""
    table = rows_by_tokenizer(rows)
    base_name = languages[base_code].name
    colours = {tokenizer: series_colour(index) for index, tokenizer in enumerate(table)}

    def bar(tokenizer: str, row: TaxRow) -> Bar:
        hover = (f"{languages[row.code].name}, {tokenizer}: premium {row.premium:.2f}×, "
                 f"{row.cost.tokens:,} tokens ({base_name}: {table[tokenizer][base_code].cost.tokens:,})")
        return Bar(tokenizer, row.premium, colours[tokenizer], f"{row.premium:.2f}×", hover)

    return horizontal_bars_html(
        f"Tokens relative to {base_name} (premium; the dashed line is 1.0 = {base_name})",
        {languages[code].name: [bar(tokenizer, by_code[code]) for tokenizer, by_code in table.items()]
         for code in language_order(rows, languages)},
        legend=colours, mark=1.0,
    )


def premium_heatmap_figure(rows: Sequence[TaxRow], languages: Mapping[str, Language]) -> go.Figure:
    """Language × tokenizer, each cell coloured by its premium and labelled
    with it (1 decimal); white is 1.0, the base language's cost."""
    table = rows_by_tokenizer(rows)
    order = language_order(rows, languages)
    premiums = [[table[tokenizer][code].premium for tokenizer in table] for code in order]
    reach = max(1.0, max(abs(math.log2(p)) for line in premiums for p in line))
    ticks = [tick for tick in PREMIUM_TICKS if abs(math.log2(tick)) <= reach]
    figure = go.Figure(
        go.Heatmap(
            x=[html.escape(tokenizer) for tokenizer in table],
            y=[languages[code].name for code in order],
            z=[[math.log2(p) for p in line] for line in premiums],
            text=[[f"{p:.1f}" for p in line] for line in premiums],
            texttemplate="%{text}",
            textfont=dict(size=TICK_FONT_SIZE),
            customdata=[[table[tokenizer][code].cost.tokens for tokenizer in table] for code in order],
            hovertemplate="<b>%{y}</b>, %{x}<br>premium %{text}×<br>%{customdata:,} tokens<extra></extra>",
            colorscale=HEATMAP_COLOURS,
            zmid=0,
            zmin=-reach,
            zmax=reach,
            xgap=2,
            ygap=2,
            colorbar=dict(
                title=dict(text="premium"),
                tickvals=[math.log2(tick) for tick in ticks],
                ticktext=[f"{tick:g}×" for tick in ticks],
            ),
        )
    )
    figure.update_layout(
        height=140 + 30 * len(order),
        font=dict(size=FONT_SIZE),
        hoverlabel=dict(font_size=TICK_FONT_SIZE),
        margin=dict(l=10, r=10, t=40, b=10),
        xaxis=dict(side="top", tickfont=dict(size=TICK_FONT_SIZE)),
        yaxis=dict(autorange="reversed", tickfont=dict(size=TICK_FONT_SIZE)),
    )
    return figure


def measure_heatmap_figure(rows: Sequence[TaxRow], languages: Mapping[str, Language], measure: str) -> go.Figure:
    """Language × tokenizer, each cell coloured by `measure` (fertility or
    the share of words split) and labelled with it; darker is worse."""
    if measure == "premium":
        return premium_heatmap_figure(rows, languages)
    title, form = MEASURES[measure]
    table = rows_by_tokenizer(rows)
    order = language_order(rows, languages)
    values = [[measure_of(table[tokenizer][code], measure) for tokenizer in table] for code in order]
    figure = go.Figure(
        go.Heatmap(
            x=[html.escape(tokenizer) for tokenizer in table],
            y=[languages[code].name for code in order],
            z=values,
            text=[[form.format(value) for value in line] for line in values],
            texttemplate="%{text}",
            textfont=dict(size=TICK_FONT_SIZE),
            customdata=[[table[tokenizer][code].cost.words for tokenizer in table] for code in order],
            hovertemplate=f"<b>%{{y}}</b>, %{{x}}<br>{title} %{{text}}<br>%{{customdata:,}} words<extra></extra>",
            colorscale=SEQUENTIAL_COLOURS,
            zmin=0 if measure == "split_share" else None,
            zmax=1 if measure == "split_share" else None,
            xgap=2,
            ygap=2,
            colorbar=dict(title=dict(text=title), tickformat=".0%" if measure == "split_share" else None),
        )
    )
    figure.update_layout(
        height=140 + 30 * len(order),
        font=dict(size=FONT_SIZE),
        hoverlabel=dict(font_size=TICK_FONT_SIZE),
        margin=dict(l=10, r=10, t=40, b=10),
        xaxis=dict(side="top", tickfont=dict(size=TICK_FONT_SIZE)),
        yaxis=dict(autorange="reversed", tickfont=dict(size=TICK_FONT_SIZE)),
    )
    return figure


def experiment_figure(
    rows: Sequence[TaxRow],
    languages: Mapping[str, Language],
    base_code: str,
    trained: str,
    weights: Mapping[str, int],
) -> go.Figure:
    """The held-out premium of each language under the tokenizer `trained`
    on a mix (large dark diamonds) and under the other tokenizers measured
    on the same lines (circles), most taxed first by the trained tokenizer.

    Each language in the mix is labelled with its weight in bold ("Hindi ×8"), so
    the cause (what training saw) sits next to the effect (the premium).
    A log axis, because premiums are ratios: 2× and ½× lie equally far from 1."""
    table = rows_by_tokenizer(rows)
    order = language_order(rows, languages, by=trained)
    labels = [f"<b>{languages[code].name} ×{weights[code]}</b>" if code in weights else languages[code].name
              for code in order]
    figure = go.Figure()
    others = [name for name in table if name != trained]
    for index, tokenizer in enumerate([*others, trained]):  # the trained tokenizer drawn last, on top
        is_trained = tokenizer == trained
        by_code = table[tokenizer]
        figure.add_trace(
            go.Scatter(
                x=[by_code[code].premium for code in order],
                y=labels,
                mode="markers",
                name=html.escape(tokenizer),
                marker=dict(
                    symbol="diamond" if is_trained else "circle",
                    size=15 if is_trained else 11,
                    color=TRAINED_COLOUR if is_trained else series_colour(index),
                    line=dict(color="#333", width=1),
                ),
                customdata=[by_code[code].cost.tokens for code in order],
                meta=html.escape(tokenizer),
                hovertemplate=PREMIUM_HOVER,
            )
        )
    _lay_out_premium_rows(figure, labels, languages[base_code].name)
    return figure


def _lay_out_premium_rows(figure: go.Figure, rows: Sequence[str], base_name: str) -> None:
    """One row per language (`rows`, top to bottom), premiums along a log
    axis on top, the base language marked at 1.0."""
    _mark_base(figure, base_name, log_axis=True)
    figure.update_layout(
        height=140 + 26 * len(rows),
        font=dict(size=FONT_SIZE),
        hoverlabel=dict(font_size=TICK_FONT_SIZE),
        margin=dict(l=10, r=10, t=110, b=10),
        legend=LEGEND_ON_TOP,
        xaxis=dict(
            title=dict(text=f"Tokens relative to {base_name} on held-out sentences (log scale)"),
            type="log", tickvals=PREMIUM_TICKS, ticktext=[f"{tick:g}×" for tick in PREMIUM_TICKS], side="top",
        ),
        yaxis=dict(categoryorder="array", categoryarray=list(rows), autorange="reversed",
                   tickfont=dict(size=TICK_FONT_SIZE), showgrid=True),
    )


def _mark_base(figure: go.Figure, base_name: str, log_axis: bool) -> None:
    """A dashed line at premium 1.0, labelled with the base language at its foot.

    The label is placed by hand: on a log axis Plotly reads an annotation's
    x as log10 of the value (but a line's x as the value itself)."""
    figure.add_vline(x=1.0, line=dict(color=BASE_LINE_COLOUR, width=2, dash="dash"))
    figure.add_annotation(
        x=0.0 if log_axis else 1.0, xanchor="left", y=0, yref="paper", yanchor="bottom", showarrow=False,
        text=f"1.0 = {base_name}", font=dict(size=TICK_FONT_SIZE), bgcolor="rgba(255,255,255,0.85)",
    )


# -------------------------------------------------------- parity experiment


def tax_removed(row) -> float | None:
    """The share of its tax a language loses, where it had one worth the name (see MEANINGFUL_TAX)."""
    return row.tax_removed if row.plain.premium >= MEANINGFUL_TAX else None


def parity_frame(experiment: ParityExperiment, languages: Mapping[str, Language]) -> pd.DataFrame:
    """One row per language, most taxed under plain BPE first: its premium
    under each, the share of its tax parity-aware training removed, and how
    its token count changed."""
    rows = sorted(experiment.rows, key=lambda row: (-row.plain.premium, languages[row.code].name))
    return pd.DataFrame([
        {
            "language": languages[row.code].name,
            "plain BPE premium": row.plain.premium,
            "parity-aware premium": row.parity.premium,
            "tax removed": tax_removed(row),
            "tokens": 100 * row.token_change,
        }
        for row in rows
    ])


def parity_figure(experiment: ParityExperiment, languages: Mapping[str, Language], base_code: str) -> go.Figure:
    """Each language's held-out premium under plain BPE (circle) and under
    parity-aware BPE (diamond), joined by a line: the line's length is the
    tax removed. Most taxed under plain BPE at the top; a log axis, since
    premiums are ratios."""
    rows = sorted(experiment.rows, key=lambda row: (-row.plain.premium, languages[row.code].name))
    names = [languages[row.code].name for row in rows]
    links_x, links_y = [], []
    for row, name in zip(rows, names):
        links_x += [row.plain.premium, row.parity.premium, None]
        links_y += [name, name, None]
    figure = go.Figure(go.Scatter(x=links_x, y=links_y, mode="lines", line=dict(color="#888", width=2),
                                  hoverinfo="skip", showlegend=False))
    for label, side, symbol, colour in (("plain BPE", "plain", "circle", PLAIN_COLOUR),
                                        ("parity-aware BPE", "parity", "diamond", PARITY_COLOUR)):
        figure.add_trace(go.Scatter(
            x=[getattr(row, side).premium for row in rows], y=names, mode="markers", name=label,
            marker=dict(symbol=symbol, size=13, color=colour, line=dict(color="#333", width=1)),
            customdata=[getattr(row, side).cost.tokens for row in rows], meta=label,
            hovertemplate=PREMIUM_HOVER,
        ))
    _lay_out_premium_rows(figure, names, languages[base_code].name)
    return figure


def parity_summary(experiment: ParityExperiment, languages: Mapping[str, Language], base_code: str) -> str:
    """One sentence: what the base language pays, and how much tax the others lose."""
    base = experiment.row(base_code)
    taxed = [row for row in experiment.rows if row.code != base_code and tax_removed(row) is not None]
    halved = sum(tax_removed(row) >= 0.5 for row in taxed)
    mean_before = sum(row.plain.premium for row in taxed) / len(taxed) if taxed else 1.0
    mean_after = sum(row.parity.premium for row in taxed) / len(taxed) if taxed else 1.0
    return (
        f"{languages[base_code].name} pays {base.token_change:+.0%} tokens. Of the {len(taxed)} languages taxed at "
        f"least {MEANINGFUL_TAX:.1f}× under plain BPE, {halved} lose half their tax or more; their mean premium "
        f"falls from {mean_before:.2f}× to {mean_after:.2f}×."
    )
