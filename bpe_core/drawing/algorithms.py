"""The Algorithms page's table, bars and chips: pure functions, no Streamlit.

Algorithm names are the analysis's own (`ALGORITHMS`); tokens are drawn with
the chips every page uses, so a piece looks the same here as in Inspect.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..analysis.algorithms import ALGORITHMS, AlgorithmCost, OnlyHere
from .bars import Bar, bars_html, bars_panel
from .palette import PALETTE
from .tokens import vocabulary_html


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


def algorithm_bars(costs: Sequence[AlgorithmCost]) -> str:
    """Side by side, as HTML: bytes per token (compression, higher is better)
    and tokens per word (fertility, lower is better), a bar per algorithm."""
    colours = [PALETTE[index % len(PALETTE)] for index in range(len(costs))]

    def panel(title: str, values: list[float], unit: str) -> str:
        return bars_panel(title, [
            Bar(ALGORITHMS[cost.algorithm], value, colour, f"{value:.2f}", f"{ALGORITHMS[cost.algorithm]}: {value:.2f} {unit}")
            for cost, value, colour in zip(costs, values, colours)
        ])

    return bars_html(
        panel("Bytes per token (higher: shorter text)", [cost.cost.bytes_per_token for cost in costs], "bytes per token"),
        panel("Tokens per word (lower: fewer splits)", [cost.cost.fertility or 0.0 for cost in costs], "tokens per word"),
    )


def only_here_html(items: Sequence[OnlyHere]) -> str:
    """The pieces only one algorithm learned, as chips (most used first)."""
    return vocabulary_html([(item.token_id, item.text) for item in items], colour_by="id")
