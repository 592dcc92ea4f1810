"""Labels that say what a popover's widgets have chosen, read before they run.

A page's settings sit in popovers: the browser mounts a popover's widgets
only once it is opened, and a page full of widgets costs a visit a tenth of
a second per widget type. The popover's label then tells the view's choice
("Corpora: English prose, Japanese +1"), so the page still says what it
shows. The label is drawn before the widgets inside run, so it reads what
they will return: the session's value (after a change, or kept from an
earlier visit), else the link's (a permalink's first run, as Streamlit's
binding will read it), else the default.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import streamlit as st

from bpe_core.drawing.markdown import markdown_literal
from pages.common.url_state import _whole_number_from_link, initial_value

NAMES_SHOWN = 3  # names in a label before "+2"


def current_choice(key: str, labels: Mapping, default):
    """The option a bound one-choice widget (selectbox, segmented control)
    will return, its options `labels` (option -> the label its format_func
    shows): a link names it by that label, as Streamlit's binding writes it."""
    if key in st.session_state:
        value = st.session_state[key]
        return value if value in labels else default
    linked = st.query_params.get(key)
    return next((option for option, label in labels.items() if label == linked), default)


def current_choices(key: str, labels: Mapping, default: Sequence) -> list:
    """The options a bound multiselect over `labels` (as `current_choice`)
    will return; a link of which no label is offered leaves the default."""
    if key in st.session_state:
        return [value for value in st.session_state[key] if value in labels]
    linked = st.query_params.get_all(key)
    by_label = {label: option for option, label in labels.items()}
    chosen = [by_label[label] for label in linked if label in by_label]
    return chosen if chosen else list(default) if linked != [""] else []


def current_flag(key: str, default: bool) -> bool:
    """What a toggle or checkbox will return (a link says "true" or "false")."""
    value = initial_value(key, default)
    if isinstance(value, str):
        return {"true": True, "false": False}.get(value.lower(), default)
    return bool(value)


def current_whole_number(key: str, default: int, *, min_value: int, max_value: int) -> int:
    """What `whole_number_input` will return: it reads a link as this does."""
    if key in st.session_state:
        return st.session_state[key]
    return _whole_number_from_link(key, default, min_value, max_value)


def listed(names: Sequence[str], *, none: str = "none", shown: int = NAMES_SHOWN) -> str:
    """Names for a label, escaped for Markdown (a name may be a file's):
    the first few, then how many more."""
    if not names:
        return none
    text = ", ".join(markdown_literal(name) for name in names[:shown])
    return text + (f" +{len(names) - shown}" if len(names) > shown else "")
