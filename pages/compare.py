"""Compare: one text through several tokenizers, side by side.

Widgets only; what is computed and drawn comes from `bpe_core.comparison`.
"""

import streamlit as st

from bpe_core.analysis.comparison import differing_stretches, stretch_table, summary_rows
from bpe_core.analysis.downloads import frame_csv
from bpe_core.drawing.comparison import aligned_rows_html, stretches_html, token_count_bars
from pages.common.menus import shown_flag
from pages.common.names import COMPARE_TOKENIZERS
from pages.common.navigation import page_header
from pages.common.presenter import show_table
from pages.common.tokenizers import (
    OPENAI_ENCODINGS,
    STARTER,
    TRAINED_HERE,
    short_label,
    tokenizer_by_name,
    tokenizer_choices,
)
from pages.common.url_state import LINKED
from pages.common.widgets import encode_for_view, pick_tokenizers, shared_text, special_token_notice

MAX_STRETCHES_SHOWN = 200  # a long text can differ in thousands of places
STRETCHES_HEIGHT, STRETCHES_SCROLL_FROM = 26, 10  # rem (larger in presenter mode): a list of more than ten scrolls

SUMMARY_COLUMNS = {
    "tokens": st.column_config.NumberColumn("tokens", format="%d"),
    "bytes/token": st.column_config.NumberColumn("bytes/token", format="%.2f"),
    "chars/token": st.column_config.NumberColumn("chars/token", format="%.2f"),
    "vs best": st.column_config.NumberColumn(
        "vs best", format="%.2f×", help="Tokens divided by the fewest tokens: the best tokenizer is 1.00×."
    ),
}


def show_comparison(text: str, names: list[str], allow_special: bool) -> None:
    tokenizers = {short_label(name): tokenizer_by_name(name) for name in names}
    special_token_notice(text, tokenizers.values(), allow_special)
    results = {name: encode_for_view(tokenizer, text, allow_special=allow_special) for name, tokenizer in tokenizers.items()}
    rows = summary_rows(text, results)
    table_column, chart_column = st.columns(2)
    with table_column:
        show_table(rows, grid=False, hide_index=True, column_config=SUMMARY_COLUMNS)
    with table_column.popover("Summary (CSV)"):  # the download button's code is loaded only once it is opened
        st.download_button("Download compare.csv", lambda: frame_csv(rows), "compare.csv",
                           "text/csv", key="compare_summary_csv", on_click="ignore")
    with chart_column:
        st.html(token_count_bars(rows))

    st.subheader("Token boundaries, line by line")
    st.caption(
        "Each line of the text is drawn once per tokenizer, one under the other, so the splits line up. "
        "A dark bar marks where a token starts; a striped character is split across tokens "
        "(a byte-level tokenizer can cut a character into bytes). Characters are drawn one by one, "
        "so letters that normally join (Devanagari vowel signs, emoji sequences) appear apart. "
        "Hover for the token's id and text."
    )
    st.html(aligned_rows_html(text, results))

    st.subheader("Where they split differently")
    show_differences(text, results)


def show_differences(text: str, results: dict) -> None:
    stretches = differing_stretches(text, results)
    if not stretches:
        st.success("All the selected tokenizers split this text in exactly the same places.")
        return
    shown = stretches[:MAX_STRETCHES_SHOWN]
    st.caption(
        f"{len(stretches):,} stretches of text are split differently"
        + (f"; the first {len(shown):,} are listed." if len(shown) < len(stretches) else ".")
        + " Tokens are separated by ` | `; `·` is a space, `↵` a line break, `<E3 81>` bytes of a split character."
    )
    st.html(stretches_html(stretch_table(shown),
                           max_height_rem=STRETCHES_HEIGHT if len(shown) > STRETCHES_SCROLL_FROM else None))
    with st.popover("All differing stretches (CSV)"):
        st.download_button("Download differences.csv", lambda: frame_csv(stretch_table(stretches)),
                           "differences.csv", "text/csv", key="compare_differences_csv", on_click="ignore")


page_header(
    "Compare",
    "One text through several tokenizers: how many tokens each needs, and exactly where they split differently.",
)


SPECIAL_KEY = "compare_special"


def choose_special() -> bool:
    """Whether `<|endoftext|>` in the text is a special token, in a popover labelled with the choice."""
    with st.popover(f"Special tokens: {'on' if shown_flag(SPECIAL_KEY) else 'off'}"):
        return st.toggle("Special tokens", key=SPECIAL_KEY, **LINKED, help="Encode `<|endoftext|>` as a special token")


@st.fragment  # typing reruns the comparison, not the page
def comparison() -> None:
    text = shared_text("Text to compare")
    picker_column, special_column = st.columns([4, 1])
    with picker_column:
        own = TRAINED_HERE if TRAINED_HERE in tokenizer_choices() else STARTER
        selected = pick_tokenizers("Tokenizers", COMPARE_TOKENIZERS, [own, *OPENAI_ENCODINGS])
    with special_column:
        special = choose_special()
    if len(selected) < 2:
        st.info("Choose at least two tokenizers to compare.")
    elif not text:
        st.info("Type or paste some text above to see how the tokenizers split it.")
    else:
        show_comparison(text, selected, special)


comparison()
