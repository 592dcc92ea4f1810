"""The warm-up at server start (pages/common/warm_up.py): a server started
as README says, `streamlit run app.py`, does what depends on no visitor
before anyone visits; a page that needs something still warming draws a
placeholder that fills in."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from playwright.sync_api import expect

from pages.common.warm_up import WARMED
from tests.browser import ROOT, WAIT_SECONDS, StreamlitServer, assert_no_exception, new_page, open_page, run

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
    server = StreamlitServer()
    try:
        server.wait_until_warmed()
        log = server.log.read_text()
        assert "what the first page needs (cl100k_base)" in log.split(WARMED)[1].splitlines()[0]  # done, not failed
        wait_for(lambda: spare_workers(server), server, "spare worker")  # the first training's, waiting
        assert "missing ScriptRunContext" not in log  # the warm-up's own use of the caches is not a warning
    finally:
        server.stop()


def test_the_first_pages_run_is_spared_streamlits_first_element_check():
    """Streamlit's first element in a process reads the whole stack's source
    (is it a REPL?): the warm-up asks first, so the first page does not."""
    script = ("import streamlit.env_util as e; from pages.common.warm_up import what_the_first_page_needs; "
              "what_the_first_page_needs(); asked = []; e.is_repl = lambda: asked.append(1) or False; "
              "import streamlit as st; st.empty(); print(len(asked))")
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.split()[-1] == "0"


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
