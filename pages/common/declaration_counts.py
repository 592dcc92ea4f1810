"""Every tokenizer's counts on the UDHR corpus, kept for every session.

The atlas (the Tax page, corpus `udhr`) needs each chosen tokenizer's
token counts on all 527 declarations. The bundled tokenizers' are shipped
(`bpe_core.analysis.atlas`), found by what each is read from without
loading it; one that is new or changed since is loaded and counted here
once, in the server's process, with a progress bar. A session's own
tokenizer (trained here, loaded from a file) is counted in a worker
process within a budget (`bpe_core.jobs.budgeted_counting`), like training.
Either way the counts are kept under the tokenizer's fingerprint, in this
module (imported once per server, unlike a page, which runs anew each time).
"""

from __future__ import annotations

import streamlit as st

from bpe_core.analysis.atlas import TokenizerCounts, counts_for, shipped_counts
from bpe_core.drawing.markdown import markdown_literal
from bpe_core.jobs.budgeted_counting import COUNTING_BUDGET, count_within_budget
from pages.common.shared_cache import SharedCache
from pages.common.tokenizers import BUNDLED_ENCODINGS, loadable_encodings, short_label, tokenizer_by_name

ATLAS_COUNTS = SharedCache(max_entries=32, max_bytes=50_000_000)  # (name, fingerprint) -> TokenizerCounts
COUNTS_SIZE = 200_000  # bytes one tokenizer's counts of 527 declarations take, roughly


def declaration_counts(name: str) -> TokenizerCounts | None:
    """A tokenizer's counts on every declaration, kept for every session: a
    bundled one's are shipped (or counted here once, with a progress bar,
    when it is new or changed since); the session's own tokenizers are
    counted in a worker process within a budget, like training."""
    if name in BUNDLED_ENCODINGS:
        if not loadable_encodings([name]):
            return None
        shipped = shipped_counts(name)
        if shipped is not None:
            return shipped
    tokenizer = tokenizer_by_name(name)
    key = (name, tokenizer.fingerprint)
    counts = ATLAS_COUNTS.get(key)
    if counts is not None:
        return counts
    bar = st.empty()

    def show(done: int, total: int) -> None:
        bar.progress(done / total if total else 0.0,
                     text=f"Counting {name} on every declaration (once): {done:,} / {total:,}" if total
                     else f"Counting {name} on every declaration (once)…")

    def wait(ahead: int) -> None:
        bar.progress(0.0, text="Waiting for a free core: other visitors' jobs use every one"
                     + (f" ({ahead} ahead of you)" if ahead else " (you are next)"))

    try:
        if name in BUNDLED_ENCODINGS:
            counts = counts_for(name, tokenizer, progress=show)
        else:
            counts = count_within_budget(tokenizer, COUNTING_BUDGET, progress=show, waiting=wait)
    except ValueError as error:  # over its budget, or a split pattern that fails on some script
        st.warning(f"{markdown_literal(short_label(name))} could not be measured: {markdown_literal(str(error))}")
        return None
    finally:
        bar.empty()
    ATLAS_COUNTS.put(key, counts, COUNTS_SIZE)
    return counts
