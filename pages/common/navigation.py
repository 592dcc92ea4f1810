"""Every request enters through app.py, and every page opens the same way.

app.py is the frame around every page: the wide layout and the navigation;
`st.navigation` inside it runs the chosen page file. One case needs help.
While a folder named pages/ exists, Streamlit serves it in its older
multipage mode until some session has run `st.navigation`; after that, as
its documentation says, every session ignores the folder. So a deep link
that is the first request after a server start runs the page file alone,
outside the frame. The page notices (`page_header` calls
`enter_through_app`) and puts the frame around itself with public API
only: it runs app.py's `run_app`, whose `st.navigation` ends the older mode
for every later request and runs this same page (its address is its file
name in both modes, see `names`) inside the frame, in this same run, with
the same query string and the same widget events; then it stops the lone
run. The very first request is routed and drawn like every later one.
"""

from __future__ import annotations

import gc
import sys
import threading

import streamlit as st

from pages.common.chart import bundle_html
from pages.common.names import PAGES, TRAINED, PageInfo
from pages.common.presenter import PAGE_KEYS_HTML, presenter_navigation, presenter_switch, presenting
from pages.common.tokenizers import restore_trained_from_link, session_trained
from pages.common.url_state import copy_link_button, link_value
from pages.common.warming import page_drawn
from pages.common.widgets import TOKEN_VIEWS_HTML

_frame = threading.local()  # each session's script runs in a thread of its own
_modules_frozen = 0  # how many modules were loaded when the collector last froze what they hold


def app_pages() -> list[st.Page]:
    return [
        st.Page(page.file, title=page.title, icon=page.icon, url_path=page.url_path or None, default=page.url_path == "")
        for page in PAGES
    ]


def run_app() -> None:
    """app.py's one job: the frame, then the chosen page inside it."""
    st.set_page_config(page_title="BPE playground", page_icon="🧩", layout="wide")
    _frame.active = True
    try:
        page = st.navigation(app_pages())
        _frame.page = next(info for info in PAGES if info.url_path == page.url_path)
        page.run()
    finally:
        _frame.active = False
    freeze_what_modules_hold()
    page_drawn()


def freeze_what_modules_hold() -> None:
    """Python's collector scans every object it tracks at each full
    collection (Streamlit's own collection after every run is turned off in
    .streamlit/config.toml, `runner.postScriptGC`). Modules live as long as
    the server: after the first run that loads new ones (Streamlit's,
    plotly's, a model maker's: over 100,000 objects), the collector is told
    to leave what exists then alone, so each collection scans only what
    sessions made since: milliseconds instead of a tenth of a second."""
    global _modules_frozen
    if len(sys.modules) > _modules_frozen:
        _modules_frozen = len(sys.modules)
        gc.collect()
        gc.freeze()


def enter_through_app() -> None:
    """Run a page that finds itself outside app.py's frame inside it (see
    the module's docstring); within the frame, do nothing."""
    if not getattr(_frame, "active", False):
        run_app()  # runs this very page again, framed
        st.stop()  # the lone run has nothing left to do


def page_header(title: str, intro: str, *, carries_trained: bool = True) -> None:
    """How every page opens: through app.py, with a linked tokenizer rebuilt,
    then the title, the presenter button, the copy-link button and the intro.
    With `carries_trained`, the link keeps the recipe of the session's
    trained tokenizer, so a copied link rebuilds it."""
    enter_through_app()
    restore_trained_from_link()
    # One row, drawn as one element: a horizontal container, not columns (a block each).
    with st.container(horizontal=True, vertical_alignment="bottom"):
        st.title(title)  # takes the row's width the buttons leave
        if presenting():
            presenter_navigation(_frame.page)
        presenter_switch()
        # the token views' stylesheet, the page's keys, and plotly.js loading as the page opens (or cached
        # for later pages), in the copy-link button's element: on their own they would add an element
        # (and a gap) of their own
        copy_link_button(scripts=TOKEN_VIEWS_HTML + PAGE_KEYS_HTML + bundle_html(_frame.page))
    if not presenting():  # a projector shows no intro
        st.caption(intro)
    if carries_trained:
        trained = session_trained()
        link_value(TRAINED, trained.recipe.as_link() if trained and trained.recipe else None)


def page_links(pages: list[PageInfo]) -> None:
    """A link to each page, with what it is for."""
    for page in pages:
        st.page_link(page.file, label=f"**{page.title}** — {page.description}", icon=page.icon)
