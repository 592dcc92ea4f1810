"""The warm-up at server start (pages/common/warm_up.py): a server started
as README says, `streamlit run app.py`, does what depends on no visitor
before anyone visits; a page that needs something still warming draws a
placeholder that fills in."""

from __future__ import annotations

import functools
import subprocess
import sys
import time
import urllib.request

import pytest
from playwright.sync_api import expect

from pages.common import tokenizers
from pages.common.names import PAGES
from pages.common.warm_up import FIRST_PAGES_ENCODING, FIRST_VIEW_TOKENIZERS, PAGE_ASKED_FIRST, WARMED, FirstPageAsked
from tests.apptest import open_page as open_page_in_apptest
from tests.browser import (
    ROOT,
    WAIT_SECONDS,
    StreamlitServer,
    assert_no_exception,
    new_page,
    open_page,
    run,
    run_coroutine,
)

pytestmark = pytest.mark.slow


def children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as found:
        return [int(child) for child in found.read().split()]


def command_line(pid: int) -> str:
    with open(f"/proc/{pid}/cmdline", "rb") as found:
        return found.read().replace(b"\0", b" ").decode()


def spare_workers(server: StreamlitServer) -> list[int]:
    """The processes of the server's fork server: the budgeted jobs' workers
    (with no visit, none has a job: they are spares)."""
    fork_servers = [pid for pid in children(server.process.pid) if "multiprocessing.forkserver" in command_line(pid)]
    return [worker for fork_server in fork_servers for worker in children(fork_server)]


def wait_for(condition, server: StreamlitServer, what: str) -> None:
    """Until `condition()` holds (a busy machine makes this slower, not
    wrong), as long as the server runs."""
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert server.process.poll() is None, f"the server exited; see {server.log}"
        assert time.monotonic() < deadline, f"no {what} within {WAIT_SECONDS} s; see {server.log}"
        time.sleep(0.2)


def test_the_server_warms_up_before_anyone_visits():
    # Nobody visits: the warm-up's second part starts once no page has been asked for in its quiet
    # time, made short here (5 s by default: what it waits for is a visitor who never comes).
    server = StreamlitServer(extra_env={"WARM_UP_QUIET_SECONDS": "0.5"})
    try:
        server.wait_until_warmed()
        log = server.log.read_text()
        done = log.split(WARMED)[1].splitlines()[0]  # what was done, and did not fail
        assert "the frame of every page" in done and f"the first pages' encoding ({FIRST_PAGES_ENCODING})" in done
        assert "the compact forms of shipped files" in done  # Gemma 3's, made (or found kept) in a worker process
        wait_for(lambda: spare_workers(server), server, "spare worker")  # the first training's, waiting
        assert "missing ScriptRunContext" not in log  # the warm-up calls none of Streamlit's caches
    finally:
        server.stop()


def test_the_first_pages_run_is_spared_streamlits_first_element_check():
    """Streamlit's first element in a process reads the whole stack's source
    (is it a REPL?): the warm-up asks first, so the first page does not."""
    script = ("import streamlit.env_util as e; from pages.common.warm_up import the_frame; "
              "the_frame(); asked = []; e.is_repl = lambda: asked.append(1) or False; "
              "import streamlit as st; st.empty(); print(len(asked))")
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.split()[-1] == "0"


def test_the_page_asked_for_first_is_warmed_while_its_browser_loads():
    """The first page's address, asked for by a browser (its HTML, before
    Streamlit's files and the websocket): the warm-up imports what the
    page imports and makes what its first view loads, before any script
    runs. No visitor comes here: the second part is held back."""
    server = StreamlitServer(extra_env={"WARM_UP_QUIET_SECONDS": "600"})
    try:
        with urllib.request.urlopen(f"{server.url}/compare?compare_special=true", timeout=WAIT_SECONDS) as response:
            assert response.status == 200
        warmed = PAGE_ASKED_FIRST % "compare" + ": its modules, its first view."
        wait_for(lambda: warmed in server.log.read_text(), server, "warmed page")
        log = server.log.read_text()
        assert "Traceback" not in log and "failed" not in log
        assert "missing ScriptRunContext" not in log  # the first view is made without Streamlit's caches
        assert WARMED not in log  # the second part waits for a page to be drawn
    finally:
        server.stop()


