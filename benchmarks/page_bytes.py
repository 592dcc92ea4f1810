"""What a page's first load sends the browser over Streamlit's websocket:
bytes, frames, and the HTML in them (st.html and st.markdown bodies, the
token views' markup), for each page, against the same page of other code
(`--before PATH`, a checkout of the code before a change) served in the
same run.

    python benchmarks/page_bytes.py [--pages home algorithms tax "tax?tax_corpus=udhr"] [--before ../main]

Every byte the server sends is one the browser receives, parses and, for
HTML, sanitizes and lays out: a count that a busy machine does not change,
so it needs no bare app to be compared with, only the code before.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from playwright.sync_api import sync_playwright
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.measure import load_average  # noqa: E402
from pages.common.names import PAGES  # noqa: E402
from tests.browser import CHROMIUM, CHROMIUM_ARGS, StreamlitServer, new_page, run  # noqa: E402


def sent(browser, url: str) -> Counter:
    """What loading `url` in a fresh session brings over the websocket until
    the page is fully drawn: "bytes" and "frames", and "html" (the bodies
    of HTML and Markdown elements, in UTF-8 bytes) and "elements" (their number)."""
    totals: Counter = Counter()

    def on_frame(payload) -> None:
        if not isinstance(payload, bytes):
            return
        totals["bytes"] += len(payload)
        totals["frames"] += 1
        message = ForwardMsg()
        message.ParseFromString(payload)
        if message.WhichOneof("type") != "delta" or message.delta.WhichOneof("type") != "new_element":
            return
        element = message.delta.new_element
        kind = element.WhichOneof("type")
        if kind in ("html", "markdown"):
            totals["html"] += len(getattr(element, kind).body.encode("utf-8"))
            totals["elements"] += 1

    page = new_page(browser)
    page.on("websocket", lambda websocket: websocket.on("framereceived", on_frame))
    run(page, lambda: page.goto(url))
    page.context.close()
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, metavar="PATH", help="another checkout of the app, measured beside it")
    parser.add_argument("--pages", nargs="+", metavar="PATH",
                        help="only these pages, by address (Home as home), each with a query string if wanted "
                        "(tax?tax_corpus=udhr: the atlas); every page by default")
    args = parser.parse_args()
    addresses = {page.url_path or "home": page.title for page in PAGES}
    if unknown := [path for path in args.pages or () if path.split("?")[0] not in addresses]:
        parser.error(f"no page at {', '.join(unknown)}")
    pages = {path: addresses[path.split("?")[0]] + ("?" + path.split("?", 1)[1] if "?" in path else "")
             for path in args.pages or addresses}  # address -> what to call it
    checkouts = {"ours": ROOT, **({"before": args.before.resolve()} if args.before else {})}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        servers = {label: StreamlitServer(app_dir=app_dir) for label, app_dir in checkouts.items()}
        try:
            print(f"A page's first load in a fresh session: websocket bytes (frames), of which HTML "
                  f"(elements), (load average {load_average()})")
            for path, title in pages.items():
                address = "" if path == "home" else path.removeprefix("home")
                counts = {label: sent(browser, f"{server.url}/{address}") for label, server in servers.items()}
                line = "; ".join(
                    f"{label} {count['bytes'] / 1000:,.1f} KB ({count['frames']}), HTML {count['html'] / 1000:,.1f} KB "
                    f"({count['elements']})" for label, count in counts.items())
                if "before" in counts:
                    line += (f"; ours/before: bytes {counts['ours']['bytes'] / counts['before']['bytes']:.2f}x, "
                             f"HTML {counts['ours']['html'] / max(counts['before']['html'], 1):.2f}x")
                print(f"  {title:<17} {line}", flush=True)
        finally:
            for server in servers.values():
                server.stop()
        browser.close()


if __name__ == "__main__":
    main()
