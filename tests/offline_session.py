"""One browser session through the whole app, offline; prints a JSON report.

Run by tests/test_offline.py, inside a network namespace that has only a
loopback device when the machine allows it. The app's process loads
tests/network_guard (refuses and logs any connection leaving loopback) and
Chromium records every request it makes.
"""

import json
import os
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright

from tests.browser import CHROMIUM, CHROMIUM_ARGS, StreamlitServer, wait_for_app

PAGES = ["", "train", "inspect", "compression", "compare", "tax", "replay", "vocabulary", "quirks"]
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}
# Should anything try to resolve a name, it resolves to nowhere.
OFFLINE_ARGS = ["--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]


def main() -> None:
    log = Path(tempfile.mkstemp(prefix="bpe-network-")[1])
    guard = str(ROOT / "tests" / "network_guard")
    server = StreamlitServer(extra_env={
        "PYTHONPATH": os.pathsep.join([guard, os.environ.get("PYTHONPATH", "")]),
        "BPE_NETWORK_LOG": str(log),
    })
    requests, pages = [], {}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS + OFFLINE_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.on("request", lambda request: requests.append(request.url))
            for path in PAGES:
                page.goto(f"{server.url}/{path}")
                wait_for_app(page, timeout=120)
                if path == "train":
                    page.get_by_role("button", name="▶", exact=True).click()
                    wait_for_app(page)
                pages[path or "home"] = {
                    "exceptions": page.locator('[data-testid="stException"]').count(),
                    "title": page.locator("h1").first.inner_text() if page.locator("h1").count() else None,
                }
            browser.close()
    finally:
        server.stop()
    outside = [url for url in requests if urlparse(url).scheme in ("http", "https", "ws", "wss")
               and urlparse(url).hostname not in LOCAL_HOSTS]
    print(json.dumps({"pages": pages, "requests": len(requests), "outside": outside,
                      "server_attempts": log.read_text().splitlines()}))


if __name__ == "__main__":
    main()
