"""Work that depends on no visitor, done once when the server starts, in the
background, so that no visitor waits for it.

`streamlit run app.py` starts app.py's `st.App`, whose lifespan is
`warm_up_in_background`: it starts one thread and returns, so the server
serves at once. The thread does, in order:

1. What the first page needs, while the first visitor's browser is still
   loading Streamlit's own files: the frame around every page (its
   modules, with the engine; Streamlit's table of emoji, which it checks
   each page's icon against; Streamlit's check of the first element,
   whether it runs in a REPL); then what the page asked for first needs
   of its own (`FirstPageAsked` notes its address as the browser asks for
   it, half a second or more before its script runs): its modules (the
   page's own import lines: pandas for the Tax page) and what its first
   view loads (`make_first_view`: its tokenizers, Algorithms' shipped
   tokenizers, Vocabulary's first rows),
   made as the page would make it, so the server holds nothing the page
   would not. When no page has been asked for yet once the frame is
   ready, the encoding most pages open with is loaded meanwhile; a page
   that does not show it is not made to wait for it. Once the modules are
   loaded, the collector is told to leave them alone
   (`navigation.freeze_what_modules_hold`), which the first page would
   otherwise do.
2. Once a page has been drawn and its browser has had a moment to finish
   drawing it (or no page has been asked for in `QUIET_SECONDS`), so as
   not to compete with it for the interpreter and the cores: the
   tokenizers the page asked for first needs once its first view changes
   (`NEXT_TOKENIZERS`: Chat prompts' families; Vocabulary's table), the encoding
   most pages open with (unless loaded already), a spare worker process
   for the first training (`SPARE_WORKERS`), the Tax page's two
   experiments at their default settings (trained in worker processes,
   `warm_tax_experiments`), the starter tokenizer (Compare's default,
   trained in the server's own process), and on a machine's first start the
   compact form Gemma 3's tokenizer loads from (in a worker process).

Everything is made through the caches a visit uses, so a visitor who asks
meanwhile shares the same work and waits only for what is left of it. They
are the server's own (`SharedCache`, the engine's `load_encoding`), not
Streamlit's, which expect a visit: the warm-up makes what it makes without
a page to report to, and a visit that finds it still being made shows a
spinner while it waits. A page that shows something still warming draws a
placeholder that fills in (see `warming.still_warming`). Which tokenizers are
loaded is chosen by what the first pages show: each one costs the server 7 to
135 MB for its whole life (`python benchmarks/load_test.py --tokenizer-memory`).
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from streamlit.logger import get_logger

from pages.common.names import ALGORITHMS, PAGES, VOCABULARY
from pages.common.page_html import page_at
from pages.common.warming import page_was_drawn, started, warmed

# With no page drawn by then, the second part starts anyway (WARM_UP_QUIET_SECONDS sets it).
QUIET_SECONDS = float(os.environ.get("WARM_UP_QUIET_SECONDS", 5))
SETTLE_SECONDS = 1.0  # after a page's script, its browser still draws it: with no other page drawn meanwhile
FIRST_PAGES_ENCODING = "cl100k_base"  # what Home, Inspect, Replay and Vocabulary open with
WARMED = "Warm-up done"  # how the server's log says so (tests and benchmarks wait for it)
PAGE_ASKED_FIRST = "Warmed the page asked for first (%s)"  # ... and what it made for that page

_log = get_logger(__name__)  # Streamlit's: its level and format, in the server's log
_THREAD_NAME = "warm-up"
_APP_ROOT = Path(__file__).resolve().parents[2]  # where app.py is: page files are named from there
_PAGE_FILES = {page.url_path: page.file for page in PAGES}


class FirstPageAsked:
    """ASGI middleware of app.py's `st.App`: notes the address of the first
    page a browser asks for (its HTML), so that the warm-up makes what that
    page needs while the browser loads Streamlit's files and opens its
    websocket. Every request passes on unchanged."""

    asked = threading.Event()
    address: str | None = None  # a page's `url_path` ("" for Home)

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if not FirstPageAsked.asked.is_set() and scope["type"] == "http":
            address = page_at(scope["path"])
            if address is not None:
                FirstPageAsked.address = address
                FirstPageAsked.asked.set()
        await self.app(scope, receive, send)


@contextlib.asynccontextmanager
async def warm_up_in_background(app):
    """The lifespan of app.py's `st.App`: start the warm-up, and serve meanwhile."""
    threading.Thread(target=warm_up, name=_THREAD_NAME, daemon=True).start()
    yield