def asked(path: str) -> tuple[bool, str | None]:
    """What `FirstPageAsked` notes of a request for `path`, the first the server serves."""
    FirstPageAsked.asked.clear()
    FirstPageAsked.address = None
    passed = []

    async def app(scope, receive, send):
        passed.append(scope["path"])

    run_coroutine(FirstPageAsked(app)({"type": "http", "path": path}, None, None))
    assert passed == [path]  # every request passes on
    return FirstPageAsked.asked.is_set(), FirstPageAsked.address


def test_the_first_page_asked_for_is_noted_by_its_address_and_nothing_else_is():
    try:
        assert asked("/") == (True, "")
        assert asked("/compare") == (True, "compare")
        assert asked("/vocabulary/") == (True, "vocabulary")
        for not_a_page in ("/_stcore/health", "/static/js/index.js", "/favicon.png", "/nowhere", "/compare/x"):
            assert asked(not_a_page) == (False, None)
    finally:
        FirstPageAsked.asked.clear()
        FirstPageAsked.address = None


def test_what_the_warm_up_loads_for_a_first_view_is_what_each_page_loads(monkeypatch):
    """Each page's default view, run as a link opens it: the tokenizers it
    asks for are what `FIRST_VIEW_TOKENIZERS` says, no more (the warm-up would load what no page shows, for the server's
    whole life) and no fewer (the page would load it in its first run)."""
    from streamlit.components.v2 import manifest_scanner

    # Each AppTest reads the metadata of every installed package for components (a second or more):
    # what is installed does not change between the pages.
    scan_once = functools.cache(manifest_scanner.scan_component_manifests)
    monkeypatch.setattr(manifest_scanner, "scan_component_manifests", scan_once)
    loads = []
    loaded, starter = tokenizers.load_encoding, tokenizers.starter_tokenizer
    monkeypatch.setattr(tokenizers, "load_encoding", lambda name: loads.append(name) or loaded(name))
    monkeypatch.setattr(tokenizers, "starter_tokenizer", lambda: loads.append(tokenizers.STARTER) or starter())
    for page in PAGES:
        loads.clear()
        open_page_in_apptest(page.file if page.url_path else None)
        assert set(loads) == set(FIRST_VIEW_TOKENIZERS.get(page.url_path, ())), page.title


PLACEHOLDER_TEXT = "being prepared since the server started"

# Whether the page has shown a placeholder since it was loaded.
SAW_PLACEHOLDER = """
window.__placeholderSeen = false;
new MutationObserver(records => {
  for (const record of records) for (const node of record.addedNodes) {
    if (node.textContent && node.textContent.includes(%r)) window.__placeholderSeen = true;
  }
}).observe(document, {childList: true, subtree: true});
""" % PLACEHOLDER_TEXT


@pytest.mark.browser
def test_a_page_draws_what_is_still_warming_as_a_placeholder_that_fills_in(chromium):
    """The Tax page's parity experiment opened first, before the warm-up's
    second part has begun (held back here until a page is drawn; it trains
    the mix experiment first, then this one): a placeholder, the rest of the
    page drawn, and the experiment filled in when the warm-up has trained it,
    with no click. The other experiment, trained before it, is then drawn at once."""
    server = StreamlitServer(extra_env={"WARM_UP_QUIET_SECONDS": "600"})
    page = new_page(chromium)
    try:
        # The page's run draws the placeholder; on a busy machine the warm-up may have filled it in
        # before the browser is done drawing the rest, so the page records that it was ever shown.
        page.add_init_script(SAW_PLACEHOLDER)
        open_page(page, f"{server.url}/tax?tax_section=parity", "Tokenization tax")
        placeholders = page.get_by_text(PLACEHOLDER_TEXT)
        assert page.evaluate("window.__placeholderSeen")
        expect(page.get_by_text("Merges (both tokenizers)")).to_be_visible()
        expect(page.get_by_text("Training…")).to_have_count(0)  # no training in the page's run
        expect(placeholders).to_have_count(0, timeout=WAIT_SECONDS * 1000)
        expect(page.get_by_text("Both vocabularies:")).to_be_visible()
        run(page, lambda: page.locator(".st-key-tax_section_choices").get_by_role("button", name="Train your own").click())
        expect(page.get_by_text("Languages in the mix")).to_be_visible()
        expect(placeholders).to_have_count(0)
        assert_no_exception(page)
    finally:
        page.context.close()
        server.stop()
