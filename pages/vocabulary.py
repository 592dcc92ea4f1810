"""Vocabulary: browse and search every token of a tokenizer.

The table is built once per tokenizer and each search is done once, for
every session (`pages.common.vocabulary_tables`); filters and sorting are
vectorised passes, so clicking stays quick even with 200,000 tokens. The
first view, before any search, filter or sort, reads none of the table: its
figures, its first rows and (for a bundled tokenizer) its bars of scripts
are had without it, and the table is read once a visitor asks for more.

The page opens on plain HTML: the figures, the first matches as a plain
table, the chart, and the vocabulary's health (shipped for the bundled
tokenizers; checked in a worker, when asked, for any other). The search, the filters and the sort sit in popovers whose
labels say what is chosen, and the data grid of every match (sort by any
column, scroll, download) is drawn only once its box is opened: the browser
spends a fifth of a second on each kind of widget the first time a page
draws it, the better part of a second on the grid, and a popover's body is
drawn only when it opens.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, NamedTuple

import streamlit as st

from bpe_core import Tokenizer
from bpe_core.analysis.downloads import frame_csv
from bpe_core.analysis.vocab_health import HEALTH_CORPUS, MAX_RATIO, MIN_SEEN
from bpe_core.analysis.vocabulary import CATEGORIES, SORTS, code_points, token_detail
from bpe_core.drawing.health import ROWS_SHOWN, health_figures_html, residues_html, unreachable_html
from bpe_core.drawing.markdown import markdown_literal
from bpe_core.drawing.tables import Rows, table_rows
from bpe_core.drawing.tokens import figures_html, merge_html, vocabulary_html
from bpe_core.vocabularies.sentencepiece_model import SentencePieceTokenizer
from pages.common.health_checks import KnownHealth, check_health, known_health
from pages.common.menus import id_or_label, listed, shown_choices, shown_flag, shown_text, shown_value, whole_number
from pages.common.navigation import page_header
from pages.common.presenter import show_table
from pages.common.url_state import LINKED, labelled_choice, whole_number_input
from pages.common.vocabulary_tables import (
    FIRST_ROWS,
    Figures,
    figures_of,
    first_rows_of,
    matches_in,
    script_bars_of,
    table_of,
)
from pages.common.widgets import pick_tokenizer, tokenizer_upload

if TYPE_CHECKING:  # the first view, every token in id order, reads no DataFrame (see vocabulary_tables)
    import pandas as pd

MAX_QUERY_CHARS = 200
LABEL_CHARS = 24  # of a search shown in its popover's label
UPLOAD_OPEN = "vocab_upload_open"  # the popover of the uploader: open or not
GRID_OPEN = "vocab_grid_open"  # the box of the data grid: open or not
HEALTH_OPEN = "vocab_health_open"  # the box of the health section's tables: open or not
MAGIKARP = "https://arxiv.org/abs/2405.05417"
LITETOKEN = "https://arxiv.org/abs/2602.04706"

page_header(
    "Vocabulary",
    "Every token of a tokenizer: search by text, regex or id, filter by script, find the longest "
    "tokens and the ones that are only part of a character. Spaces show as ·, bytes that are not a "
    "whole character as <E3 81>.",
)


# ---------------------------------------------------------------- widgets


def search_settings() -> dict:
    text = st.text_input(
        "Text in the token", key="vocab_text", max_chars=MAX_QUERY_CHARS, live=True, placeholder="e.g. ·the",
        help="Part of the token, as it is (' the') or as shown ('·the', '<E3 81>').", **LINKED,
    )
    ignore_case = st.toggle("Ignore case", key="vocab_ignore_case", **LINKED)
    pattern = st.text_input(
        "Regular expression", key="vocab_regex", max_chars=MAX_QUERY_CHARS, placeholder=r"e.g. ^ \p{Lu}",
        help=r"Python `regex` syntax, searched in the token's own text: `\p{Devanagari}{3}`, `^\d+$`, `ing$`.",
        **LINKED,
    )
    token_id = whole_number_input(st, "Id", key="vocab_id", value=None, min_value=0, step=1, placeholder="any")
    return dict(text=text, regex=pattern, id=token_id, ignore_case=ignore_case)


def filter_settings() -> dict:
    # Plain names as options: a bound widget puts the *shown* option in the
    # link, so a label with a count in it would change with the tokenizer.
    scripts = st.multiselect(
        "Script", CATEGORIES, key="vocab_scripts", placeholder="all",
        help="The script most of a token's letters belong to; the chart counts them.", **LINKED,
    )
    not_utf8 = st.toggle(
        "Only tokens that are not valid UTF-8", key="vocab_not_utf8",
        help="Byte-level BPE learns pieces of characters: the first two bytes of あ, say.", **LINKED,
    )
    leading_space = st.toggle("Only tokens with a leading space", key="vocab_leading_space", **LINKED)
    return dict(scripts=scripts, only_not_utf8=not_utf8, only_leading_space=leading_space)


# ----------------------------------------------------- popover labels
# A popover's label is made before the widgets in it run: it reads their
# values as they will be, the session's (after a change), else the link's.


def search_label() -> str:
    text, pattern = shown_value("vocab_text", "", str), shown_value("vocab_regex", "", str)  # as typed, or linked
    parts = []
    if text:
        parts.append(f"“{shown_text(text, LABEL_CHARS + 1)}”")
    if pattern:
        parts.append(f"regex {shown_text(pattern, LABEL_CHARS + 1)}")
    if parts and shown_flag("vocab_ignore_case"):
        parts[-1] += " in any case"
    token_id = shown_value("vocab_id", None, whole_number(0, None))
    if token_id is not None:
        parts.append(f"id {token_id}")
    return "Search: " + (", ".join(parts) or "every token")


def filter_label() -> str:
    scripts = shown_choices("vocab_scripts", {script: script for script in CATEGORIES}, [])
    parts = [listed(scripts, shown=2)] if scripts else []
    if shown_flag("vocab_not_utf8"):
        parts.append("not UTF-8")
    if shown_flag("vocab_leading_space"):
        parts.append("leading space")
    return "Filter: " + (" · ".join(parts) or "none")


def sort_label() -> str:
    return "Sort: " + SORTS[shown_value("vocab_sort", "id", id_or_label(SORTS))]


# ---------------------------------------------------------------- results


class Matches(NamedTuple):
    """The tokens a search finds: how many, the first ones, and all of them
    (made when the grid asks: before any search, that is the whole table)."""

    count: int
    first_rows: Rows
    every: Callable[[], pd.DataFrame]


def unsearched(criteria: dict, filters: dict, sort: str) -> bool:
    """Whether every token matches, in id order: the table as it is."""
    return (not criteria["text"] and not criteria["regex"] and criteria["id"] is None and not any(filters.values())
            and sort == "id")


def matching_tokens(tokenizer: Tokenizer, criteria: dict, filters: dict, sort: str) -> Matches | None:
    """The tokens to show, or None after explaining a bad regex. Every
    token in id order is had without reading the table (its first rows
    alone); anything else searches, filters and sorts the table."""
    if unsearched(criteria, filters, sort):
        return Matches(figures_of(tokenizer).tokens, first_rows_of(tokenizer), lambda: table_of(tokenizer))
    try:
        found = matches_in(tokenizer, criteria, filters, sort)
    except ValueError as error:  # quotes the user's regex: shown literally
        st.error(markdown_literal(str(error)))
        return None
    return Matches(len(found), table_rows(found.head(FIRST_ROWS)), lambda: found)


COLUMNS = {  # the grid's, and the plain table's of the first rows
    "id": st.column_config.NumberColumn("id", format="%d"),
    "text": st.column_config.TextColumn("token", width="medium",
                                        help="· a space, → a tab, ↵ a line break, <E3 81> stray bytes"),
    "piece": st.column_config.TextColumn(
        "piece", help="As SentencePiece spells it: ▁ for a space, <0xE3> for a byte-fallback piece"),
    "score": st.column_config.NumberColumn(
        "score", format="%.0f", help="Where two neighbours make pieces, the higher score merges first"),
    "bytes": st.column_config.NumberColumn("bytes"),
    "characters": st.column_config.NumberColumn("characters", help="Empty when the bytes are not valid UTF-8"),
    "valid_utf8": st.column_config.CheckboxColumn("valid UTF-8"),
    "script": st.column_config.TextColumn("script", help="The script most of its letters belong to"),
    "leading_space": st.column_config.CheckboxColumn("leading space"),
    "learned_at_step": st.column_config.NumberColumn("learned at step", format="%d",
                                                     help="The merge that made it (1 = the first)"),
    "special": st.column_config.CheckboxColumn("special"),
}
TOKENS = ("text", "piece", "character")  # columns of tokens' text (and of a token's characters)


def shown_columns(tokenizer: Tokenizer, columns: Collection[str]) -> list[str]:
    return [name for name in COLUMNS if name in columns and (name != "learned_at_step" or tokenizer.trace)]


def show_first_rows(tokenizer: Tokenizer, matches: Matches) -> None:
    """The first matches as a plain table: most visits look no further."""
    rows = matches.first_rows
    columns = [name for name in shown_columns(tokenizer, rows[0]) if name != "special"]  # its script says so
    show_table(rows, grid=False, column_order=columns, column_config=COLUMNS, tokens=TOKENS)
    if matches.count > FIRST_ROWS:
        st.caption(f"The first {FIRST_ROWS} of {matches.count:,} matches; all of them in the grid below.")


def show_grid(tokenizer: Tokenizer, found: Matches) -> None:
    """Every match in the data grid, drawn only while its box is open."""
    # A label that never changes: the box's open state is keyed by it, and a search changes the count.
    with st.expander("All the matches in a grid: sort by any column, scroll, download",
                     key=GRID_OPEN, on_change="rerun") as grid:
        if not grid.open:
            return
        matches = found.every()
        show_table(matches, hide_index=True, column_order=shown_columns(tokenizer, matches.columns),
                   column_config=COLUMNS, tokens=TOKENS, lazy=True, height=460)
        st.download_button(
            "Download these tokens (CSV)", functools.partial(frame_csv, matches),
            file_name=f"vocabulary-{len(matches)}-tokens.csv", mime="text/csv", key="vocab_download",
        )


def counts(figures: Figures, matches: Matches | None) -> str:
    return figures_html({
        "Tokens": f"{figures.tokens:,}",
        "Matches": "–" if matches is None else f"{matches.count:,}",
        "Not valid UTF-8": f"{figures.not_utf8:,}",
        "Longest (bytes)": f"{figures.longest:,}",
    })


def trained_note(tokenizer: Tokenizer) -> None:
    base = "256 single bytes" if tokenizer.units == "bytes" else f"{tokenizer.first_merge_id:,} characters"
    st.info(
        f"Trained here: it started from {base} and learned {len(tokenizer.trace):,} merges. "
        "“learned at step” says which merge made each token; sort by it to watch the vocabulary grow."
    )


# ----------------------------------------------------------------- detail


def sentencepiece_caption(tokenizer: SentencePieceTokenizer, token_id: int) -> str:
    piece = markdown_literal(tokenizer.pieces[token_id])
    if tokenizer.is_byte_fallback(token_id):
        return (f"Byte-fallback piece {piece}: one byte of a character the vocabulary has no piece for "
                "(such a character becomes one of these per UTF-8 byte).")
    return (f"SentencePiece piece “{piece}” (▁ is a space), score {tokenizer.scores[token_id]:,.0f}: where two "
            "neighbours make a piece, the pair whose piece has the highest score merges first.")


def show_detail(tokenizer: Tokenizer, token_id: int) -> None:
    """One token: as a chip (or the merge that made it), its bytes, its characters."""
    try:
        detail = token_detail(tokenizer, token_id)
    except ValueError as error:
        st.error(markdown_literal(str(error)))
        return
    if detail.parts is not None:
        left, right = detail.parts
        st.html(merge_html((left, tokenizer.token_bytes(left)), (right, tokenizer.token_bytes(right)),
                           (detail.id, detail.token_bytes)))
        st.caption(f"Learned at step {detail.step:,}: the merge of token {left} and token {right}.")
    else:
        st.html(vocabulary_html([(detail.id, detail.token_bytes)]))
        if detail.special:
            st.caption("A special token: never learned by merging, only ever added whole.")
        elif tokenizer.trace:
            st.caption("One of the base units training started from.")
        elif isinstance(tokenizer, SentencePieceTokenizer):
            st.caption(sentencepiece_caption(tokenizer, detail.id))
        else:
            st.caption("This tokenizer ships ranks, not a training history: the id is its rank.")
    # Inline code, not a code block: a block loads a syntax highlighter, a quarter of a second of each visit.
    st.markdown(f"id {detail.id} · {len(detail.token_bytes)} bytes (hex): `{detail.hex}`")
    show_table(code_points(detail.token_bytes), grid=False, tokens=TOKENS)


# ----------------------------------------------------------------- health


def show_health(tokenizer: Tokenizer) -> None:
    """The vocabulary's wasted places: shipped for a bundled tokenizer,
    checked on request for any other (seconds, in a worker)."""
    st.caption(
        f"Tokens no text produces (Land & Bartolo, “Fishing for Magikarp”, 2024, {MAGIKARP}), tokens that are only "
        f"part of a character, and intermediate residues (Sun et al., “LiteToken”, 2026, {LITETOKEN}): places in the "
        "vocabulary that a model trains little or never."
    )
    known = known_health(tokenizer)
    if known is None:
        if not st.button("Check this vocabulary", key="vocab_health_check",
                         help="Encodes every token's text, then every bundled text: seconds, in a worker process."):
            return
        known = check_health(tokenizer)
        if known is None:
            return
    health = known.health
    st.html(health_figures_html(health, known.partial_count))
    with st.expander("Which tokens: the unreachable, the residues, the parts of characters",
                     key=HEALTH_OPEN, on_change="rerun") as tables:
        if not tables.open:
            return
        show_health_tables(tokenizer, known)


def show_health_tables(tokenizer: Tokenizer, known: KnownHealth) -> None:
    health = known.health
    st.markdown("**Unreachable**: valid UTF-8, yet encoding the token's own text gives other tokens.")
    if health.unreachable:
        st.html(unreachable_html(tokenizer, health.unreachable))
        shown_of(len(health.unreachable))
    else:
        st.caption("None: every token whose bytes are text is what encoding that text gives.")
    st.markdown("**Not UTF-8 alone**: parts of characters, reachable only inside them.")
    if known.partial_count:
        st.html(vocabulary_html([(token_id, tokenizer.token_bytes(token_id))
                                 for token_id in health.partial_characters[:ROWS_SHOWN]]))
        st.caption(f"The first {min(known.partial_count, ROWS_SHOWN):,} of {known.partial_count:,}; the filter "
                   "“Only tokens that are not valid UTF-8” above lists them all.")
    else:
        st.caption("None: every token is whole characters.")
    st.markdown(f"**Intermediate residues**: made at least {MIN_SEEN} times while encoding {HEALTH_CORPUS}, and "
                f"left standing fewer than {MAX_RATIO:.0%} of those times.")
    if health.residues is None:
        st.caption("None to find: this tokenizer does not build its tokens by merging.")
    elif health.residues:
        st.html(residues_html(tokenizer, health.residues))
        shown_of(len(health.residues))
    else:
        st.caption("None: every token the texts made was left standing often enough.")
    st.caption("The command line lists every one: `python -m bpe_core vocab-health --encoding NAME --json` "
               "(or `--tokenizer FILE`).")


def shown_of(count: int) -> None:
    if count > ROWS_SHOWN:
        st.caption(f"The first {ROWS_SHOWN} of {count:,}.")


# ------------------------------------------------------------------- page


# One row of buttons, each opening what it names.
with st.container(horizontal=True, vertical_alignment="bottom"):
    tokenizer = pick_tokenizer("Tokenizer", key="vocab_tokenizer")
    with st.popover(search_label()):
        criteria = search_settings()
    with st.popover(filter_label()):
        filters = filter_settings()
    with st.popover(sort_label()):
        sort = labelled_choice(st, "Sort by", SORTS, key="vocab_sort", default="id", widget="segmented_control",
                               required=True)
    # Drawn only while open (a loaded tokenizer stays in the picker when it closes).
    with st.popover("Load a tokenizer", key=UPLOAD_OPEN, on_change="rerun") as loading:
        if loading.open:
            tokenizer_upload("vocab_upload", picker_key="vocab_tokenizer")

results, chart = st.columns([2, 1])
with results:
    if tokenizer.trace:
        trained_note(tokenizer)
    matches = matching_tokens(tokenizer, criteria, filters, sort)
    if sort == "step" and not tokenizer.trace:
        st.caption("Only a tokenizer trained here knows the step that learned each token: shown in id order.")
    st.html(counts(figures_of(tokenizer), matches))
    if matches is not None:
        if not matches.count:
            st.info("No token matches. Loosen the search or the filters.")
        else:
            show_first_rows(tokenizer, matches)
with chart:
    st.html(script_bars_of(tokenizer))
if matches is not None and matches.count:
    show_grid(tokenizer, matches)  # the page's whole width, for a grid of many columns

st.subheader("One token")
first_match = None if matches is None or not matches.count else matches.first_rows[0]["id"]
chosen = shown_value("vocab_detail", None, whole_number(0, None))
with st.popover(f"Token id {chosen}" if chosen is not None else
                "Token: the first match" + ("" if first_match is None else f" (id {first_match})")):
    chosen = whole_number_input(
        st, "Token id", key="vocab_detail", value=None, min_value=0, step=1, placeholder="the first match",
        help="Empty: the first match in the table above.",
    )
if chosen is None:
    chosen = first_match
if chosen is not None:
    show_detail(tokenizer, int(chosen))

st.subheader("Health")
show_health(tokenizer)
