"""The Compression page's chart and table: bytes (or characters) per token
against vocabulary size, for several corpora and real models' encodings.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import plotly.graph_objects as go

from ..analysis.compression import Curves, Point, ReferencePoint
from .palette import PALETTE

if TYPE_CHECKING:  # the table is made on demand: pandas is a third of a second of a page's first run
    import pandas as pd

METRICS = {
    "bytes": ("bytes_per_token", "Bytes per token (UTF-8)", "bytes per token"),
    "chars": ("chars_per_token", "Characters per token", "characters per token"),
}

SERIES_DASH = {"training": "solid", "held-out": "dash"}
SERIES_LABEL = {"training": "training text", "held-out": "held-out text"}
SERIES_STYLE = {"training text": "solid", "held-out text": "dashed"}  # the legend's title says so
ENCODING_SYMBOL = {
    "gpt2": "circle", "cl100k_base": "square", "o200k_base": "diamond",
    "llama3": "triangle-up", "llama4": "triangle-down", "tekken": "pentagon", "mistral_v3": "hexagon",
}
LABELS_BELOW = {"cl100k_base"}
LOG_TICKS = [300, 1_000, 3_000, 10_000, 30_000, 100_000, 200_000]
FONT_SIZE = 15
MARKER_SIZE = 15
PLOT_HEIGHT = 460
LEGEND_ROW_HEIGHT = 30  # a row of the legend: two corpora's names


# PALETTE (Paul Tol's colour-blind-safe "light" scheme), strongest
# first: its pale yellow and cyan come last and its grey not at all, since
# they fade into a white chart as lines.
CORPUS_COLOURS = [PALETTE[i] for i in (0, 1, 5, 3, 7, 6, 4, 2)]


def compression_figure(
    curves: Mapping[str, Curves],
    reference: Mapping[str, Sequence[ReferencePoint]],
    *,
    metric: str = "bytes",
    log_x: bool = False,
) -> go.Figure:
    """Bytes (or characters) per token against vocabulary size.

    One colour per corpus; a solid line for the training text, a dashed one
    for the held-out text; the reference encodings as markers, a shape each
    and named on the chart, in the colour of the corpus they were measured
    on. The legend names the corpora (a click hides or shows one's lines and
    markers) and, in its title, the lines' styles: three traces per corpus
    and a short legend, since plotly.js spends most of a chart's drawing on
    its legend entries. Corpus names are escaped: Plotly renders labels as HTML.
    """
    if metric not in METRICS:
        raise ValueError(f'metric must be "bytes" or "chars", not {metric!r}.')
    field, axis_title, unit = METRICS[metric]
    figure = go.Figure()
    corpora = list(dict.fromkeys([*curves, *reference]))
    for index, corpus in enumerate(corpora):
        colour = CORPUS_COLOURS[index % len(CORPUS_COLOURS)]
        lines = curves.get(corpus, Curves([], []))
        traces = [_line(corpus, series, points, field, unit, colour)
                  for series, points in (("training", lines.training), ("held-out", lines.held_out)) if points]
        if reference.get(corpus):
            traces.append(_reference_markers(corpus, reference[corpus], field, unit, colour))
        for number, trace in enumerate(traces):
            trace.update(legendgroup=corpus, name=_label(corpus), showlegend=number == 0)
            figure.add_trace(trace)
    figure.add_trace(_encoding_labels(reference, field))
    series = [SERIES_LABEL[name] for name in ("training", "held-out")
              if any(getattr(lines, name.replace("-", "_")) for lines in curves.values())]
    styles = " · ".join(f"{SERIES_STYLE[name]}: {name}" for name in series)
    figure.update_layout(
        font=dict(size=FONT_SIZE),
        height=PLOT_HEIGHT + LEGEND_ROW_HEIGHT * math.ceil(len(corpora) / 2),
        # Room for the axes' ticks and titles and the legend: margins they fit in spare plotly.js
        # a second drawing of the chart to widen them (automargin).
        margin=dict(l=70, r=50, t=30, b=110),
        hovermode="closest",
        hoverlabel=dict(font_size=14),
        # Below the plot: long corpus names beside it would take half its width.
        legend=dict(font=dict(size=14), orientation="h", yanchor="top", y=-0.18, x=0,
                    title=dict(text=styles.capitalize(), side="top", font=dict(size=14))),
        xaxis=dict(
            title=dict(text="Vocabulary size (tokens)", font=dict(size=16)),
            type="log" if log_x else "linear",
            tickvals=LOG_TICKS if log_x else None,  # plotly's own log ticks read "2, 5, 10k, 2, 5"
            tickformat="~s",
        ),
        yaxis=dict(title=dict(text=axis_title, font=dict(size=16)), rangemode="tozero"),
    )
    return figure


def _label(text: str) -> str:
    """`text` for a plotly label, which plotly reads as a little HTML: tags
    and entities escaped. Quotes are left as they are: outside a tag they are
    plain text, and plotly decodes `&amp;`, `&lt;`, `&gt;` but shows `&quot;` as written."""
    return html.escape(text, quote=False)


def _line(corpus: str, series: str, points: Sequence[Point], field: str, unit: str, colour: str) -> go.Scatter:
    return go.Scatter(
        x=[point.vocab_size for point in points],
        y=[getattr(point, field) for point in points],
        mode="lines",
        line=dict(color=colour, width=3, dash=SERIES_DASH[series]),
        meta=_label(corpus),  # used via %{meta}: data, never parsed as a template
        hovertemplate=(
            f"<b>%{{meta}}</b>, {SERIES_LABEL[series]}<br>vocabulary %{{x:,}}<br>"
            f"%{{y:.3f}} {unit}<extra></extra>"
        ),
    )


def _reference_markers(corpus: str, points: Sequence[ReferencePoint], field: str, unit: str,
                       colour: str) -> go.Scatter:
    """The reference encodings on one corpus: one trace, a marker's shape per encoding."""
    return go.Scatter(
        x=[point.vocab_size for point in points],
        y=[getattr(point, field) for point in points],
        mode="markers",
        marker=dict(
            symbol=[ENCODING_SYMBOL.get(point.encoding, "star") for point in points], size=MARKER_SIZE,
            color=colour, line=dict(color="#222", width=1.5),
        ),
        customdata=[_label(point.encoding) for point in points],
        meta=_label(corpus),
        hovertemplate=(
            f"<b>%{{meta}}</b>, %{{customdata}}<br>vocabulary %{{x:,}}<br>%{{y:.3f}} {unit}<extra></extra>"
        ),
    )


