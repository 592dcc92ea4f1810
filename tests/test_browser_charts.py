"""Charts in a real Chromium: drawn by the partial plotly.js the app serves
from static/plotly/ (never Streamlit's full plotly.js), with the traces the
figure has, across the column's width, following it as it changes; text from
a figure (tokens, names) is drawn as text, in ticks and in hover labels.
Compare's bars are HTML: no plotly.js there.
A click on the Tax map choosing a language: test_browser_atlas."""

import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser import ROOT, StreamlitServer, assert_no_exception, new_page, open_page, open_popover, run, screenshot

pytestmark = pytest.mark.browser

BUNDLE = "/app/static/plotly/plotly-bpe.min.js"
PAYLOAD = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script><b id="injected">b</b>'


def requested(page) -> list[str]:
    """Start recording the page's requests; returns the live list."""
    urls = []
    page.on("request", lambda request: urls.append(request.url))
    return urls


STATES = """window.__chartStates = [];
new MutationObserver((changes) => { for (const change of changes) window.__chartStates.push(change.target.dataset.state); })
  .observe(document, {attributes: true, subtree: true, attributeFilter: ["data-state"]});"""


def test_compression_draws_its_chart_with_the_partial_plotly(server, page):
    """Its first view's chart is shown drawn as it comes (shipped SVG), then
    drawn again by plotly.js once the page has drawn, for hover labels."""
    urls = requested(page)
    page.add_init_script(STATES)
    open_page(page, f"{server.url}/compression", "Compression")
    chart = page.locator(".bpe-chart")
    expect(chart).to_have_attribute("data-state", "drawn")
    assert page.evaluate("window.__chartStates") == ["preview", "drawn"]  # never "loading": shown at once
    expect(chart.locator(".scatterlayer .trace")).to_have_count(10)  # 3 corpora x (2 lines + markers) + names
    expect(chart.locator(".legend .traces")).to_have_count(3)  # a corpus each
    assert chart.locator(".xtick").all_text_contents()[:3] == ["300", "1k", "3k"]  # log axis, readable ticks
    assert [url for url in urls if url.endswith(BUNDLE)] == [f"{server.url}{BUNDLE}"]  # once, from the app
    assert not [url for url in urls if "PlotlyChart" in url]  # Streamlit's full plotly.js is never fetched
    column = page.locator('[data-testid="stVerticalBlock"]').filter(has=chart).last.bounding_box()
    assert chart.bounding_box()["width"] >= 0.95 * column["width"]
    gpt2 = chart.locator(".scatterlayer .trace").nth(2).locator(".point").first  # English prose's markers
    box = gpt2.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(chart.locator(".hoverlayer .hovertext")).to_contain_text("gpt2")
    assert_no_exception(page)
    screenshot(page, "compression-chart")


# Counts the ResizeObservers watching a chart that are still connected.
OBSERVERS = """window.__chartObservers = 0;
const NativeResizeObserver = window.ResizeObserver;
window.ResizeObserver = class extends NativeResizeObserver {
  observe(target, options) {
    if (target.classList?.contains("bpe-chart")) { this.watched = (this.watched || 0) + 1; window.__chartObservers++; }
    return super.observe(target, options);
  }
  disconnect() { window.__chartObservers -= this.watched || 0; this.watched = 0; return super.disconnect(); }
};"""


def test_a_rerun_keeps_the_drawn_chart_as_the_visitor_left_it(server, page):
    """A rerun that leaves the figure as it was (opening the numbers) leaves
    the chart drawn by plotly.js: not the shipped drawing again, not drawn
    again (a corpus hidden from the legend stays hidden), one observer of its width."""
    page.add_init_script(STATES + OBSERVERS)
    open_page(page, f"{server.url}/compression", "Compression")
    chart = page.locator(".bpe-chart")
    expect(chart).to_have_attribute("data-state", "drawn")
    hidden = chart.locator(".legend .traces").first
    hidden.locator(".legendtoggle").click()
    expect(hidden).to_have_css("opacity", "0.5")  # plotly.js: the corpus's lines hidden
    expect(chart.locator(".scatterlayer .trace")).to_have_count(7)
    assert page.evaluate("window.__chartObservers") == 1
    numbers = page.get_by_test_id("stPopoverButton").filter(has_text="The numbers")
    run(page, lambda: open_popover(page, numbers))  # a rerun: the popover's table is drawn once open
    expect(page.locator('[data-testid="stPopoverBody"] [data-testid="stDataFrame"]')).to_be_visible()
    run(page, lambda: page.keyboard.press("Escape"))  # and another as it closes
    expect(numbers).to_have_attribute("aria-expanded", "false")
    page.evaluate("() => new Promise(done => requestIdleCallback(done, {timeout: 3000}))")  # a redraw would start by now
    assert page.evaluate("window.__chartStates") == ["preview", "drawn"]
    assert page.evaluate("window.__chartObservers") == 1
    expect(chart).to_have_attribute("data-state", "drawn")
    expect(chart.locator(".legend .traces")).to_have_count(3)
    expect(chart.locator(".legend .traces").first).to_have_css("opacity", "0.5")
    expect(chart.locator(".scatterlayer .trace")).to_have_count(7)  # the hidden corpus's lines and markers are not drawn
    assert_no_exception(page)


def test_a_browser_without_idle_callbacks_draws_the_chart(server, page):
    """Safari has no requestIdleCallback: the shipped drawing is still drawn again by plotly.js."""
    page.add_init_script("delete window.requestIdleCallback; delete window.cancelIdleCallback;" + STATES)
    open_page(page, f"{server.url}/compression", "Compression")
    chart = page.locator(".bpe-chart")
    expect(chart).to_have_attribute("data-state", "drawn")
    assert page.evaluate("window.__chartStates") == ["preview", "drawn"]
    expect(chart.locator(".scatterlayer .trace")).to_have_count(10)
    assert_no_exception(page)


