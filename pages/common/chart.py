"""Plotly figures drawn in the browser by a partial plotly.js.

Streamlit's chart element loads the full plotly.js (4.7 MB) once a chart
arrives and evaluates it on every page load, cached or not: a second of the
page's main thread. This component (chart.js) draws the same figures with
plotly.js built with only the trace types the playground draws
(static/plotly/, see its README), served as a static file the browser
caches and checked against its SHA-256 as it loads.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import streamlit as st

from pages.common.names import COMPRESSION, PageInfo

if TYPE_CHECKING:
    import plotly.graph_objects as go

HERE = Path(__file__).parent
BUNDLE = HERE.parent.parent / "static" / "plotly" / "plotly-bpe.min.js"
# The bundle's SHA-256 (static/plotly/README.md): the browser refuses a file that differs.
BUNDLE_SHA256 = "abbe34a7e45bc6bd92a1f9d8637b434b02c3fc1645a6072011817b4ecac5f418"
DEFAULT_HEIGHT = 450  # plotly.js's, for a figure that sets none


def subresource_integrity(sha256_hex: str) -> str:
    """The `integrity` attribute that makes a browser check a file's SHA-256."""
    return "sha256-" + base64.b64encode(bytes.fromhex(sha256_hex)).decode("ascii")


BUNDLE_JS = (HERE / "chart_bundle.js").read_text().replace("__BUNDLE_INTEGRITY__", subresource_integrity(BUNDLE_SHA256))
CHART_JS = BUNDLE_JS + "\n" + (HERE / "chart.js").read_text()

# The pages that draw a chart as they open. Their frame starts loading the
# bundle with the page's first elements (`bundle_html`): its download and its
# evaluation (a tenth to a quarter of a second of the main thread) then
# overlap the server's run of the page instead of following the chart's arrival.
CHART_PAGES = frozenset(page.file for page in (COMPRESSION,))

_CHART = st.components.v2.component(
    "bpe_playground.chart",
    html='<div class="bpe-chart" data-state="loading"></div>',  # drawn: chart.js
    css=(HERE / "chart.css").read_text(),
    js=CHART_JS,
    isolate_styles=False,  # plotly.js styles its charts with rules it adds to the page's head
)


def bundle_html(page: PageInfo) -> str:
    """A script for the frame of `page` (st.html with JavaScript allowed):
    on a page with charts, start loading plotly.js now; on any other, only
    fetch it into the browser's cache while the network is idle, for the
    chart pages visited next."""
    start = "loadPlotly();" if page.file in CHART_PAGES else "prefetchPlotly();"
    return f"<script>(() => {{\n{BUNDLE_JS}\n{start}\n}})();</script>"


def plotly_figure(figure: "go.Figure", *, key: str | None = None, config: dict | None = None,
                  on_select: Callable[[], None] | None = None) -> None:
    """Draw `figure` across the column's width; with `on_select`, a click on a
    point calls it, with the point in `st.session_state[key]["selection"]`
    (as st.plotly_chart's selection: `points`, each with its `customdata`)."""
    import plotly.io

    data = {
        "spec": plotly.io.to_json(figure, validate=False),
        "config": config or {},
        "height": figure.layout.height or DEFAULT_HEIGHT,
        "selectable": on_select is not None,
    }
    callbacks = {"on_selection_change": on_select} if on_select is not None else {}
    _CHART(data=data, key=key, **callbacks)
