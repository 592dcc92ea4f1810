"""Every vocabulary's health, kept for every session.

The Vocabulary page's health section needs a tokenizer's unreachable
tokens, partial characters and residues (`bpe_core.analysis.vocab_health`).
The bundled tokenizers' are shipped (`bpe_core.analysis.shipped_health`),
found by name and used while the tokenizer is the one measured. Any other
(trained here, loaded from a file, a bundled one read from other files
since) is checked when the visitor asks, in a worker process within a
budget, like training (`bpe_core.jobs.budgeted_health`), and kept here
under its fingerprint, in a module the server imports once.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from bpe_core import Tokenizer
from bpe_core.analysis.shipped_health import shipped_health
from bpe_core.analysis.vocab_health import VocabularyHealth
from bpe_core.drawing.markdown import markdown_literal
from bpe_core.jobs.budgeted_health import HEALTH_BUDGET, health_within_budget
from pages.common.shared_cache import SharedCache

CHECKED = SharedCache(max_entries=16, max_bytes=20_000_000)  # fingerprint -> KnownHealth
HEALTH_SIZE = 500_000  # bytes one tokenizer's health takes, at most roughly (qwen's 1,909 unreachable tokens)


@dataclass(frozen=True)
class KnownHealth:
    """A tokenizer's health, and how many of its tokens are partial
    characters (a shipped entry lists only the first of them)."""

    health: VocabularyHealth
    partial_count: int
    shipped: bool


def known_health(tokenizer: Tokenizer) -> KnownHealth | None:
    """The tokenizer's health when it is shipped or was checked already; None
    until a visitor asks for it to be checked."""
    entry = shipped_health(tokenizer.name, tokenizer.fingerprint)
    if entry is not None:
        return KnownHealth(entry.health, entry.partial_count, shipped=True)
    return CHECKED.get(tokenizer.fingerprint)


def check_health(tokenizer: Tokenizer) -> KnownHealth | None:
    """Check the tokenizer in a worker process within a budget, with a
    progress bar, and keep what it found for every session; None after
    saying why it could not be checked."""
    bar = st.empty()

    def show(done: int, total: int) -> None:
        bar.progress(done / total if total else 0.0, text="Checking every token, then encoding every bundled text…")

    def wait(ahead: int) -> None:
        bar.progress(0.0, text="Waiting for a free core: other visitors' jobs use every one"
                     + (f" ({ahead} ahead of you)" if ahead else " (you are next)"))

    try:
        health = health_within_budget(tokenizer, HEALTH_BUDGET, progress=show, waiting=wait)
    except ValueError as error:  # over its budget, or a split pattern that fails on some text
        st.warning(f"This vocabulary could not be checked: {markdown_literal(str(error))}")
        return None
    finally:
        bar.empty()
    known = KnownHealth(health, len(health.partial_characters), shipped=False)
    CHECKED.put(tokenizer.fingerprint, known, HEALTH_SIZE)
    return known