def test_compare_draws_its_bars_without_plotly(server, page):
    urls = requested(page)
    names = ["gpt2", "cl100k_base", "o200k_base"]
    open_page(page, f"{server.url}/compare?" + "&".join(f"compare_tokenizers={name}" for name in names), "Compare")
    bars = page.locator(".bpe-bars .bpe-bar")
    expect(bars).to_have_count(len(names))
    assert page.locator(".bpe-bars-names span").all_text_contents() == names
    heights = [bar.locator(".bpe-bar-fill").bounding_box()["height"] for bar in bars.all()]
    values = [int(text.replace(",", "")) for text in page.locator(".bpe-bar-value").all_text_contents()]
    assert heights == sorted(heights, reverse=True) and values == sorted(values, reverse=True)  # gpt2 needs most
    assert abs(heights[2] / heights[0] - values[2] / values[0]) < 0.02  # as high as their counts
    assert page.evaluate("window.Plotly === undefined && !window.bpePlotly")  # plotly.js is not run here ...
    assert not [url for url in urls if "PlotlyChart" in url]  # ... only fetched for the chart pages next
    assert_no_exception(page)


def test_a_chart_follows_its_columns_width(server, page):
    open_page(page, f"{server.url}/compression", "Compression")
    chart = page.locator(".bpe-chart")
    expect(chart).to_have_attribute("data-state", "drawn")
    expect(chart.locator(".scatterlayer .trace").first).to_be_visible()
    wide = chart.locator(".main-svg").first.bounding_box()["width"]
    page.set_viewport_size({"width": 900, "height": 1000})
    page.wait_for_function("width => document.querySelector('.bpe-chart .main-svg').getBoundingClientRect().width "
                           "< width - 100", arg=wide)
    column = chart.bounding_box()["width"]
    svg = chart.locator(".main-svg").first.bounding_box()["width"]
    assert abs(svg - column) <= 2


def one_chart_app(folder: Path, figures: str, bundle: bytes | None = None) -> StreamlitServer:
    """An app in `folder` drawing `figures` (Python lines) with the app's
    chart component and static files (or, with `bundle`, another plotly.js)."""
    (folder / ".streamlit").mkdir()
    shutil.copy(ROOT / ".streamlit" / "config.toml", folder / ".streamlit" / "config.toml")
    if bundle is None:
        (folder / "static").symlink_to(ROOT / "static")
    else:
        (folder / "static" / "plotly").mkdir(parents=True)
        (folder / "static" / "plotly" / "plotly-bpe.min.js").write_bytes(bundle)
    (folder / "app.py").write_text(f"""
import html, sys
sys.path.insert(0, {str(ROOT)!r})
import plotly.graph_objects as go
import streamlit as st
from pages.common.chart import plotly_figure

PAYLOAD = {PAYLOAD!r}
st.title("One chart")
{figures}
""")
    return StreamlitServer(app_dir=folder)


@pytest.fixture(scope="module")
def hostile_chart(tmp_path_factory):
    """One chart whose hover texts and one whose tick labels are hostile
    text, once raw and once escaped (as the drawing code passes user text)."""
    app = one_chart_app(tmp_path_factory.mktemp("hostile_chart"), """
names = [PAYLOAD, html.escape(PAYLOAD)]
plotly_figure(go.Figure(go.Scatter(x=["raw", "escaped"], y=[3, 2], mode="markers", marker_size=30, hovertext=names,
                                    hoverinfo="text")), key="hover")
plotly_figure(go.Figure(go.Scatter(x=names, y=[3, 2])), key="ticks")
""")
    yield app
    app.stop()


def test_hostile_text_in_a_figure_is_drawn_as_text(hostile_chart, browser):
    page = new_page(browser)
    page.dialogs = []
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    open_page(page, hostile_chart.url, "One chart")
    ticks, hover = page.locator(".st-key-ticks .bpe-chart"), page.locator(".st-key-hover .bpe-chart")
    expect(ticks.locator(".xtick")).to_have_count(2)
    expect(ticks.locator(".xtick").nth(1)).to_contain_text("<img src=x onerror=")  # escaped: shown
    for point in range(2):
        box = hover.locator(".scatterlayer .point").nth(point).bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        expect(hover.locator(".hoverlayer .hovertext")).to_be_visible()
    expect(hover.locator(".hoverlayer .hovertext")).to_contain_text("<script>window.__xss=2</script>")
    assert page.evaluate("window.__xss") is None
    assert page.locator("#injected, img[src='x']").count() == 0
    assert page.dialogs == []
    assert_no_exception(page)
    page.context.close()



def test_a_changed_plotly_js_is_refused_and_the_chart_says_so(browser, tmp_path):
    """The browser checks the bundle against the SHA-256 the app ships with it."""
    tampered = (ROOT / "static" / "plotly" / "plotly-bpe.min.js").read_bytes() + b"\nwindow.__tampered = 1;\n"
    app = one_chart_app(tmp_path, 'plotly_figure(go.Figure(go.Scatter(x=["a"], y=[1])), key="chart")', bundle=tampered)
    try:
        page = new_page(browser)
        open_page(page, app.url, "One chart")
        chart = page.locator(".bpe-chart")
        expect(chart).to_have_attribute("data-state", "failed")
        expect(chart).to_contain_text("plotly.js could not be loaded")
        assert page.evaluate("window.__tampered") is None
        page.context.close()
    finally:
        app.stop()
