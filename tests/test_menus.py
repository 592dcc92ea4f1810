"""The controls every page shares, driven with Streamlit's AppTest: the
tokenizer pickers, in popovers whose buttons say what is chosen (after a
change, from a link, after an upload), and the presenter button."""

from bpe_core import train
from bpe_core.drawing.markdown import markdown_literal
from bpe_core.formats import tokenizer_to_json
from bpe_core.vocabularies.catalogue import LISTED
from pages.common.names import PAGES
from pages.common.presenter import PRESENTER_CSS
from pages.common.widgets import MODEL_NAMES
from tests.apptest import open_page, popover_labels, shown


def test_every_bundled_encoding_has_the_models_it_is_known_by():
    assert set(MODEL_NAMES) == set(LISTED)


def test_home_picker_says_what_is_chosen_after_a_change_and_from_a_link():
    at = open_page()
    assert popover_labels(at)[0] == "Tokenizer: GPT-4 (cl100k_base)"
    at.selectbox(key="home_tokenizer").set_value("o200k_base").run()
    assert popover_labels(at)[0] == "Tokenizer: GPT-4o (o200k_base)"
    at.toggle(key="home_special").set_value(True).run()
    assert popover_labels(at)[0] == "Tokenizer: GPT-4o (o200k_base) · special tokens"
    assert at.query_params["home_tokenizer"] == "o200k_base"

    linked = open_page(query={"home_tokenizer": "gpt2", "home_special": "true"})
    assert popover_labels(linked)[0] == "Tokenizer: GPT-2 (gpt2) · special tokens"
    assert linked.selectbox(key="home_tokenizer").value == "gpt2" and linked.toggle(key="home_special").value


def test_inspect_buttons_say_the_tokenizer_and_the_view_from_a_link_and_after_a_change():
    at = open_page("pages/inspect.py", query={"inspect_tokenizer": "llama3", "inspect_colour": "id",
                                              "inspect_ids": "true"})
    assert popover_labels(at)[:2] == ["Tokenizer: Llama 3 (llama3)", "View: colour by id, token ids"]
    at.segmented_control(key="inspect_colour").set_value("position").run()
    at.toggle(key="inspect_ids").set_value(False).run()
    at.selectbox(key="inspect_tokenizer").set_value("starter").run()
    assert popover_labels(at)[:2] == ["Tokenizer: Starter (1,000 tokens)", "View: colour by position"]


def test_an_upload_selects_itself_and_its_file_name_is_shown_literally_on_the_button():
    at = open_page("pages/inspect.py", inspect_upload_open=True)
    name = "*mine*_[x](http://e.x)`:red[y]`.json"
    saved = train("hello hello world", num_merges=5, pattern="gpt2")
    at.file_uploader(key="inspect_upload").upload(name, tokenizer_to_json(saved).encode(), "application/json").run()
    assert at.selectbox(key="inspect_tokenizer").value == f"loaded: {name}"
    assert popover_labels(at)[0] == f"Tokenizer: {markdown_literal(name)} ({len(saved.vocab):,} tokens)"


def test_several_tokenizers_are_named_then_counted():
    # tokenizers quick to load (Tekken, say, takes seconds): what is tested is the label
    at = open_page("pages/compare.py", query={"compare_tokenizers": ["gpt2", "p50k_base", "cl100k_base", "o200k_base", "whisper"]})
    assert "Tokenizers: GPT-2, Codex, GPT-4 +2" in map(shown, popover_labels(at))
    at.multiselect(key="compare_tokenizers").set_value(["whisper", "claude_legacy"]).run()
    assert "Tokenizers: Whisper, Claude 1/2" in map(shown, popover_labels(at))
    at.multiselect(key="compare_tokenizers").set_value([]).run()
    assert "Tokenizers: none chosen" in popover_labels(at)


def test_an_uploaded_file_among_several_tokenizers_is_named_literally_once_escaped():
    name = "*mine*_[x](http://e.x).json"
    at = open_page("pages/inspect.py", inspect_upload_open=True)
    saved = train("hello hello world", num_merges=5, pattern="gpt2")
    at.file_uploader(key="inspect_upload").upload(name, tokenizer_to_json(saved).encode(), "application/json").run()
    at.switch_page("pages/compare.py").run()
    at.multiselect(key="compare_tokenizers").set_value(["gpt2", f"loaded: {name}"]).run()
    label = next(label for label in popover_labels(at) if label.startswith("Tokenizers"))
    assert label == f"Tokenizers: {markdown_literal('GPT-2')}, {markdown_literal(name)}"  # no markup, no double escape
    assert shown(label) == f"Tokenizers: GPT-2, {name}"