def warm_up() -> None:
    started.set()
    began = time.monotonic()
    done = [_step("the frame of every page", the_frame)]
    if not FirstPageAsked.asked.is_set():  # not yet known: most pages open with it
        done.append(_step(f"the first pages' encoding ({FIRST_PAGES_ENCODING})", _first_pages_encoding))
        _step("the collector's freeze", _freeze)
    if FirstPageAsked.asked.wait(QUIET_SECONDS):  # else nobody came: a quiet moment
        done.append(_step("the page asked for first", what_the_page_asked_for_first_needs))
        _wait_for_a_quiet_moment()
    done += [
        _step("what the page asked for first needs next", _what_comes_next),
        _step(f"the first pages' encoding ({FIRST_PAGES_ENCODING})", _first_pages_encoding),  # if not made yet
        _step("a spare worker process", _prepare_spare_worker),
        _step("the Tax page's experiments", _tax_experiments),
        _step("the starter tokenizer", _starter_tokenizer),
        _step("the compact forms of shipped files (Gemma 3's)", _compact_forms),
    ]
    warmed.set()
    _log.info("%s in %.1f s: %s.", WARMED, time.monotonic() - began, ", ".join(dict.fromkeys(filter(None, done)))
              or "nothing")


def _wait_for_a_quiet_moment() -> None:
    """Until a page has been drawn and no other for `SETTLE_SECONDS` (its
    browser finishes drawing it meanwhile: two cores, and the second part
    starts processes), or `QUIET_SECONDS` with no page drawn at all; never
    longer than twice that, however busy the server."""
    if not page_was_drawn.wait(QUIET_SECONDS):
        return
    deadline = time.monotonic() + QUIET_SECONDS
    while time.monotonic() < deadline:
        page_was_drawn.clear()
        if not page_was_drawn.wait(SETTLE_SECONDS):
            return


def the_frame() -> None:
    """What every page's first run needs before its own: the frame's modules
    (with the engine), Streamlit's emoji and its first element's check."""
    # Imported here, in the warm-up's thread, not when the server imports
    # this module: importing them is the warm-up's first job.
    import streamlit.emojis  # noqa: F401  (a third of a second: one very large regex)

    from pages.common import navigation  # noqa: F401

    _streamlits_first_element_check()


def _freeze() -> None:
    from pages.common import navigation

    navigation.freeze_what_modules_hold()


def _first_pages_encoding() -> None:
    from pages.common.tokenizers import load_shared_encoding

    load_shared_encoding(FIRST_PAGES_ENCODING)


def what_the_page_asked_for_first_needs() -> None:
    """The modules and the first view of the page asked for first, unless
    it has been drawn already (it made them itself)."""
    if page_was_drawn.is_set():
        return
    address = FirstPageAsked.address
    done = [_step("its modules", lambda: import_page_modules(address))]
    _step("the collector's freeze", _freeze)  # as the page's first run would, after they are loaded
    if address in FIRST_VIEW_TOKENIZERS or address == ALGORITHMS.url_path:
        done.append(_step("its first view", lambda: make_first_view(address)))
    _log.info("%s: %s.", PAGE_ASKED_FIRST % (address or "home"), ", ".join(filter(None, done)) or "nothing")


def import_page_modules(address: str) -> None:
    """Import the modules the page at `address` imports, as its import
    lines name them (the page itself is not run): its first run then
    finds them loaded."""
    path = _APP_ROOT / _PAGE_FILES[address]
    for line in ast.parse(path.read_text(encoding="utf-8"), str(path)).body:
        if isinstance(line, ast.Import):
            for name in line.names:
                importlib.import_module(name.name)
        elif isinstance(line, ast.ImportFrom):
            module = importlib.import_module(line.module)
            for name in line.names:  # `from package import module`
                if not hasattr(module, name.name):
                    importlib.import_module(f"{line.module}.{name.name}")


