"""The Train page's chart: the training corpus's length after every merge."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from ..merge_learning import MergeStep
from .palette import PALETTE

FONT = dict(size=15)


def corpus_length_figure(trace: Sequence[MergeStep], initial_tokens: int, step: int) -> go.Figure:
    """The training corpus's length in tokens after each merge, with the
    current step marked: each merge shortens it by its count (less overlaps)."""
    steps = list(range(len(trace) + 1))
    lengths = [initial_tokens] + [merge.corpus_tokens for merge in trace]
    figure = go.Figure(
        go.Scatter(x=steps, y=lengths, mode="lines", line=dict(color=PALETTE[0], width=3), name="corpus tokens",
                   hovertemplate="after %{x} merges: %{y:,} tokens<extra></extra>")
    )
    figure.add_trace(
        go.Scatter(x=[step], y=[lengths[step]], mode="markers", marker=dict(size=14, color="#111"), name="this step",
                   hovertemplate="step %{x}: %{y:,} tokens<extra></extra>")
    )
    figure.update_layout(
        font=FONT, height=260, margin=dict(l=10, r=10, t=10, b=10), showlegend=False,
        xaxis_title="merges", yaxis_title="corpus length (tokens)", yaxis_rangemode="tozero",
    )
    return figure
