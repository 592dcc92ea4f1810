"""Each page's HTML says where the server is, so a page's browser connects
at once instead of first asking under the page's own address (a 404 and a
tenth of a second's wait on every link to a page other than Home)."""

import pytest
from starlette.requests import Request

from pages.common import page_html
from pages.common.names import PAGES, TAX
from tests.browser import open_page, run, run_coroutine


def served(route) -> str:
    request = Request({"type": "http", "method": "GET", "path": route.path, "headers": [], "query_string": b""})
    return run_coroutine(route.endpoint(request)).body.decode()


@pytest.fixture
def base_url_path(monkeypatch):
    """`server.baseUrlPath` set to "talks/bpe" (the app served under /talks/bpe/)."""
    real_get_option = page_html.config.get_option
    monkeypatch.setattr(page_html.config, "get_option",
                        lambda name: "talks/bpe" if name == "server.baseUrlPath" else real_get_option(name))


def test_every_page_but_home_is_served_streamlits_html_with_the_servers_address_before_its_code():
    routes = page_html.page_routes()
    assert sorted(route.path for route in routes) == sorted("/" + page.url_path for page in PAGES if page.url_path)
    html = served(routes[0])
    assert html.replace(page_html.SERVER_ADDRESS, "") == page_html.STREAMLIT_HTML.read_text(encoding="utf-8")
    assert html.index("window.__streamlit") < html.index('<script type="module"')


@pytest.mark.usefixtures("base_url_path")
def test_under_a_base_url_path_the_pages_are_served_under_it():
    assert {route.path for route in page_html.page_routes()} >= {"/talks/bpe/tax", "/talks/bpe/compare"}


def test_a_request_is_read_as_a_page_by_its_address():
    assert [page_html.page_at(path) for path in ("/", "/compare", "/vocabulary/")] == ["", "compare", "vocabulary"]
    for not_a_page in ("/_stcore/health", "/static/js/index.js", "/favicon.png", "/nowhere", "/compare/x"):
        assert page_html.page_at(not_a_page) is None


@pytest.mark.usefixtures("base_url_path")
def test_under_a_base_url_path_a_request_is_read_as_a_page_below_it():
    assert [page_html.page_at(path) for path in ("/talks/bpe", "/talks/bpe/", "/talks/bpe/tax")] == ["", "", "tax"]
    assert page_html.page_at("/tax") is None and page_html.page_at("/talks/bpex/tax") is None


@pytest.mark.browser
def test_a_page_connects_at_the_apps_root_at_once_and_links_stay_there(server, page):
    asked = []
    page.on("request", lambda request: asked.append(request.url.removeprefix(server.url)))
    open_page(page, f"{server.url}/{TAX.url_path}?tax_section=cost", TAX.title)
    assert "/_stcore/health" in asked
    assert not [address for address in asked if address.startswith(f"/{TAX.url_path}/")]
    run(page, lambda: page.get_by_test_id("stSidebarNav").get_by_role("link", name="Compare").click())
    assert page.url == f"{server.url}/compare"
