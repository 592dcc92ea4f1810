"""The Tax page's atlas in a real Chromium: the world map draws with every
request to anywhere but the app refused, a click on a point opens that
language, a link restores the view, and presenter mode gives the map the
window. Screenshots at 1440×900 and, presenting, 1920×1080."""

import hashlib
import math
import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from bpe_core.analysis.atlas import DEFAULT_BASE
from bpe_core.corpora.udhr import declarations
from tests.browser import ROOT, assert_no_exception, one_tab_per_file, open_page, run, screenshot

pytestmark = pytest.mark.browser
tab, page = one_tab_per_file()

ATLAS = "tax?tax_corpus=udhr&tax_tokenizers=gpt2&tax_tokenizers=o200k_base"
TOPOJSON_SHA256 = "e1bf51740ad28396265e52123ea7315d692f112664ab2cb0f1ea76a96fe1bb0a"  # static/topojson/README.md


def offline(page, app_url: str) -> list[str]:
    """Refuse every request that is not to the app; returns the refused URLs."""
    refused = []

    def route(request_route):
        url = request_route.request.url
        if url.startswith((app_url, "data:", "blob:")):
            request_route.continue_()
        else:
            refused.append(url)
            request_route.abort()

    page.context.route("**/*", route)
    return refused


def wait_for_map(page) -> None:
    """Until plotly has drawn the map's land (from the topojson) and its points."""
    page.wait_for_function("(document.querySelector('.geo .layer.land path')?.getAttribute('d') || '').length > 1000")
    expect(page.locator(".scattergeo path.point").first).to_be_visible()


def isolated_declaration() -> str:
    """The declaration farthest from any other (its point is alone to click)."""
    about = declarations()

    def nearest(code: str) -> float:
        here = about[code]
        return min(math.dist((here.latitude, here.longitude), (there.latitude, there.longitude))
                   for other, there in about.items() if other != code)

    return max((code for code in about if code not in (DEFAULT_BASE, "hin")), key=nearest)


def click_point(page, code: str) -> None:
    """Click the map's point of declaration `code` (found by the code its point carries)."""
    index = page.evaluate(
        "code => document.querySelector('.js-plotly-plot').data[0].customdata.findIndex(c => c[0] === code)", code)
    assert index >= 0
    box = page.locator(".scattergeo").first.locator("path.point").nth(index).bounding_box()
    run(page, lambda: page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2))


def test_the_shipped_topojson_is_plotlys():
    data = (ROOT / "static" / "topojson" / "world_110m.json").read_bytes()
    assert hashlib.sha256(data).hexdigest() == TOPOJSON_SHA256


def test_the_map_draws_offline_a_click_on_a_point_opens_that_language_and_its_link_presents_it(server, page):
    """Each load of the atlas is seconds of drawing the map in the browser,
    so one load shows the map drawn from the app's own topojson with every
    other request refused, then a point is clicked; the link it leaves is
    then opened in presenter mode."""
    page.set_viewport_size({"width": 1440, "height": 900})
    refused = offline(page, server.url)
    fetched = []
    page.on("response", lambda response: fetched.append((response.url, response.status)))
    open_page(page, f"{server.url}/{ATLAS}&tax_udhr_base=deu_1996&tax_map_tokenizer=gpt2", "Tokenization tax")
    wait_for_map(page)
    assert page.locator(".scattergeo").first.locator("path.point").count() == len(declarations())
    assert (f"{server.url}/app/static/topojson/world_110m.json", 200) in fetched
    expect(page.get_by_text("The tax follows scripts")).to_be_visible()
    expect(page.locator(".bpe-table")).to_have_count(2)  # plain: the chosen language's premiums, the most taxed
    expect(page.get_by_text(f"All {len(declarations())} declarations, to sort")).to_be_visible()  # the grid, on demand
    expect(page.locator(".bpe-more")).to_have_count(2)  # each declaration's first tokens, and how many more
    expect(page.locator(".bpe-text")).to_have_count(2)
    assert_no_exception(page)
    screenshot(page, "tax-atlas-1440")

    code = isolated_declaration()
    click_point(page, code)
    name, script = declarations()[code].name, declarations()[code].script
    label = f"{name} ({code}) · {script}"
    expect(page.locator(".st-key-tax_udhr_language").get_by_role("combobox")).to_have_value(label)
    expect(page.locator('[data-testid="stMetric"]').filter(has_text=f"{name} ({code})")).to_be_visible()
    query = parse_qs(urlparse(page.url).query)
    assert query["tax_udhr_language"] == [code] and query["tax_corpus"] == ["udhr"]

    # The link, opened again (a new session) on a projector in presenter mode: the same view, the map given the window.
    page.set_viewport_size({"width": 1920, "height": 1080})
    open_page(page, f"{page.url}&present=true", "Tokenization tax")
    wait_for_map(page)
    expect(page.locator(".st-key-tax_udhr_language").get_by_role("combobox")).to_have_value(label)
    expect(page.locator(".st-key-tax_udhr_base").get_by_role("combobox")).to_have_value(
        f"{declarations()['deu_1996'].name} (deu_1996) · Latin")
    expect(page.locator(".st-key-tax_map_tokenizer").get_by_role("combobox")).to_have_value(re.compile("^gpt2"))
    expect(page.get_by_text("Under gpt2, the median declaration")).to_be_visible()
    expect(page.locator('[data-testid="stSidebar"]')).to_be_hidden()
    chart = page.locator(".st-key-tax_map").bounding_box()
    assert chart["width"] >= 0.9 * 1920 * 0.85 and chart["height"] >= 0.75 * 1080
    assert_no_exception(page)
    assert refused == []  # nothing asked for anything outside the app
    whole = screenshot(page, "tax-atlas-presenter-1920")
    page.screenshot(path=str(whole.with_name("tax-atlas-presenter-1920-fold.png")))  # the window as the room sees it
