"""Plotly figures drawn in the browser by a partial plotly.js.

Streamlit's chart element loads the full plotly.js (4.7 MB) once a chart
arrives and evaluates it on every page load, cached or not: a second of the
page's main thread. This component (chart.js) draws the same figures with
plotly.js built with only the trace types the playground draws
(static/plotly/, see its README), served as a static file the browser
caches and checked against its SHA-256 as it loads.

A figure drawn the same for every visitor (the Compression page's default
chart) can have its drawing shipped as SVG (`chart_previews.json`, made by
sample_corpora/build_chart_previews.py from what this component draws): the
browser shows it at once, and plotly.js, which costs a page a fifth of a
second of its main thread to load and draw, takes over once the page has
drawn and the browser is idle (hover labels, a legend that hides lines).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import tomllib
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
PREVIEWS = HERE / "chart_previews.json"  # drawn figures as SVG, by `drawing_key`
# The app's theme: its colours and font are the chart's (the rest of the settings are not).
THEME = tomllib.loads((HERE.parent.parent / ".streamlit" / "config.toml").read_text(encoding="utf-8")).get("theme", {})


def subresource_integrity(sha256_hex: str) -> str:
    """The `integrity` attribute that makes a browser check a file's SHA-256."""
    return "sha256-" + base64.b64encode(bytes.fromhex(sha256_hex)).decode("ascii")


BUNDLE_JS = (HERE / "chart_bundle.js").read_text().replace("__BUNDLE_INTEGRITY__", subresource_integrity(BUNDLE_SHA256))
CHART_JS = BUNDLE_JS + "\n" + (HERE / "chart.js").read_text()

# The pages that draw a chart as they open. Their chart loads the bundle as it
# draws, or once the page has drawn when it comes drawn (`previews`): their
# frame neither starts nor prefetches it (`bundle_html`), which would fetch
# it twice or run it while the page still draws.
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
    on a page without charts as it opens, fetch plotly.js into the browser's
    cache while the network is idle, for the chart pages visited next; on a
    chart page, nothing (`CHART_PAGES`)."""
    if page.file in CHART_PAGES:
        return ""
    return f"<script>(() => {{\n{BUNDLE_JS}\nprefetchPlotly();\n}})();</script>"


def drawing_key(data: dict) -> str:
    """What a figure's drawing follows from: its data for this component,
    the component's code (with the bundle's hash) and the app's theme."""
    told = json.dumps(data, sort_keys=True) + CHART_JS + json.dumps(THEME, sort_keys=True)
    return hashlib.sha256(told.encode("utf-8")).hexdigest()


@functools.cache
def previews() -> dict[str, str]:
    """The shipped drawings (SVG) by `drawing_key`; none when the file is missing."""
    try:
        return json.loads(PREVIEWS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def plotly_figure(figure: "go.Figure", *, key: str | None = None, config: dict | None = None,
                  on_select: Callable[[], None] | None = None) -> None:
    """Draw `figure` across the column's width; with `on_select`, a click on a
    point calls it, with the point in `st.session_state[key]["selection"]`
    (as st.plotly_chart's selection: `points`, each with its `customdata`).
    A figure whose drawing is shipped is shown as it first (`previews`)."""
    import plotly.io

    data = {
        "spec": plotly.io.to_json(figure, validate=False),
        "config": config or {},
        "height": figure.layout.height or DEFAULT_HEIGHT,
        "selectable": on_select is not None,
    }
    data["preview"] = previews().get(drawing_key(data))
    callbacks = {"on_selection_change": on_select} if on_select is not None else {}
    # As JSON bytes: Streamlit checks each value of a dict for a data frame, which imports pandas and
    # pyarrow (half a second of the run that first draws a chart, on a first visit after a start).
    _CHART(data=json.dumps(data).encode("utf-8"), key=key, **callbacks)
