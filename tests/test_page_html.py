"""Each page's HTML says where the server is, so a page's browser connects
at once instead of first asking under the page's own address (a 404 and a
tenth of a second's wait on every link to a page other than Home)."""

import asyncio

import pytest
from starlette.requests import Request

from pages.common import page_html
from pages.common.names import PAGES, TAX
from tests.browser import open_page, run


def served(route) -> str:
    request = Request({"type": "http", "method": "GET", "path": route.path, "headers": [], "query_string": b""})
    return asyncio.run(route.endpoint(request)).body.decode()


def test_every_page_is_served_streamlits_html_with_the_servers_address_before_its_code():
    routes = page_html.page_routes()
    assert sorted(route.path for route in routes) == sorted("/" + page.url_path for page in PAGES)
    html = served(routes[0])
    streamlits = page_html.STREAMLIT_HTML.read_text(encoding="utf-8")
    assert html.replace(page_html.server_address_script("/"), "") == streamlits
    assert html.index("window.__streamlit") < html.index('<script type="module"')


def test_the_address_is_the_apps_root_under_a_base_url_path(monkeypatch):
    real_get_option = page_html.config.get_option
    monkeypatch.setattr(page_html.config, "get_option",
                        lambda name: "/talks/bpe/" if name == "server.baseUrlPath" else real_get_option(name))
    routes = page_html.page_routes()
    assert {route.path for route in routes} >= {"/talks/bpe/", "/talks/bpe/tax"}
    assert 'new URL("/talks/bpe/", location.href)' in served(routes[0])


@pytest.mark.browser
def test_a_page_connects_at_the_apps_root_at_once_and_links_stay_there(server, page):
    asked = []
    page.on("request", lambda request: asked.append(request.url.removeprefix(server.url)))
    open_page(page, f"{server.url}/{TAX.url_path}?tax_section=cost", TAX.title)
    assert "/_stcore/health" in asked
    assert not [address for address in asked if address.startswith(f"/{TAX.url_path}/")]
    run(page, lambda: page.get_by_test_id("stSidebarNav").get_by_role("link", name="Compare").click())
    assert page.url == f"{server.url}/compare"