def _encoding_labels(reference: Mapping[str, Sequence[ReferencePoint]], field: str) -> go.Scatter:
    """Each encoding's name by its markers, so they are labelled on the chart
    itself: above the highest marker, or below the lowest for cl100k_base,
    whose name would otherwise run into its neighbours' on a log axis."""
    markers: dict[str, list[float]] = {}
    vocab_sizes: dict[str, int] = {}
    for points in reference.values():
        for point in points:
            markers.setdefault(point.encoding, []).append(getattr(point, field))
            vocab_sizes[point.encoding] = point.vocab_size
    below = [name in LABELS_BELOW for name in markers]
    return go.Scatter(
        x=[vocab_sizes[name] for name in markers],
        y=[min(values) if low else max(values) for values, low in zip(markers.values(), below)],
        mode="markers+text",  # invisible markers of the real ones' size, so the names clear them
        marker=dict(size=MARKER_SIZE, color="rgba(0, 0, 0, 0)"),
        text=[_label(name) for name in markers],
        textposition=["bottom center" if low else "top center" for low in below],
        textfont=dict(size=14, color="#333"),
        cliponaxis=False,  # o200k_base's name may reach past the right edge
        showlegend=False,
        hoverinfo="skip",
        name="encoding names",
    )


def compression_table(
    curves: Mapping[str, Curves], reference: Mapping[str, Sequence[ReferencePoint]]
) -> pd.DataFrame:
    """Every plotted number, one row per point, for the CSV download."""
    import pandas as pd

    rows = []
    for corpus, lines in curves.items():
        for series, points in (("training", lines.training), ("held-out", lines.held_out)):
            rows.extend((corpus, series, *point) for point in points)
    for corpus, points in reference.items():
        rows.extend((corpus, point.encoding, *point[1:]) for point in points)
    return pd.DataFrame(rows, columns=["corpus", "series", "vocab_size", "bytes_per_token", "chars_per_token"])


def plotted_points(curves: Mapping[str, Curves], reference: Mapping[str, Sequence[ReferencePoint]]) -> int:
    """How many rows `compression_table` has, without making it."""
    return (sum(len(lines.training) + len(lines.held_out) for lines in curves.values())
            + sum(len(points) for points in reference.values()))
