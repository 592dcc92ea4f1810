"""The Algorithms page's table, chart and chips: pure functions, no Streamlit.

Algorithm names are the analysis's own (`ALGORITHMS`); tokens are drawn with
the chips every page uses, so a piece looks the same here as in Inspect.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..analysis.algorithms import ALGORITHMS, AlgorithmCost, OnlyHere
from .palette import PALETTE
from .tokens import vocabulary_html

FONT_SIZE = 15


def algorithm_frame(costs: Sequence[AlgorithmCost]) -> pd.DataFrame:
    """One row per algorithm: its vocabulary, and what it made of the text."""
    return pd.DataFrame([
        {
            "algorithm": ALGORITHMS[cost.algorithm],
            "vocabulary": cost.n_vocab,
            "tokens": cost.cost.tokens,
            "bytes per token": cost.cost.bytes_per_token,
            "chars per token": cost.cost.chars_per_token,
            "tokens per word": cost.cost.fertility,
            "words split": cost.cost.split_share,
            "unknown tokens": cost.unknown_tokens,
            "characters lost": cost.unknown_chars,
            "decodes to the text": cost.round_trip,
        }
        for cost in costs
    ])


def algorithm_figure(costs: Sequence[AlgorithmCost]) -> go.Figure:
    """Side by side: bytes per token (compression, higher is better) and
    tokens per word (fertility, lower is better), one bar per algorithm."""
    figure = make_subplots(rows=1, cols=2, subplot_titles=("Bytes per token (higher: shorter text)",
                                                           "Tokens per word (lower: fewer splits)"))
    names = [ALGORITHMS[cost.algorithm] for cost in costs]
    colours = [PALETTE[index % len(PALETTE)] for index in range(len(costs))]
    for column, values, form in ((1, [cost.cost.bytes_per_token for cost in costs], "%{y:.2f} bytes per token"),
                                 (2, [cost.cost.fertility or 0.0 for cost in costs], "%{y:.2f} tokens per word")):
        figure.add_trace(
            go.Bar(x=names, y=values, marker=dict(color=colours, line=dict(color="#333", width=0.5)),
                   text=[f"{value:.2f}" for value in values], textposition="outside",
                   hovertemplate=f"<b>%{{x}}</b><br>{form}<extra></extra>", showlegend=False),
            row=1, col=column,
        )
    figure.update_layout(height=380, font=dict(size=FONT_SIZE), margin=dict(l=10, r=10, t=50, b=10))
    figure.update_yaxes(rangemode="tozero")
    return figure


def only_here_html(items: Sequence[OnlyHere]) -> str:
    """The pieces only one algorithm learned, as chips (most used first)."""
    return vocabulary_html([(item.token_id, item.text) for item in items], colour_by="id")
