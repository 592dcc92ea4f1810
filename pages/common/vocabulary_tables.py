"""Vocabulary tables, searches and bars of scripts, kept for every session.

The Vocabulary page reads every token of a tokenizer into a table (o200k_base
takes a second or two) and searches it (a regex over 200,000 tokens takes
most of a second). Both are kept here, in a module the server imports once:
a page's own script runs anew at every rerun, so a cache made there would
start empty every time. Caches are keyed by the tokenizer's fingerprint,
not by hashing its 200,000 tokens at every rerun. The bars of a table's
scripts are kept too: they depend only on the tokenizer, and counting
200,000 rows at every rerun (each keystroke of a search) is time wasted.

The page's first view (no search, no filter, in id order) needs none of the
table: its figures are counted from the tokens themselves (`figures_of`, a
twentieth of a second), its first rows are read alone (`first_rows_of`), and
a bundled tokenizer's tokens per script are shipped with its health
(`bpe_core.analysis.shipped_health`). The table is read once a visitor
searches, filters, sorts or opens the grid, and only then is pandas
imported (`bpe_core.analysis.vocabulary_search`): half a second of server
time that a first visit does without.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import streamlit as st

from bpe_core import Tokenizer
from bpe_core.analysis.shipped_health import shipped_health
from bpe_core.analysis.vocabulary import script_counts, table_ids, vocabulary_rows
from bpe_core.drawing.tables import Rows
from bpe_core.drawing.vocabulary import script_bars_html
from bpe_core.engine.utf8 import text_of
from pages.common.shared_cache import SharedCache

if TYPE_CHECKING:
    import pandas as pd

TABLES = SharedCache(max_entries=4, max_bytes=100_000_000)  # cl100k_base's table takes 8 MB, o200k_base's 17
SEARCHES = SharedCache(max_entries=16, max_bytes=50_000_000)
SCRIPT_BARS = SharedCache(max_entries=8, max_bytes=1_000_000)  # a few kilobytes of HTML each
FIGURES = SharedCache(max_entries=32, max_bytes=1_000_000)  # three numbers each
HEADS = SharedCache(max_entries=8, max_bytes=1_000_000)  # FIRST_ROWS rows each
FIRST_ROWS = 20  # tokens the page lists as a plain table; the grid holds them all
ROW_BYTES = 2_000  # a row of the first rows as dicts, its dozen keys and values, at most (a token of 128 bytes)


class Figures(NamedTuple):
    """What the page says of a whole vocabulary, above any search."""

    tokens: int  # rows of its table: every token, ordinary and special
    not_utf8: int  # tokens whose bytes are not valid UTF-8 alone
    longest: int  # bytes of the longest token


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
    without a page to report to."""
    from bpe_core.analysis.vocabulary_search import vocabulary_table  # and pandas, only now: see above

    return TABLES.get_or_make(tokenizer.fingerprint, lambda: vocabulary_table(tokenizer), frame_bytes)


def figures_of(tokenizer: Tokenizer) -> Figures:
    """The figures of the tokenizer's table (its rows, those not valid
    UTF-8, the longest token's bytes), counted from its tokens without
    making the table, once for every session."""
    def count() -> Figures:
        tokens = [tokenizer.token_bytes(token_id) for token_id in table_ids(tokenizer)]
        return Figures(len(tokens), sum(text_of(token) is None for token in tokens), max(map(len, tokens), default=0))

    return FIGURES.get_or_make(tokenizer.fingerprint, count, lambda _: 100)


def first_rows_of(tokenizer: Tokenizer) -> Rows:
    """The first FIRST_ROWS rows of the tokenizer's table (its head), read
    alone as dicts, once for every session."""
    return HEADS.get_or_make(tokenizer.fingerprint,
                             lambda: vocabulary_rows(tokenizer, table_ids(tokenizer)[:FIRST_ROWS]),
                             lambda rows: ROW_BYTES * len(rows))


def matches_in(tokenizer: Tokenizer, criteria: dict, filters: dict, sort: str) -> pd.DataFrame:
    """The table's rows that match a search (done once: the page reruns at
    every click on a filter), filtered and sorted (vectorised passes, quick)."""
    from bpe_core.analysis.vocabulary_search import filter_tokens, search, sort_tokens  # pandas: see above

    key = (tokenizer.fingerprint, tuple(sorted(criteria.items())))
    with st.spinner("Searching every token…"):
        found = SEARCHES.get_or_make(key, lambda: search(table_of(tokenizer), **criteria), frame_bytes)
    return sort_tokens(filter_tokens(found, **filters), sort)


def script_bars_of(tokenizer: Tokenizer) -> str:
    """The bars of the tokenizer's tokens per script (HTML), made once and
    shared by every session: from the shipped counts of a bundled
    tokenizer, else from its table."""
    def bars() -> str:
        shipped = shipped_health(tokenizer.name, tokenizer.fingerprint)
        counts = shipped.scripts if shipped is not None else script_counts(shared_table_of(tokenizer)["script"])
        return script_bars_html(counts)

    return SCRIPT_BARS.get_or_make(tokenizer.fingerprint, bars, len)


def frame_bytes(frame: pd.DataFrame) -> int:
    return int(frame.memory_usage(deep=True).sum())
