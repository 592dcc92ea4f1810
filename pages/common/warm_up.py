"""Work that depends on no visitor, done once when the server starts, in the
background, so that no visitor waits for it.

`streamlit run app.py` starts app.py's `st.App`, whose lifespan is
`warm_up_in_background`: it starts one thread and returns, so the server
serves at once. The thread does, in order:

1. What any first page needs, while the first visitor's browser is still
   loading Streamlit's own files: the modules of the frame around every
   page (with the engine), Streamlit's table of emoji (it checks each
   page's icon against it), Streamlit's check of the first element (whether
   it runs in a REPL), and the encoding Home, Inspect, Replay and
   Vocabulary open with. Then the collector is told to leave the modules
   alone (`navigation.freeze_what_modules_hold`), which the first page
   would otherwise do.
2. Once a page has been drawn and its browser has had a moment to finish
   drawing it (or no visitor has come for `QUIET_SECONDS`), so as not to
   compete with it for the interpreter and the cores: a
   spare worker process for the first training (`SPARE_WORKERS`), the Tax
   page's two experiments at their default settings (trained in worker
   processes, `warm_tax_experiments`) and the starter tokenizer (Compare's
   default, trained in the server's own process).

Everything is made through the caches a visit uses, so a visitor who asks
meanwhile shares the same work and waits only for what is left of it; a
page that shows something still warming draws a placeholder that fills in
(see `warming.still_warming`). Which tokenizers are loaded is chosen by what the
first pages show: each one costs the server 7 to 135 MB for its whole life
(`python benchmarks/load_test.py --tokenizer-memory`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable

from streamlit.logger import get_logger

from pages.common.warming import page_was_drawn, started, warmed

# With no page drawn by then, the second part starts anyway (WARM_UP_QUIET_SECONDS sets it).
QUIET_SECONDS = float(os.environ.get("WARM_UP_QUIET_SECONDS", 5))
SETTLE_SECONDS = 1.0  # after a page's script, its browser still draws it: with no other page drawn meanwhile
FIRST_PAGES_ENCODING = "cl100k_base"  # what Home, Inspect, Replay and Vocabulary open with
WARMED = "Warm-up done"  # how the server's log says so (tests and benchmarks wait for it)

_log = get_logger(__name__)  # Streamlit's: its level and format, in the server's log
_THREAD_NAME = "warm-up"


@contextlib.asynccontextmanager
async def warm_up_in_background(app):
    """The lifespan of app.py's `st.App`: start the warm-up, and serve meanwhile."""
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(_no_visit_is_expected)
    threading.Thread(target=warm_up, name=_THREAD_NAME, daemon=True).start()
    yield


def warm_up() -> None:
    started.set()
    began = time.monotonic()
    done = [_step(f"what the first page needs ({FIRST_PAGES_ENCODING})", what_the_first_page_needs)]
    _wait_for_a_quiet_moment()
    done += [
        _step("a spare worker process", _prepare_spare_worker),
        _step("the Tax page's experiments", _tax_experiments),
        _step("the starter tokenizer", _starter_tokenizer),
    ]
    warmed.set()
    _log.info("%s in %.1f s: %s.", WARMED, time.monotonic() - began, ", ".join(filter(None, done)) or "nothing")


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


def what_the_first_page_needs() -> None:
    # Imported here, in the warm-up's thread, not when the server imports
    # this module: importing them is the warm-up's first job.
    import streamlit.emojis  # noqa: F401  (a third of a second: one very large regex)

    from pages.common import navigation
    from pages.common.tokenizers import bundled_encoding

    _streamlits_first_element_check()
    bundled_encoding(FIRST_PAGES_ENCODING)
    navigation.freeze_what_modules_hold()


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
    from bpe_core.budgeted_jobs import SPARE_WORKERS

    SPARE_WORKERS.prepare()


def _starter_tokenizer() -> None:
    from pages.common.tokenizers import starter_tokenizer

    starter_tokenizer()


def _tax_experiments() -> None:
    from pages.common.tax_experiments import warm_tax_experiments

    warm_tax_experiments()


def _no_visit_is_expected(record: logging.LogRecord) -> bool:
    """The warm-up uses the pages' caches outside any visit, on purpose:
    Streamlit's warning that its thread has no script run is left out."""
    return record.threadName != _THREAD_NAME


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