# The tokenizers each page's first view shows, by the page's address
# (tests/test_warm_up.py holds this to the pages).
FIRST_VIEW_TOKENIZERS = {
    "": (FIRST_PAGES_ENCODING,),
    "inspect": (FIRST_PAGES_ENCODING,),
    "replay": (FIRST_PAGES_ENCODING,),
    "vocabulary": (FIRST_PAGES_ENCODING,),
    "compare": ("starter", "gpt2", FIRST_PAGES_ENCODING, "o200k_base"),
    "quirks": ("o200k_base", FIRST_PAGES_ENCODING, "gpt2"),
}
# The tokenizers a page needs as soon as its first view changes, where that
# view is shipped without them: Chat prompts' default families, which encode
# a turn once it is typed. Loaded after the first page is drawn, when that
# page was asked for first (and, likewise, Vocabulary's whole table, which
# its first search reads).
NEXT_TOKENIZERS = {
    "chat": ("llama3", "qwen"),
}


def make_first_view(address: str) -> None:
    """What the page at `address` makes for its first view that takes long:
    its tokenizers, Algorithms' shipped tokenizers and measures, and
    Vocabulary's figures, first rows and chart of the encoding it opens
    with. Made for the page asked for first only, which would make it
    itself: the server holds no more than it would have."""
    from pages.common.tokenizers import shared_tokenizer

    for name in FIRST_VIEW_TOKENIZERS.get(address, ()):
        shared_tokenizer(name)
    if address == ALGORITHMS.url_path:
        from pages.common.algorithm_measures import default_view

        default_view()
    if address == VOCABULARY.url_path:
        from pages.common.vocabulary_tables import figures_of, first_rows_of, script_bars_of

        tokenizer = shared_tokenizer(FIRST_PAGES_ENCODING)
        figures_of(tokenizer), first_rows_of(tokenizer), script_bars_of(tokenizer)


def _what_comes_next() -> None:
    from pages.common.tokenizers import shared_tokenizer

    for name in NEXT_TOKENIZERS.get(FirstPageAsked.address, ()):
        shared_tokenizer(name)
    if FirstPageAsked.address == VOCABULARY.url_path:
        from pages.common.vocabulary_tables import shared_table_of

        shared_table_of(shared_tokenizer(FIRST_PAGES_ENCODING))


def _streamlits_first_element_check() -> None:
    """The first element a Streamlit process draws first asks whether it runs
    in Python's REPL, by reading the source of every frame on the stack
    (`inspect.stack`, which also maps every loaded module to its file): a
    tenth of a second of the first page's run, once per process. Asked here
    instead, on this thread's short stack; should Streamlit rename it, the
    first page asks, as before."""
    from streamlit import delta_generator

    check = getattr(delta_generator, "_maybe_print_use_warning", None)
    if check is not None:
        check()


def _prepare_spare_worker() -> None:
    from bpe_core.jobs.budgeted_jobs import SPARE_WORKERS

    SPARE_WORKERS.prepare()


def _starter_tokenizer() -> None:
    from pages.common.tokenizers import make_starter_tokenizer

    make_starter_tokenizer()


def _tax_experiments() -> None:
    from pages.common.tax_experiments import warm_tax_experiments

    warm_tax_experiments()


def _compact_forms() -> None:
    """Gemma 3's tokenizer.json in the compact form it loads from, made on a
    machine's first start (see `bpe_core.vocabularies.derived_files`), in a
    process of its own: its JSON takes a few hundred MB for a moment."""
    from bpe_core.sandbox.worker_processes import worker_context
    from bpe_core.vocabularies.zoo import keep_compact_forms

    process = worker_context().Process(target=keep_compact_forms, name="compact forms", daemon=True)
    process.start()
    process.join()


def _step(what: str, step: Callable[[], object]) -> str | None:
    """One step of the warm-up: `what` it warmed, or None when it failed
    (on a busy machine a training can run out of its budget); then the
    visit that needs it does it, and shows why if it fails again."""
    try:
        step()
    except Exception:
        _log.warning("Warming %s failed; the first visit that needs it will do it.", what, exc_info=True)
        return None
    return what
