"""Each page's HTML with the server's address written in, so that a page's
browser connects at once.

Streamlit's browser code does not know where its server is; it guesses from
the page's address. On a page such as /tax it first asks
/tax/_stcore/health, is told 404 (a page is not a server), waits a tenth of
a second and asks the app's root: every link to a page other than Home
paid 0.1 to 0.2 s for the guess before its websocket opened. Streamlit
reads `window.__streamlit.BACKEND_BASE_URL` (meant for hosting the app
elsewhere) before it guesses, so the HTML served here sets it to the app's
root, and a page connects as Home does. The HTML is otherwise Streamlit's
own: app.py's `st.App` serves these routes before its static files.
"""

from __future__ import annotations

import json
from pathlib import Path

import streamlit
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route
from streamlit import config

from pages.common.names import PAGES

STREAMLIT_HTML = Path(streamlit.__file__).parent / "static" / "index.html"
HEAD = "<head>"


def page_routes() -> list[Route]:
    """A route for every page's address serving Streamlit's HTML with the
    server's address in it; none if Streamlit's HTML has no head to put it in
    (Streamlit then serves its own, and its browser code guesses as before)."""
    base = config.get_option("server.baseUrlPath").strip("/")
    root = f"/{base}/" if base else "/"
    html = STREAMLIT_HTML.read_text(encoding="utf-8")
    if HEAD not in html:
        return []
    html = html.replace(HEAD, HEAD + server_address_script(root), 1)

    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(html, headers={"Cache-Control": "no-cache"})  # as Streamlit serves its HTML

    return [Route(root + page_info.url_path, page, methods=["GET", "HEAD"]) for page_info in PAGES]


def server_address_script(root: str) -> str:
    """The script telling Streamlit's browser code that its server is at
    `root` of the page's own origin (whatever name the page was reached by)."""
    return f"<script>window.__streamlit = {{BACKEND_BASE_URL: new URL({json.dumps(root)}, location.href).href}}</script>"
