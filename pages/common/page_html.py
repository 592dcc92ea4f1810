"""Each page's HTML with the server's address written in, so that a page's
browser connects at once.

Streamlit's browser code does not know where its server is; it guesses from
the page's address. On a page such as /tax it first asks
/tax/_stcore/health, is told 404 (a page is not a server), waits a tenth of
a second and asks the app's root: every link to a page other than Home
paid 0.1 to 0.2 s for the guess before its websocket opened. Streamlit
reads `window.__streamlit.BACKEND_BASE_URL` (meant for hosting the app
elsewhere) before it guesses, so the HTML served here for those pages sets
it to the folder the page is in: the app's root, whatever prefix a proxy
or `server.baseUrlPath` puts before it. Home is the root itself, and its
browser's first guess is right. The HTML is otherwise Streamlit's own:
app.py's `st.App` serves these routes before its static files.
"""

from __future__ import annotations

from pathlib import Path

import streamlit
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route
from streamlit import config

from pages.common.names import PAGES

STREAMLIT_HTML = Path(streamlit.__file__).parent / "static" / "index.html"
HEAD = "<head>"
SERVER_ADDRESS = '<script>window.__streamlit = {BACKEND_BASE_URL: new URL(".", location.href).href}</script>'


def page_routes() -> list[Route]:
    """A route for every page but Home serving Streamlit's HTML with the
    server's address in it; none if Streamlit's HTML has no head to put it
    in (Streamlit then serves its own, and its browser code guesses as
    before)."""
    html = STREAMLIT_HTML.read_text(encoding="utf-8")
    if HEAD not in html:
        return []
    html = html.replace(HEAD, HEAD + SERVER_ADDRESS, 1)

    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(html, headers={"Cache-Control": "no-cache"})  # as Streamlit serves its HTML

    return [Route(app_root() + info.url_path, page, methods=["GET", "HEAD"]) for info in PAGES if info.url_path]


def app_root() -> str:
    """The path of the app's root on this server: "/", or "/talks/bpe/"
    under `server.baseUrlPath`."""
    base = config.get_option("server.baseUrlPath").strip("/")
    return f"/{base}/" if base else "/"


def page_at(path: str) -> str | None:
    """The `url_path` of the page a request for `path` asks for ("" for
    Home), or None when it is not a page."""
    root = app_root()
    if not (path + "/").startswith(root):
        return None
    address = path[len(root):].strip("/")
    return address if address in {info.url_path for info in PAGES} else None
