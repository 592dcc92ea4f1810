"""Vocabulary tables, searches and charts, kept for every session.

The Vocabulary page reads every token of a tokenizer into a table (o200k_base
takes a second or two) and searches it (a regex over 200,000 tokens takes
most of a second). Both are kept here, in a module the server imports once:
a page's own script runs anew at every rerun, so a cache made there would
start empty every time. Caches are keyed by the tokenizer's fingerprint,
not by hashing its 200,000 tokens at every rerun. The chart of a table's
scripts is kept too: plotly.py checks every property of a figure as it is
built, tens of milliseconds of every rerun (each keystroke of a search)
for a chart that depends only on the tokenizer.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from bpe_core import Tokenizer
from bpe_core.analysis.vocabulary import script_counts, search, vocabulary_table
from bpe_core.drawing.vocabulary import script_figure
from pages.common.shared_cache import SharedCache

TABLES = SharedCache(max_entries=4, max_bytes=100_000_000)  # cl100k_base's table takes 8 MB, o200k_base's 17
SEARCHES = SharedCache(max_entries=16, max_bytes=50_000_000)
SCRIPT_CHARTS = SharedCache(max_entries=8, max_bytes=1_000_000)  # a chart is a few kilobytes


def table_of(tokenizer: Tokenizer) -> pd.DataFrame:
    """The tokenizer's table, built once and shared by every session."""
    with st.spinner("Reading every token…"):
        return TABLES.get_or_make(tokenizer.fingerprint, lambda: vocabulary_table(tokenizer), frame_bytes)


def search_in(tokenizer: Tokenizer, criteria: dict) -> pd.DataFrame:
    """A search, done once: the page reruns at every click on a filter."""
    key = (tokenizer.fingerprint, tuple(sorted(criteria.items())))
    with st.spinner("Searching every token…"):
        return SEARCHES.get_or_make(key, lambda: search(table_of(tokenizer), **criteria), frame_bytes)


def script_chart_of(tokenizer: Tokenizer) -> go.Figure:
    """The chart of the tokenizer's tokens per script, made once and shared
    by every session (drawing reads a figure and never changes it)."""
    return SCRIPT_CHARTS.get_or_make(tokenizer.fingerprint, lambda: script_figure(script_counts(table_of(tokenizer))),
                                     lambda figure: len(figure.to_json(validate=False)))


def warm_vocabulary(name: str) -> None:
    """Make the table and the chart of the encoding the page opens with
    before anyone asks (when the server starts, see `warm_up`): half a
    second to a second of its first visit, most of it reading the table."""
    from pages.common.tokenizers import bundled_encoding

    script_chart_of(bundled_encoding(name))  # which reads the table


def frame_bytes(frame: pd.DataFrame) -> int:
    return int(frame.memory_usage(deep=True).sum())
