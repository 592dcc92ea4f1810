"""The partial plotly.js the charts are drawn with (static/plotly/): the file
shipped is the one described, of the plotly.js version plotly.py expects,
with every trace type the drawing code uses. Drawing in a browser:
test_browser_charts."""

import base64
import hashlib
import re

import plotly.offline

from pages.common import chart
from pages.common.names import TAX
from tests.conftest import ROOT

FOLDER = ROOT / "static" / "plotly"
BUILD = (FOLDER / "build.sh").read_text()


def test_the_shipped_bundle_is_the_one_described_and_checked_in_the_browser():
    digest = hashlib.sha256(chart.BUNDLE.read_bytes()).hexdigest()
    assert digest == chart.BUNDLE_SHA256
    assert f"SHA-256: `{digest}`" in (FOLDER / "README.md").read_text()
    assert chart.BUNDLE == FOLDER / "plotly-bpe.min.js"


def test_the_browser_is_given_the_bundles_hash_to_check():
    digest = hashlib.sha256(chart.BUNDLE.read_bytes()).digest()
    integrity = "sha256-" + base64.b64encode(digest).decode()
    assert chart.subresource_integrity(chart.BUNDLE_SHA256) == integrity
    assert f'const BUNDLE_INTEGRITY = "{integrity}";' in chart.CHART_JS
    assert "script.integrity = BUNDLE_INTEGRITY;" in chart.CHART_JS


def test_it_is_the_plotly_js_that_plotly_py_expects_under_its_mit_licence():
    banner = chart.BUNDLE.read_text()[:300]
    (built,) = re.findall(r"plotly\.js v(\d+\.\d+\.\d+)", banner)
    assert f"PLOTLYJS_VERSION={built}\n" in BUILD
    expected = plotly.offline.get_plotlyjs_version()
    assert built.split(".")[:2] == expected.split(".")[:2], (built, expected)
    licence = (FOLDER / "LICENSE").read_text()
    assert "MIT" in licence or "Permission is hereby granted, free of charge" in licence
    assert "Plotly" in licence


def test_every_trace_type_the_pages_draw_is_in_the_bundle():
    built_in = set(re.findall(r"require\('plotly\.js/lib/(\w+)'\)", BUILD)) | {"scatter"}  # scatter is in core
    code = [path.read_text() for folder in ("bpe_core", "pages") for path in (ROOT / folder).rglob("*.py")]
    drawn = {name.lower() for text in code for name in re.findall(r"\bgo\.([A-Z][a-z]+)\(", text)} - {"figure"}
    assert drawn >= {"scatter", "heatmap", "scattergeo"}  # the search finds them (bars are HTML: bars.py)
    assert drawn <= built_in, drawn - built_in


def test_a_page_without_a_chart_prefetches_plotly_for_the_chart_pages():
    """The frame of a page without a chart as it opens fetches the bundle into
    the browser's cache, not running it (its evaluation is a tenth of a second
    that page does not need); a chart page's chart loads it itself, once."""
    from pages.common.names import PAGES

    drawing = {page.file for page in PAGES if "show_figure(" in (ROOT / page.file).read_text()}
    drawing -= {TAX.file}  # its first view's bars are HTML; its heatmaps and experiments find plotly prefetched
    assert drawing and drawing == chart.CHART_PAGES
    for page in PAGES:
        script = chart.bundle_html(page)
        if page.file in drawing:
            assert script == ""
        else:
            assert script.startswith("<script>") and chart.BUNDLE_JS in script and "\nprefetchPlotly();\n" in script
            assert "loadPlotly();" not in script


def test_a_drawing_is_shipped_under_what_it_follows_from(monkeypatch):
    """A shipped drawing is shown only for the figure, chart code and theme it was drawn from."""
    data = {"spec": '{"data": []}', "config": {}, "height": 450, "selectable": False}
    key = chart.drawing_key(data)
    assert chart.drawing_key(dict(reversed(data.items()))) == key
    assert chart.drawing_key({**data, "height": 451}) != key
    assert chart.drawing_key({**data, "spec": '{"data": [{}]}'}) != key
    monkeypatch.setattr(chart, "CHART_JS", chart.CHART_JS + "\n// changed")
    assert chart.drawing_key(data) != key
    assert chart.previews() and all(svg.startswith('<svg class="main-svg"') for svg in chart.previews().values())
