"""Presenter mode: the playground on a projector.

Presenter mode (`?present=true`, or the button in every page's header)
makes everything larger and plainer, to be read from the back of a room:

- the root font grows, and everything sized in rem with it: text, token
  views, the step control, text boxes, pickers;
- tables are drawn as plain HTML tables, which scale (Streamlit's data
  grid draws on a canvas at a fixed size), and charts get larger type;
- the sidebar, the toolbar and the intro texts go; instead, each page has a
  link to the previous and the next page, also on the keys Page Up and
  Page Down (what a presentation clicker sends).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

import streamlit as st

from bpe_core.drawing.deck import DECK_KEYS_JS
from bpe_core.drawing.standalone import PRESENTER_FONT_SIZE
from bpe_core.drawing.tables import missing, table_html, table_rows
from pages.common.chart import plotly_figure
from pages.common.names import PAGES, PRESENT, PageInfo
from pages.common.url_state import keep_in_link

if TYPE_CHECKING:  # plotly loads with the first chart, not with every page
    import plotly.graph_objects as go

# The root font as a saved page's presenter mode sizes it; everything in rem follows.
PRESENTER_CSS = f"\n<style>\nhtml {{ font-size: {PRESENTER_FONT_SIZE}; }}" + """
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stHeader"],
[data-testid="stToolbar"], [data-testid="stDecoration"], footer { display: none !important; }
[data-testid="stMainBlockContainer"] { padding: 0.8rem 2rem 2rem; max-width: 100%; }
[data-testid="stApp"], [data-testid="stMarkdownContainer"], [data-testid="stCaptionContainer"] { color: #000 !important; }
h1 { font-size: 2rem !important; padding: 0.2rem 0 !important; }
input, textarea, [data-baseweb="select"] div, [data-testid="stWidgetLabel"] p, button p,
[data-testid="stPageLink"] p { font-size: 1rem !important; }
[data-testid="stMetricValue"] { font-size: 1.8rem !important; }
</style>
"""

# Page Up and Page Down follow the links to the previous and next page
# (present in presenter mode only); in a talk deck's frame, they move the
# deck instead (DECK_KEYS_JS, which runs first).
PAGE_KEYS_HTML = f"""
<script>{DECK_KEYS_JS}</script>
<script>
if (!window.bpePageKeys) {{
  window.bpePageKeys = true;
  document.addEventListener("keydown", (event) => {{
    if (event.defaultPrevented || !["PageUp", "PageDown"].includes(event.key)) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.composedPath().some((el) => el.matches && el.matches("input, textarea, select"))) return;
    const link = document.querySelector(`.st-key-present_${{event.key === "PageDown" ? "next" : "previous"}} a`);
    if (link) {{
      event.preventDefault();
      link.click();
    }}
  }});
}}
</script>
"""

TABLE_ROWS_PRESENTED = 40  # a projector shows no more; the page says how many are left out
FIGURE_FONT_SCALE = 1.6  # chart type, larger by this much


def presenting() -> bool:
    """Whether presenter mode is on: the session's choice, else the link's."""
    if PRESENT not in st.session_state:
        st.session_state[PRESENT] = st.query_params.get(PRESENT, "").lower() == "true"
    return st.session_state[PRESENT]


def presenter_switch() -> None:
    """A button that switches presenter mode, kept in the link (?present=true)
    and for the session's other pages; and the presenter style while it is
    on. A button, not a toggle: a toggle's code costs every page's first
    drawing a tenth of a second, a button's next to nothing."""
    on = presenting()
    st.button("Presenter", key="present_switch", on_click=_switch_presenting,
              icon=":material/toggle_on:" if on else ":material/toggle_off:", type="primary" if on else "secondary",
              help="Large type, no sidebar, tables and charts to be read from afar; Page Up and Page Down "
              "move between pages. Click again to leave. Also ?present=true in a link.")
    keep_in_link(PRESENT, str(on).lower(), "false")
    if on:
        st.html(PRESENTER_CSS)


def _switch_presenting() -> None:
    st.session_state[PRESENT] = not presenting()


def presenter_navigation(current: PageInfo) -> None:
    """With the sidebar gone, links to the previous and the next page, also
    on Page Up and Page Down."""
    index = PAGES.index(current)
    previous, following = PAGES[index - 1], PAGES[(index + 1) % len(PAGES)]
    with st.container(key="present_previous", width="content"):  # the keys' script finds each link by its container's key
        st.page_link(previous.file, label=f"← {previous.title}", help="Page Up")
    with st.container(key="present_next", width="content"):
        st.page_link(following.file, label=f"{following.title} →", help="Page Down")


