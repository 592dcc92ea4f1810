"""State kept in the URL: what makes a view shareable.

Widgets that define a view are bound to the URL (`bind="query-params"`), so
the address bar always holds the view's state and copying it is sharing it.
Three things need help:

- code that sets a widget's value before the widget exists (a default, a
  clamp) must start from the link's value, not overwrite it: `initial_value`;
- text travels in the link only while it is short: `link_text` says so when
  it does not fit, instead of silently dropping it;
- values that are not a widget's (the recipe of a trained tokenizer) travel
  as JSON: `link_value`, `linked_value`, which never let a damaged link
  break a page.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import streamlit as st

from bpe_core.formats.reading import strict_json

LINK_TEXT_LIMIT = 2_000  # characters of text a link may carry

# Keyword arguments for a widget that defines a view: its value is in the
# link, and it is kept when the user visits another page and comes back.
LINKED = dict(bind="query-params", persist_state="session")

# Copies the address bar: it holds the whole view. The clipboard needs a
# secure page (https or localhost); elsewhere the link is offered in a
# prompt to copy by hand.
COPY_LINK_HTML = """
<button class="bpe-copy-link" type="button" title="Copy a link to exactly this view">🔗 Copy link</button>
<style>
.bpe-copy-link { font: inherit; font-size: 0.9rem; padding: 0.3rem 0.8rem; border-radius: 0.5rem;
  border: 1px solid rgba(49, 51, 63, 0.25); background: #fff; color: #111; cursor: pointer; }
.bpe-copy-link:hover { border-color: #225588; color: #225588; }
</style>
<script>
if (!window.bpeCopyLink) {
  window.bpeCopyLink = true;
  document.addEventListener("click", (event) => {
    const button = event.target.closest(".bpe-copy-link");
    if (!button) return;
    const link = window.location.href;
    const done = () => { button.textContent = "✓ Link copied"; setTimeout(() => { button.textContent = "🔗 Copy link"; }, 2000); };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(link).then(done, () => window.prompt("Copy this link:", link));
    } else {
      window.prompt("Copy this link:", link);
    }
  });
}
</script>
"""


def whole_number_input(place, label: str, *, key: str, value: int | None, **options) -> int | None:
    """`place.number_input` for a whole number, kept in the link by this
    module rather than by Streamlit's binding: Streamlit converts a bound
    number with int(), which Infinity in a link breaks before any page code
    can catch it. The link's value is read strictly (a whole number within
    the input's bounds, else `value`) and written back as it changes."""
    if key not in st.session_state:
        linked = whole_number_in(st.query_params.get(key, ""), options.get("min_value"), options.get("max_value"))
        st.session_state[key] = value if linked is None else linked
    chosen = place.number_input(label, key=key, persist_state="session", **options)
    if chosen == value:
        st.query_params.pop(key, None)
    elif st.query_params.get(key) != str(chosen):
        st.query_params[key] = str(chosen)
    return chosen


def fraction_input(place, label: str, *, key: str, value: float, help: str) -> float:
    """`place.number_input` for a number from 0 to 1 in steps of a
    twentieth (a threshold, a probability), kept in the link: the link's
    value is read strictly (digits and at most one point, within 0..1,
    else `value`) and written back as it changes. Whether an end is
    allowed is the caller's to say, in one line."""
    if key not in st.session_state:
        linked = st.query_params.get(key, "")
        well_formed = linked.isascii() and 0 < len(linked) <= 6 and linked.replace(".", "", 1).isdigit()
        st.session_state[key] = float(linked) if well_formed and float(linked) <= 1 else value
    chosen = place.number_input(label, key=key, min_value=0.0, max_value=1.0, step=0.05, format="%.2f",
                                persist_state="session", help=help)
    keep_in_link(key, chosen, value)
    return chosen


def whole_number_in(text: str, minimum: int | None, maximum: int | None) -> int | None:
    """A link's text as a whole number within the bounds, or None: read
    strictly (digits only, at most 18), never with int() on anything."""
    if not (text.isascii() and text.removeprefix("-").isdigit() and len(text) <= 18):
        return None
    number = int(text)
    too_small = minimum is not None and number < minimum
    too_large = maximum is not None and number > maximum
    return None if too_small or too_large else number


def labelled_choice(place, label: str, options: Mapping[str, str], *, key: str, default: str,
                    widget: str = "selectbox", **widget_options) -> str:
    """`place.selectbox` (or another one-choice `widget`, such as
    "segmented_control") over `options` (id -> label): it shows the labels
    and keeps the chosen id in the link, where Streamlit's own binding would
    write the label (a link that carries the label still opens). An id the
    link or the session has that is not offered (an upload of another
    session) falls back to `default`."""
    current_choice(key, options, default)
    chosen = getattr(place, widget)(label, list(options), key=key, format_func=options.get, persist_state="session",
                                    **widget_options)
    keep_in_link(key, chosen, default)
    return chosen


# A `choice_buttons` row's chosen button is disabled (not to be chosen again)
# but drawn as chosen, in the theme's primary colour, not faded as unavailable.
CHOSEN_BUTTON_CSS = """<style>
.st-key-KEY button:disabled { background-color: COLOUR; border-color: COLOUR; color: #fff; cursor: default; }
</style>"""


def choice_buttons(place, options: Mapping[str, str], *, key: str, default: str, help: str | None = None) -> str:
    """A `labelled_choice` drawn as a row of buttons, one per option (id ->
    label): where a segmented control would be on a page's first view (a
    page's header draws buttons already; a segmented control's code costs a
    visit a tenth of a second the first time). It reads and writes the link
    as `labelled_choice` does (a link naming the label opens it too). The
    chosen button is primary and disabled, and its help says it is shown:
    assistive technology hears which one is chosen, not only the eye by
    colour (which a disabled button would lose: `CHOSEN_BUTTON_CSS` keeps
    it); the others choose their option when clicked."""
    chosen = current_choice(key, options, default)
    row = place.container(horizontal=True, gap="small", key=f"{key}_choices")
    colour = st.get_option("theme.primaryColor") or "#FF4B4B"  # Streamlit's own when the theme names none
    row.html(CHOSEN_BUTTON_CSS.replace("KEY", f"{key}_choices").replace("COLOUR", colour))  # styles: no room taken
    for option, label in options.items():
        shown = option == chosen
        row.button(label, key=f"{key}_{option}", type="primary" if shown else "secondary", disabled=shown,
                   help=" ".join(filter(None, ["Shown now." if shown else None, help])) or None,
                   on_click=_choose, args=(key, option))
    keep_in_link(key, chosen, default)
    return chosen


def _choose(key: str, option: str) -> None:
    """A choice button's callback: its option is chosen before the page runs."""
    st.session_state[key] = option


def labelled_choices(place, label: str, options: Mapping[str, str], *, key: str, default: list[str],
                     **widget_options) -> list[str]:
    """`labelled_choice` for several ids at once (a multiselect)."""
    current_choices(key, options, default)
    chosen = place.multiselect(label, list(options), key=key, format_func=options.get, persist_state="session",
                               **widget_options)
    if chosen == default:
        st.query_params.pop(key, None)
    elif st.query_params.get_all(key) != chosen:
        st.query_params[key] = chosen
    return chosen


def current_choice(key: str, options: Mapping[str, str], default: str) -> str:
    """The id a `labelled_choice` under `key` shows in this run, known
    before it is drawn (for a label that summarises it): the session's (a
    change the user just made), else the link's, else `default`; it is also
    what the widget starts from."""
    ids = list(options)
    if st.session_state.get(key) not in ids:
        linked = linked_id(st.query_params.get(key), options)
        st.session_state[key] = linked if linked is not None else default if default in ids else ids[0]
    return st.session_state[key]


def current_choices(key: str, options: Mapping[str, str], default: list[str]) -> list[str]:
    """`current_choice` for a `labelled_choices`."""
    if key in st.session_state:
        chosen = st.session_state[key]
    else:
        chosen = [linked_id(linked, options) for linked in st.query_params.get_all(key)] or default
    st.session_state[key] = [choice for choice in chosen if choice in options]
    return st.session_state[key]


def linked_id(linked: str | None, options: Mapping[str, str]) -> str | None:
    """The id a link names: by its id, or by its label, which links made
    before a widget became a `labelled_choice` carry; None if neither."""
    if linked in options:
        return linked
    return next((option for option, label in options.items() if label == linked), None)


def keep_in_link(param: str, value, default) -> None:
    """Keep a value in the link (the default leaves it out, so links stay
    short). Also for values the browser put in the address bar itself: the
    server's copy of the link must follow, or its next change of the link
    would put the old value back."""
    text = f"{value:g}" if isinstance(value, float) else str(value)
    if value == default:
        st.query_params.pop(param, None)
    elif st.query_params.get(param) != text:
        st.query_params[param] = text


def initial_value(key: str, default, *, many: bool = False):
    """The value a bound widget starts from: the session's, else the link's,
    else `default`. Use it wherever code sets a widget's value before the
    widget is drawn, so that a link is not overwritten."""
    if key in st.session_state:
        return st.session_state[key]
    if many:
        return st.query_params.get_all(key) or default
    return st.query_params.get(key, default)


def linked_text(param: str, default: str) -> str:
    """The text a view opens with: the link's, else `default`."""
    return st.query_params.get(param, default)


def link_text(param: str, text: str, default: str) -> None:
    """Carry `text` in the link while it fits; say so when it does not."""
    if text == default:
        st.query_params.pop(param, None)
    elif len(text) <= LINK_TEXT_LIMIT:
        if st.query_params.get(param) != text:
            st.query_params[param] = text
    else:
        st.query_params.pop(param, None)
        st.caption(
            f"This text ({len(text):,} characters) is too long to travel in a link "
            f"(up to {LINK_TEXT_LIMIT:,}): a copied link opens this view with the default text."
        )


def link_value(param: str, value) -> None:
    """Put a JSON value in the link (None removes it)."""
    if value is None:
        st.query_params.pop(param, None)
    else:
        encoded = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        if st.query_params.get(param) != encoded:
            st.query_params[param] = encoded


def linked_value(param: str):
    """The JSON value a link carries, or None (also for a damaged, absurdly
    long or deeply nested one, NaN or Infinity, or a number of thousands of
    digits: a link must never break a page)."""
    value = st.query_params.get(param)
    if value is None or len(value) > 2 * LINK_TEXT_LIMIT:
        return None
    try:
        return strict_json(value)
    except (ValueError, RecursionError):
        return None


def copy_link_button(scripts: str = "") -> None:
    """A button that copies the address bar, which holds the whole view;
    `scripts`, the page's other scripts, come in the same element."""
    st.html(COPY_LINK_HTML + scripts, unsafe_allow_javascript=True, width="content")
