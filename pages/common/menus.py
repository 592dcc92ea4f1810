"""Menus: controls that choose a view, kept in an st.popover whose label
says what is chosen ("Vocabulary 1,000 · bytes · split GPT-2").

A browser draws a menu's widgets only when the menu opens, which spares
every visit the first drawing of each widget type (a selectbox, a number
input: a fifth of a second each); their Python still runs on every run, so
their values, keys and links hold. But a menu's label is written before
the widgets inside it run: it reads the value each will show here, with
`shown_value` and a reader of the link's text for that kind of widget.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TypeVar

import streamlit as st

from bpe_core.analysis.labels import label_text
from bpe_core.drawing.markdown import markdown_literal
from pages.common.url_state import linked_id, whole_number_in

T = TypeVar("T")

NAMES_SHOWN = 3  # names in a label before "+2"


def shown_value(key: str, default: T, from_link: Callable[[str], T | None]) -> T:
    """The value the widget under `key` will show when it runs: this
    session's (which already holds a change just made), else the link's
    (`from_link` reads it: None if it is not a value the widget takes),
    else `default`."""
    if key in st.session_state:
        return st.session_state[key]
    linked = st.query_params.get(key)
    value = from_link(linked) if linked is not None else None
    return default if value is None else value


def shown_flag(key: str, default: bool = False) -> bool:
    """What a toggle or checkbox under `key` will show."""
    return shown_value(key, default, yes_or_no)


def shown_choices(key: str, labels: Mapping, default: Sequence) -> list:
    """What a multiselect under `key` bound to the link by Streamlit
    (`bind="query-params"`: the link holds each option's label) will show,
    `labels` mapping each option to its label; a link naming no option
    offered leaves the default, an empty one chooses none."""
    if key in st.session_state:
        return [value for value in st.session_state[key] if value in labels]
    linked = st.query_params.get_all(key)
    by_label = {label: option for option, label in labels.items()}
    chosen = [by_label[label] for label in linked if label in by_label]
    return chosen if chosen else list(default) if linked != [""] else []


# Readers of a link's text, one per kind of widget (None: not a value it takes).

def one_of(options: Collection[str]) -> Callable[[str], str | None]:
    """For a widget offering `options` as they are."""
    return lambda text: text if text in options else None


def by_label(labels: Mapping) -> Callable[[str], object | None]:
    """For a one-choice widget bound to the link by Streamlit, which writes
    the label its format_func shows (`labels`: option -> label)."""
    return lambda text: next((option for option, label in labels.items() if label == text), None)


def id_or_label(options: Mapping[str, str]) -> Callable[[str], str | None]:
    """For a `url_state.labelled_choice` (its link holds the id; older links the label)."""
    return lambda text: linked_id(text, options)


def whole_number(least: int | None, most: int | None) -> Callable[[str], int | None]:
    """For `url_state.whole_number_input` from `least` to `most`, read as it reads a link."""
    return lambda text: whole_number_in(text, least, most)


def yes_or_no(text: str) -> bool | None:
    """For a toggle, as Streamlit reads its link."""
    return {"true": True, "false": False}.get(text.lower())


def shown_text(text: str, most: int) -> str:
    """What the user typed, for a label: whitespace visible as tokens show it
    (a space as ·), at most `most` characters (cut with …), literal in Markdown."""
    shown = label_text(text.encode("utf-8", errors="replace"))
    return markdown_literal(shown if len(shown) <= most else shown[: most - 1] + "…")


def listed(names: Sequence[str], *, none: str = "none", shown: int = NAMES_SHOWN) -> str:
    """Names for a label, escaped for Markdown (a name may be a file's):
    the first few, then how many more."""
    if not names:
        return none
    text = ", ".join(markdown_literal(name) for name in names[:shown])
    return text + (f" +{len(names) - shown}" if len(names) > shown else "")
