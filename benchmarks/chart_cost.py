"""What a chart costs the browser, in measures that depend little on how busy
the machine is: the plotly.js code each chart page fetches, and the long
tasks (over 50 ms of the main thread) while it loads, in headless Chromium.

    python benchmarks/chart_cost.py [--pages compression tax ...] [--loads 2]

Each page is loaded `--loads` times in one browser context: the first with an
empty cache, the later ones with what the first cached (a second visit). For
each load: the plotly.js files fetched (bytes over the network, 0 when the
cache served them), the longest task and the long tasks' total, and the time
to fully drawn (Streamlit's script finished, no element still loading, and
every chart's SVG drawn). Against the bare Streamlit app in the same run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.measure import load_average
from benchmarks.page_speed import BARE_APP
from tests.browser import CHROMIUM, CHROMIUM_ARGS, StreamlitServer, run, track_runs

CHART_PAGES = ["compression"]  # Compare, Algorithms, Vocabulary and Tax draw their bars as HTML

OBSERVE = """
window.__longTasks = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__longTasks.push(entry.duration);
}).observe({type: "longtask", buffered: true});
"""

MEASURED = """() => ({
  longTasks: window.__longTasks,
  plotly: performance.getEntriesByType("resource")
    .filter((entry) => /plotly/i.test(entry.name))
    .map((entry) => ({name: entry.name.split("/").pop(), transferred: entry.transferSize,
                      size: entry.decodedBodySize, start: entry.startTime, end: entry.responseEnd})),
})"""

# Every chart on the page has drawn its SVG (plotly's main-svg), whichever element drew it.
CHARTS_DRAWN = """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"], .bpe-chart')]
  .every((chart) => chart.querySelector(".main-svg"))"""


def load(context, url: str) -> dict:
    page = track_runs(context.new_page())
    page.set_default_timeout(300_000)
    page.add_init_script(OBSERVE)
    started = time.perf_counter()
    run(page, lambda: page.goto(url))
    page.wait_for_function(CHARTS_DRAWN)
    drawn = time.perf_counter() - started
    measured = page.evaluate(MEASURED)
    page.close()
    return {"drawn": drawn, **measured}


def describe(name: str, loads: list[dict]) -> str:
    lines = []
    for number, measured in enumerate(loads, 1):
        tasks = measured["longTasks"]
        files = ", ".join(f"{entry['name']} {entry['size'] / 1e6:.2f} MB ({entry['transferred'] / 1e6:.2f} MB sent)"
                          for entry in measured["plotly"]) or "none"
        lines.append(f"  {name:<12} load {number}: drawn {measured['drawn']:.2f} s; longest task "
                     f"{max(tasks, default=0):.0f} ms, long tasks {sum(tasks):.0f} ms in {len(tasks)}; plotly: {files}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", nargs="+", default=CHART_PAGES)
    parser.add_argument("--loads", type=int, default=2)
    parser.add_argument("--json", type=Path, help="also write every measure here")
    args = parser.parse_args()
    results: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        (Path(folder) / "app.py").write_text(BARE_APP)
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for label, app_dir, pages in (("bare", Path(folder), [""]), ("app", ROOT, args.pages)):
            server = StreamlitServer(app_dir=app_dir)
            url = server.url
            try:
                for name in pages:
                    context = browser.new_context(viewport={"width": 1400, "height": 1000})
                    load(context, f"{url}/{name}")  # the server's first run of the page is not what is measured
                    context.close()
                    context = browser.new_context(viewport={"width": 1400, "height": 1000})
                    results[name or label] = [load(context, f"{url}/{name}") for _ in range(args.loads)]
                    context.close()
                    print(describe(name or label, results[name or label]), flush=True)
            finally:
                server.stop()
    print(f"load average at the end: {load_average()}")
    drawn = {name: statistics.median(measured["drawn"] for measured in loads) for name, loads in results.items()}
    print("median drawn over the loads: " + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in drawn.items()))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
