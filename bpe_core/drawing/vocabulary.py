"""The Vocabulary page's chart: how many tokens each script has."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from ..analysis.vocabulary import NON_SCRIPT_CATEGORIES
from .palette import PALETTE


def script_figure(counts: pd.Series) -> go.Figure:
    """Tokens per script as horizontal bars, the largest on top. Scripts are
    blue; categories that are not a script (digits, bytes …) grey, so the
    writing systems stand out."""
    counts = counts.sort_values(ascending=True, kind="stable")  # plotly draws the first bar at the bottom
    colours = [PALETTE[-1] if category in NON_SCRIPT_CATEGORIES else PALETTE[0] for category in counts.index]
    figure = go.Figure(
        go.Bar(
            x=counts.to_numpy(), y=counts.index, orientation="h", marker_color=colours,
            text=[f"{count:,}" for count in counts], textposition="outside", cliponaxis=False,
            textfont=dict(size=15), hovertemplate="%{y}: %{x:,} tokens<extra></extra>",
        )
    )
    figure.update_layout(
        font=dict(size=16), hoverlabel=dict(font_size=15), height=max(240, 34 * len(counts) + 80),
        margin=dict(l=10, r=60, t=10, b=10), xaxis_title="tokens", showlegend=False,
        xaxis=dict(tickfont=dict(size=15), rangemode="tozero"), yaxis=dict(tickfont=dict(size=15)),
    )
    return figure
