"""Vocabulary tables, searches and bars of scripts, kept for every session.

The Vocabulary page reads every token of a tokenizer into a table (o200k_base
takes a second or two) and searches it (a regex over 200,000 tokens takes
most of a second). Both are kept here, in a module the server imports once:
a page's own script runs anew at every rerun, so a cache made there would
start empty every time. Caches are keyed by the tokenizer's fingerprint,
not by hashing its 200,000 tokens at every rerun. The bars of a table's
scripts are kept too: they depend only on the tokenizer, and counting
200,000 rows at every rerun (each keystroke of a search) is time wasted.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from bpe_core import Tokenizer
from bpe_core.analysis.vocabulary import script_counts, search, vocabulary_table
from bpe_core.drawing.vocabulary import script_bars_html
from pages.common.shared_cache import SharedCache

TABLES = SharedCache(max_entries=4, max_bytes=100_000_000)  # cl100k_base's table takes 8 MB, o200k_base's 17
SEARCHES = SharedCache(max_entries=16, max_bytes=50_000_000)
SCRIPT_BARS = SharedCache(max_entries=8, max_bytes=1_000_000)  # a few kilobytes of HTML each


def table_of(tokenizer: Tokenizer) -> pd.DataFrame:
    """The tokenizer's table, built once and shared by every session, with
    a spinner while it is built."""
    found = TABLES.get(tokenizer.fingerprint)
    if found is not None:
        return found
    with st.spinner("Reading every token…"):
        return shared_table_of(tokenizer)


def shared_table_of(tokenizer: Tokenizer) -> pd.DataFrame:
    """The tokenizer's table, built once and shared by every session,
    without a page to report to (the warm-up builds the first one)."""
    return TABLES.get_or_make(tokenizer.fingerprint, lambda: vocabulary_table(tokenizer), frame_bytes)


def search_in(tokenizer: Tokenizer, criteria: dict) -> pd.DataFrame:
    """A search, done once: the page reruns at every click on a filter."""
    key = (tokenizer.fingerprint, tuple(sorted(criteria.items())))
    with st.spinner("Searching every token…"):
        return SEARCHES.get_or_make(key, lambda: search(table_of(tokenizer), **criteria), frame_bytes)


def script_bars_of(tokenizer: Tokenizer) -> str:
    """The bars of the tokenizer's tokens per script (HTML), made once and
    shared by every session."""
    return SCRIPT_BARS.get_or_make(tokenizer.fingerprint,
                                   lambda: script_bars_html(script_counts(shared_table_of(tokenizer))), len)


def frame_bytes(frame: pd.DataFrame) -> int:
    return int(frame.memory_usage(deep=True).sum())