def show_table(data, *, grid: bool = True, tokens: Collection[str] = (), **dataframe_options) -> None:
    """A table: Streamlit's data grid, or for a projector a plain table
    (first rows only) in the presenter's type size. With `grid=False`, a
    plain table always (`light_table`): for a few rows nobody needs to sort
    or search, without the grid's code (a third of a second of a page's
    load). A plain table draws the columns named in `tokens` as tokens;
    given a list of rows (dicts), it needs no pandas."""
    if not presenting():
        if grid:
            st.dataframe(data, **dataframe_options)
        else:
            light_table(data, tokens=tokens, **dataframe_options)
        return
    rows = table_rows(data)
    light_table(rows[:TABLE_ROWS_PRESENTED], tokens=tokens, **dataframe_options)
    if len(rows) > TABLE_ROWS_PRESENTED:
        st.caption(f"The first {TABLE_ROWS_PRESENTED} of {len(rows):,} rows; leave presenter mode for all of them.")


def light_table(data, *, column_order=None, column_config: dict | None = None, tokens: Collection[str] = (),
                **_grid_only) -> None:
    """`data` (rows as dicts, or a DataFrame) as a plain HTML table
    (`bpe_core.drawing.tables`, no index) with what the grid's options say
    of it: its columns' order, labels, number formats and help texts (on
    hovering a header); the columns in `tokens` drawn as tokens. Numbers
    and ticks are told by their values, as the grid tells them by type."""
    rows = table_rows(data)
    columns = list(column_order or (rows[0] if rows else getattr(data, "columns", [])))
    config = {name: column for name, column in (column_config or {}).items() if name in columns}
    labels = {name: column.get("label") or name for name, column in config.items()}
    formats = {labels[name]: number_format(column["type_config"].get("format"))
               for name, column in config.items() if column.get("type_config", {}).get("type") == "number"}
    for name in columns:
        values = [row[name] for row in rows if not missing(row[name])]
        label = labels.get(name, name)
        if values and all(isinstance(value, bool) for value in values):
            formats[label] = tick  # as the grid's checkbox
        elif values and all(isinstance(value, (int, float)) and not isinstance(value, bool) for value in values):
            formats.setdefault(label, number_format(None))  # numbers the grid's options leave alone
    helps = {labels.get(name, name): column["help"] for name, column in config.items() if column.get("help")}
    shown = [{labels.get(name, name): row[name] for name in columns} for row in rows]
    st.html(table_html(shown, formats, helps, tokens={labels.get(name, name) for name in tokens}))


def tick(value: bool) -> str:
    return "✓" if value else "✗"


def number_format(form: str | None):
    """A grid column's number format (printf-style, or one of its names) as
    a `table_html` format; None: whole numbers with thousands separators,
    fractions with two decimals."""
    if not form:
        return lambda value: f"{value:,.2f}" if isinstance(value, float) else f"{value:,}"
    named = {"percent": "{:.1%}", "localized": "{:,}", "dollar": "${:,.2f}", "plain": "{}"}
    if form in named:
        return named[form]
    return lambda value: form % value


def show_figure(figure: "go.Figure", *, key: str | None = None, config: dict | None = None,
                on_select=None, selection_mode: str | None = None) -> None:
    """A plotly chart, its type larger for a projector; drawn by a partial
    plotly.js (`plotly_figure`). `on_select` (a callback) is called on a
    click on a point; only `selection_mode="points"` is offered."""
    if presenting():
        figure = presented(figure)
    if selection_mode not in (None, "points"):
        raise ValueError(f"selection_mode {selection_mode!r}: only clicks on points are offered")
    plotly_figure(figure, key=key, config=config, on_select=on_select)


def presented(figure: "go.Figure") -> "go.Figure":
    """`figure` with every text (titles, ticks, legend, annotations) larger."""
    import plotly.graph_objects as go

    figure = go.Figure(figure)
    base = (figure.layout.font.size or 12) * FIGURE_FONT_SCALE
    figure.update_layout(font_size=base, title_font_size=base * 1.2, legend_font_size=base)
    figure.update_xaxes(tickfont_size=base, title_font_size=base)
    figure.update_yaxes(tickfont_size=base, title_font_size=base)
    for annotation in figure.layout.annotations:
        annotation.font.size = (annotation.font.size or 12) * FIGURE_FONT_SCALE
    if figure.layout.height:
        figure.update_layout(height=figure.layout.height * FIGURE_FONT_SCALE)
    return figure
