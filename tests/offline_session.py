"""One browser session through the whole app, offline; prints a JSON report.

Run by tests/test_offline.py, inside a network namespace that has only a
loopback device when the machine allows it. The app's process loads
tests/network_guard (refuses and logs any connection leaving loopback) and
Chromium records every request it makes.
"""

import json
import os
import re
import sys
import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import expect, sync_playwright

from pages.common.names import HOME, PAGES
from tests.browser import CHROMIUM, CHROMIUM_ARGS, WAIT_SECONDS, StreamlitServer, open_page, run, track_runs

LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}
# Should anything try to resolve a name, it resolves to nowhere.
OFFLINE_ARGS = ["--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]


def main() -> None:
    log = Path(tempfile.mkstemp(prefix="bpe-network-")[1])
    guard = str(ROOT / "tests" / "network_guard")
    requests, pages = [], {}
    # The server starts (until it answers) in a thread while Chromium starts here: neither waits for the other.
    with ThreadPoolExecutor(1) as starting:
        server_started = starting.submit(StreamlitServer, extra_env={
            "PYTHONPATH": os.pathsep.join([guard, os.environ.get("PYTHONPATH", "")]),
            "BPE_NETWORK_LOG": str(log),
        })
        try:
            browse(server_started, requests, pages)
        finally:
            server_started.result().stop()
    outside = [url for url in requests if urlparse(url).scheme in ("http", "https", "ws", "wss")
               and urlparse(url).hostname not in LOCAL_HOSTS]
    print(json.dumps({"pages": pages, "requests": len(requests), "outside": outside,
                      "server_attempts": log.read_text().splitlines()}))


def browse(server_started: Future, requests: list[str], pages: dict[str, dict]) -> None:
    """Every page in one tab, recording every request the browser makes and
    what each page shows: the first opened by its address, the others by
    their links in the navigation, as a visitor goes (what a page asks for
    of its own, its scripts, charts and maps, is asked for either way; a
    load by address would only fetch Streamlit's own files again)."""
    with sync_playwright() as playwright:
        expect.set_options(timeout=WAIT_SECONDS * 1000)
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS + OFFLINE_ARGS)
        page = track_runs(browser.new_page(viewport={"width": 1400, "height": 1000}))
        page.set_default_timeout(WAIT_SECONDS * 1000)
        page.on("request", lambda request: requests.append(request.url))
        server = server_started.result()
        for info in PAGES:
            title = "BPE playground" if info is HOME else info.title
            if info is PAGES[0]:
                open_page(page, f"{server.url}/{info.url_path}", title)
            else:
                link = page.get_by_test_id("stSidebarNavLink").filter(has_text=re.compile(f"{re.escape(info.title)}$"))
                run(page, link.click)
                expect(page.locator("h1").first).to_have_text(title)
            if info.url_path == "train":
                page.get_by_role("button", name="Next step").click()
                expect(page.locator(".trn-heading")).to_contain_text("Merge 1 of")
            pages[info.url_path or "home"] = {
                "exceptions": page.locator('[data-testid="stException"]').count(),
                "title": page.locator("h1").first.inner_text(),
            }
        browser.close()


if __name__ == "__main__":
    main()
