"""Rebuild `pages/common/chart_previews.json`: the charts a page's first view
draws the same for every visitor, as the SVG the chart component drew them,
so the browser shows them at once and loads plotly.js once it is idle.

    python sample_corpora/build_chart_previews.py [page ...]   (default: compression)

Each page is run twice, headless: with Streamlit's AppTest, for what each
chart's drawing follows from (`pages.common.chart.drawing_key`), and in the
test suite's Chromium at 1440 x 900, where plotly.js draws it and exports it
as SVG (`Plotly.toImage`). Development only, like the other build scripts.
"""

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import expect, sync_playwright  # noqa: E402

from pages.common.chart import PREVIEWS, drawing_key  # noqa: E402
from pages.common.names import PAGES  # noqa: E402
from tests.apptest import chart_data  # noqa: E402
from tests.apptest import open_page as run_page  # noqa: E402
from tests.browser import CHROMIUM, CHROMIUM_ARGS, StreamlitServer, open_page, track_runs  # noqa: E402

DRAWN_AS_SVG = """async (chart) => {
  const svg = await window.Plotly.toImage(chart, {format: "svg", width: chart.clientWidth,
                                                  height: chart.clientHeight, imageDataOnly: true});
  return decodeURIComponent(svg);
}"""


def drawing_keys(url_path: str) -> list[str]:
    """The drawing key of each chart on the page's first view, in page order."""
    (page,) = [page for page in PAGES if page.url_path == url_path]
    return [drawing_key({name: value for name, value in data.items() if name != "preview"})
            for data in chart_data(run_page(page.file))]


def drawings(url_path: str) -> list[str]:
    """Each chart on the page's first view as SVG, drawn by plotly.js in Chromium."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        server = StreamlitServer()
        try:
            page = track_runs(browser.new_page(viewport={"width": 1440, "height": 900}))
            open_page(page, f"{server.url}/{url_path}")
            charts = page.locator(".bpe-chart")
            for chart in charts.all():
                expect(chart).to_have_attribute("data-state", "drawn")  # by plotly.js, not a preview
            return [chart.evaluate(DRAWN_AS_SVG) for chart in charts.all()]
        finally:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pages", nargs="*", default=["compression"])
    previews = {}
    for url_path in parser.parse_args().pages:
        keys, svgs = drawing_keys(url_path), drawings(url_path)
        assert len(keys) == len(svgs), (url_path, len(keys), len(svgs))
        previews.update(zip(keys, svgs))
        print(f"{url_path}: {len(svgs)} chart(s), {sum(map(len, svgs)):,} characters of SVG", file=sys.stderr)
    PREVIEWS.write_text(json.dumps(previews, indent=0) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
