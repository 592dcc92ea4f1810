"""Helpers for driving the pages with Streamlit's AppTest."""

from __future__ import annotations

import functools
import html
import re
from html.parser import HTMLParser
from typing import NamedTuple

import pandas as pd
from streamlit.proto.Block_pb2 import Block as BlockProto
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT


def _scan_installed_components_once() -> None:
    """Each new AppTest asks every installed package whether it ships a
    Streamlit component, reading all their metadata again (a third of a
    second or more per AppTest, most of a page test's time). A server asks
    once, when it starts; so does a test process: the packages installed
    do not change while the tests run."""
    from streamlit.components.v2 import manifest_scanner

    manifest_scanner.scan_component_manifests = functools.cache(manifest_scanner.scan_component_manifests)


_scan_installed_components_once()


def open_page(path: str | None = None, *, query: dict[str, str] | None = None, **session) -> AppTest:
    """The app on `path` (a page file; Home if None) as a link opens it:
    one run, through app.py's navigation, with `query` in the address and
    `session` values set before it; fails on any exception."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in session.items():
        at.session_state[key] = value
    for key, value in (query or {}).items():
        at.query_params[key] = value
    if path:
        at.switch_page(path)  # before the first run, a page is found by its file name, as a link finds it
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown(markdown: str) -> str:
    """What a reader sees of a Markdown message: backslash escapes undone."""
    return re.sub(r"\\(.)", r"\1", markdown)


def popover_labels(at: AppTest) -> list[str]:
    """The labels of the page's popover buttons (a picker's says what it has chosen), in page order."""
    labels = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if isinstance(proto, BlockProto) and proto.WhichOneof("type") == "popover":
            labels.append(proto.popover.label)
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)  # AppTest has no accessor for popovers
    return labels


def messages(elements) -> list[str]:
    return [shown(element.value) for element in elements]


def all_html(at: AppTest) -> str:
    """The page's HTML views, without the page's own scripts (the copy-link
    button, the keys of token views and of presenter mode)."""
    return "\n".join(element.value for element in at.html if not is_page_script(element.value))


def is_page_script(markup: str) -> bool:
    return "bpe-copy-link" in markup or markup.lstrip().startswith("<script>\nif (!window.bpe")


def metric(at: AppTest, label: str) -> str:
    """A figure the page shows: an st.metric's value, or one of a row of
    figures (`drawing.tokens.figures_html`, the counts over a token view)."""
    values = [m.value for m in at.metric if m.label == label]
    values += re.findall(rf'<div class="bpe-count"[^>]*><small>{re.escape(label)}</small><b>([^<]*)</b>', all_html(at))
    assert values, f"no figure {label!r} on the page"
    return values[0]


STEPPER = "bpe_playground.stepper"


def component_data(at: AppTest, name: str = STEPPER) -> dict:
    """The data a page gave its custom component (the step control) in the last run."""
    import json

    from bpe_core.drawing.step_control import unpacked

    for element in at.main:
        if getattr(element, "proto", None) is not None and getattr(element.proto, "component_name", None) == name:
            if name != STEPPER:
                return json.loads(element.proto.json)
            data = unpacked(element.proto.bytes)  # the step control's data travels packed
            data.update(json.loads(data.pop("view")))
            return data
    raise AssertionError(f"no {name} component on the page")


CHART = "bpe_playground.chart"


def charts(at: AppTest) -> list[dict]:
    """The plotly figures the page drew in the last run (as plotly.py's JSON), in page order."""
    import json

    return [json.loads(chart["spec"]) for chart in chart_data(at)]


def chart_data(at: AppTest) -> list[dict]:
    """What the page gave each chart in the last run (`pages.common.chart`: JSON bytes), in page order."""
    import json

    return [json.loads(element.proto.bytes) for element in at.main
            if getattr(element, "proto", None) is not None and getattr(element.proto, "component_name", None) == CHART]


def tell_position(at: AppTest, key: str, step: int, speed: float = 1) -> AppTest:
    """Do what the browser's step control does when the presenter pauses:
    tell the page the step (and speed) it shows, in the view the page drew
    last, and let the page rerun."""
    at.session_state[key] = {"position": {"step": step, "speed": speed, "viewKey": component_data(at)["viewKey"]}}
    return at.run()


def training_text_at(view: dict, step: int) -> str:
    """The HTML of the training text the step control shows at `step`: each
    stretch's version in force then, as step_control.js joins them."""
    parts = []
    for _, _, versions in view["stretches"]:
        fragment = versions[0][1]
        for from_step, index in versions:
            if from_step <= step:
                fragment = index
        parts.extend(view["fragments"][part] for part in fragment)
    return "".join(parts)


def type_text(at: AppTest, text: str) -> AppTest:
    """Do what the shared text box does when the typist pauses: send its text."""
    at.session_state["shared_text_box"] = {"text": text}
    return at.run()


def type_in_box(at: AppTest, key: str, text: str) -> AppTest:
    """Do what a live text box (`pages.common.live_text`) does when the typist pauses: send its text."""
    at.session_state[key] = {"text": text}
    return at.run()


def shared_box_text(at: AppTest) -> str:
    """The text the shared text box shows."""
    return component_data(at, "bpe_playground.live_text")["value"]



def html_tables(at: AppTest) -> list[pd.DataFrame]:
    """The page's plain tables (`bpe_core.drawing.tables`), as a reader sees
    them: each cell's text, whole numbers and decimals read back as numbers."""
    tables = []
    for element in at.html:
        reader = _TableReader()
        reader.feed(element.value)
        tables += [pd.DataFrame(rows, columns=head) for head, rows in reader.tables]
    return tables


def _number_or_text(text: str):
    plain = text.replace(",", "")
    if re.fullmatch(r"-?\d+", plain):
        return int(plain)
    if re.fullmatch(r"-?\d+\.\d+", plain):
        return float(plain)
    return text


class _TableReader(HTMLParser):
    """Each `bpe-table` in some HTML: its header and its rows of cells."""

    def __init__(self):
        super().__init__()
        self.tables, self._cell, self._row, self._inside = [], None, None, False

    def handle_starttag(self, tag, attrs):
        if tag == "table" and ("class", "bpe-table") in attrs:
            self._inside = True
            self.tables.append(([], []))
        elif self._inside and tag == "tr":
            self._row = []
        elif self._inside and tag in ("th", "td"):
            self._cell = ""

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data

    def handle_endtag(self, tag):
        if not self._inside:
            return
        if tag in ("th", "td"):
            self._row.append(self._cell if tag == "th" else _number_or_text(self._cell))
            self._cell = None
        elif tag == "tr":
            head, rows = self.tables[-1]
            if head:
                rows.append(self._row)
            else:
                head.extend(self._row)
        elif tag == "table":
            self._inside = False


class DrawnBar(NamedTuple):
    text: str  # written at its end
    length: float  # a share of the longest a bar can be (the longest value, or the mark, is 1)
    colour: str
    hover: str


class HorizontalBars(NamedTuple):
    title: str
    legend: dict[str, str]  # label -> colour
    rows: dict[str, list[DrawnBar]]  # name -> its bars, top to bottom
    mark: float | None  # where the dashed line is, on the bars' scale


def horizontal_bars(markup: str) -> HorizontalBars:
    """Horizontal bars (`bpe_core.drawing.bars.horizontal_bars_html`) as a reader sees them."""
    figure = markup[markup.index('<div class="bpe-hbars'):]
    length = r"calc\(\(100% - [\d.]+rem\) \* ([\d.]+)\)"
    rows = {}
    for chunk in figure.split('<div class="bpe-hbars-name">')[1:]:
        name, bars = chunk.split("</div>", 1)
        rows[html.unescape(name)] = [
            DrawnBar(html.unescape(text), float(share), colour, html.unescape(hover))
            for hover, share, colour, text in re.findall(
                rf'<div class="bpe-hbar" title="([^"]*)"><div class="bpe-hbar-fill" style="width: {length}; '
                r'background: ([^"]*)"></div><span class="bpe-hbar-value">([^<]*)</span></div>', bars)
        ]
    mark = re.match(rf'<div class="bpe-hbars bpe-hbars-marked" style="--bpe-mark: {length}"', figure)
    return HorizontalBars(
        title=html.unescape(re.search(r'<div class="bpe-bars-title">([^<]*)</div>', figure).group(1)),
        legend={html.unescape(label): colour
                for colour, label in re.findall(r'<span><i style="background: ([^"]*)"></i>([^<]*)</span>', figure)},
        rows=rows,
        mark=float(mark.group(1)) if mark else None,
    )

