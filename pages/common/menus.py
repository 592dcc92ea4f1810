"""Menus: controls that choose a view, kept in an st.popover whose label
says what is chosen ("Vocabulary 1,000 · bytes · split GPT-2").

A browser draws a menu's widgets only when the menu opens, which spares
every visit the first drawing of each widget type (a selectbox, a number
input: a fifth of a second each); their Python still runs on every run, so
their values, keys and links hold. But a menu's label is written before
the widgets inside it run: it reads the values they will show here.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TypeVar

import streamlit as st

T = TypeVar("T")


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


def one_of(options: Collection[str]) -> Callable[[str], str | None]:
    """Reads a link's value for a widget offering `options`."""
    return lambda text: text if text in options else None


def whole_number(least: int, most: int) -> Callable[[str], int | None]:
    """Reads a link's value as `url_state.whole_number_input` does: a whole number from `least` to `most`."""
    def read(text: str) -> int | None:
        number = int(text) if text.isascii() and text.lstrip("-").isdigit() and len(text) <= 18 else None
        return number if number is not None and least <= number <= most else None
    return read


def yes_or_no(text: str) -> bool | None:
    """Reads a link's value for a toggle, as Streamlit does."""
    return {"true": True, "false": False}.get(text.lower())