def neighbours(file: str) -> set[str]:
    """The labels of presenter mode's links to the previous and the next page."""
    index = [page.file for page in PAGES].index(file)
    return {f"← {PAGES[index - 1].title}", f"{PAGES[index + 1].title} →"}


def is_presenting(at) -> bool:
    return any(element.value.strip() == PRESENTER_CSS.strip() for element in at.html)


def test_the_presenter_button_switches_presenter_mode_for_the_link_and_the_session():
    at = open_page("pages/inspect.py")
    assert not is_presenting(at) and at.button(key="present_switch").proto.type == "secondary"
    at.button(key="present_switch").click().run()
    assert is_presenting(at) and at.query_params["present"] == "true"
    assert at.button(key="present_switch").proto.type == "primary"  # drawn as pressed
    assert not at.caption or "Every token is a coloured span" not in at.caption[0].value  # a projector shows no intro
    assert neighbours("pages/inspect.py") <= {link.proto.label for link in at.get("page_link")}
    at.switch_page("pages/compare.py").run()  # the session's other pages present too, and their links say so
    assert is_presenting(at) and at.query_params["present"] == "true"
    at.button(key="present_switch").click().run()
    assert not is_presenting(at) and "present" not in at.query_params


def test_a_link_opens_presenting():
    at = open_page("pages/inspect.py", query={"present": "true"})
    assert is_presenting(at) and at.button(key="present_switch").proto.type == "primary"
    assert neighbours("pages/inspect.py") <= {link.proto.label for link in at.get("page_link")}


def test_a_number_in_a_link_is_read_strictly_never_crashing_a_menu_label():
    """Menu labels read numbers from the link before any widget runs: a
    damaged one (two minus signs, a fraction, Infinity) is the default."""
    from pages.common.url_state import whole_number_in

    assert whole_number_in("600", 1, 1000) == 600 and whole_number_in("-5", -10, 10) == -5
    for damaged in ("--5", "-", "6.5", "Infinity", "1e3", "٣", "9" * 19):
        assert whole_number_in(damaged, None, None) is None, damaged
    for path, key in (("pages/train.py", "train_vocab"), ("pages/chat.py", "chat_exchanges"),
                      ("pages/compression.py", "compression_vocab")):
        at = open_page(path, query={key: "--5"})
        assert not at.exception, (path, [e.value for e in at.exception])


def _presented_tables():
    import pandas as pd
    import streamlit as st

    from pages.common.presenter import show_table

    st.session_state["present"] = True
    rows = [{"token": f"t{number}", "uses": number * 1000, "kept": number % 2 == 0} for number in range(45)]
    show_table(rows, grid=False, tokens=("token",))
    show_table(pd.DataFrame(rows), hide_index=True, column_config={"uses": {"label": "times used"}})


def test_a_projector_table_shows_its_first_rows_and_says_how_many_are_left_out():
    """Presenter mode draws any table (rows as dicts, or a DataFrame the grid
    would draw) as a plain table of its first 40 rows, numbers and ticks
    written as the grid writes them, and says what it leaves out."""
    from streamlit.testing.v1 import AppTest

    from pages.common.presenter import PRESENT
    from tests.apptest import html_tables

    assert PRESENT == "present"
    at = AppTest.from_function(_presented_tables).run()
    assert not at.exception
    first, second = html_tables(at)
    assert len(first) == len(second) == 40
    assert list(first.columns) == ["token", "uses", "kept"] and list(second.columns) == ["token", "times used", "kept"]
    assert first["uses"].tolist()[:3] == [0, 1000, 2000] == second["times used"].tolist()[:3]
    assert first["kept"].tolist()[:2] == ["✓", "✗"] == second["kept"].tolist()[:2]
    assert [caption.value for caption in at.caption] == [
        "The first 40 of 45 rows; leave presenter mode for all of them."] * 2
