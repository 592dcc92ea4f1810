"""The Home, Train and Inspect pages, driven with Streamlit's AppTest."""

import json
from pathlib import Path

import pytest

from bpe_core import train
from bpe_core.corpora.samples import catalog
from bpe_core.formats import hf_tokenizer_json
from bpe_core.vocabularies.openai import tiktoken_encoding
from tests.apptest import (
    all_html,
    component_data,
    messages,
    metric,
    open_page,
    shared_box_text,
    shown,
    tell_position,
    training_text_at,
    type_in_box,
    type_text,
)
from tests.conftest import ROOT
from tests.test_render import visible_text

XSS = '<img src=x onerror=alert(1)><script>alert("x")</script>**bold** [link](javascript:alert(2))'


# ------------------------------------------------------------- navigation


def test_every_page_file_is_in_the_navigation_and_lives_at_its_file_name():
    """Before app.py has run once in a server, Streamlit finds a linked page
    by its file name; the navigation must give every page that address
    (see pages/common/navigation.py), and list every page file."""
    from pages.common.names import HOME, PAGES

    assert sorted(page.file for page in PAGES) == sorted(f"pages/{path.name}" for path in (ROOT / "pages").glob("*.py"))
    assert [page.url_path for page in PAGES if page is not HOME] == [Path(page.file).stem for page in PAGES[1:]]
    assert HOME.url_path == ""


# ------------------------------------------------------------------- home


def test_home_colours_the_demo_text_with_tiktoken_counts():
    at = open_page()
    text = shared_box_text(at)
    assert metric(at, "Tokens") == f"{len(tiktoken_encoding('cl100k_base').encode(text)):,}"
    assert "bpe-tok" in all_html(at)
    assert len(at.get("page_link")) >= 4


def test_home_switches_tokenizer():
    at = open_page()
    type_text(at, "hello world, hello tokens")
    at.selectbox(key="home_tokenizer").set_value("gpt2").run()
    assert metric(at, "Tokens") == str(len(tiktoken_encoding("gpt2").encode("hello world, hello tokens")))


def test_typed_markup_is_shown_as_text():
    at = open_page()
    type_text(at, XSS)
    markup = all_html(at)
    token_view = next(element.value for element in at.html if '<div class="bpe-text"' in element.value)
    token_view = token_view[token_view.index('<div class="bpe-text"'):]  # after the counts over it
    assert visible_text(token_view) == XSS.replace(" ", "·")
    assert "<script" not in markup and "<img" not in markup
    assert not any("bold" in m.value and "**" not in m.value for m in at.markdown)


# ------------------------------------------------------------------ train


@pytest.fixture(scope="module")
def expected_trace():
    """The trace the Train page's defaults must show: English prose, 1,000, GPT-4."""
    corpus = catalog()["english_prose"].load()
    return train(corpus, vocab_size=1_000, pattern="cl100k", special_tokens=("<|endoftext|>",)).trace


def test_train_page_trains_the_default_sample_and_holds_its_steps(expected_trace):
    at = open_page("pages/train.py")
    trained = at.session_state["trained"].tokenizer
    assert trained.trace == expected_trace
    view = component_data(at)
    assert view["step"] == 0 and view["total"] == len(expected_trace)
    assert view["start"] == 0 and view["held"] == len(expected_trace) + 1  # every step, 0 to the last
    merge = expected_trace[2]
    assert view["merges"][3] == [*merge.pair, merge.new_id, merge.count, merge.corpus_tokens]


def test_the_view_opens_on_the_story_not_the_title_pages():
    view = component_data(open_page("pages/train.py"))
    shown = visible_text(training_text_at(view, 0))
    assert shown.startswith("Alice·was·beginning")
    assert "[Illustration]" not in shown and "Contents" not in shown
    assert "where the text proper starts" in view["textNote"]


def test_leading_pairs_are_counted_on_the_whole_corpus_and_lead_with_the_merge_made(expected_trace):
    view = component_data(open_page("pages/train.py", query={"train_step": "40"}))
    assert view["step"] == 40
    merge = expected_trace[40]  # the merge after step 40
    assert view["pairs"][40][0] == [*merge.pair, merge.count]
    assert "whole corpus" in view["pairsNote"]


def test_the_steps_travel_compressed():
    """Every visit sends the span of steps held; its JSON repeats itself (the same tokens' labels and counts)."""
    from bpe_core.drawing.step_control import unpacked

    at = open_page("pages/train.py")
    (sent,) = [element.proto.bytes for element in at.main
               if getattr(getattr(element, "proto", None), "component_name", None) == "bpe_playground.stepper"]
    view = unpacked(sent)["view"]
    assert json.loads(view)["total"] == 744 and len(sent) * 5 < len(view.encode())


def test_a_step_the_browser_tells_moves_the_link_and_the_try_it_box(expected_trace):
    at = open_page("pages/train.py")
    tell_position(at, "train_stepper", 3, speed=4)
    assert at.query_params["train_step"] == "3" and at.query_params["train_speed"] == "4"
    assert "as of step 3" in component_data(at, "bpe_playground.live_text")["label"]  # the try-it box
    assert component_data(at)["step"] == 3
    tell_position(at, "train_stepper", 0)
    assert "train_step" not in at.query_params  # step 0 is the default: the link stays short


def test_a_session_keeps_its_tokenizer_and_view_when_other_visitors_push_them_out_of_the_shared_caches(monkeypatch):
    import streamlit as st

    import bpe_core.drawing.training_view
    import pages.common.tokenizers
    from pages.common.shared_cache import SharedCache

    at = open_page("pages/train.py")
    shown = component_data(at)

    def made_again(*args, **kwargs):
        raise AssertionError("made again")

    # As after a wave of visitors: the shared caches hold none of this session's work.
    monkeypatch.setattr(pages.common.tokenizers, "TRAINED_TOKENIZERS", SharedCache(max_entries=1, max_bytes=1))
    st.cache_resource.clear()
    monkeypatch.setattr(pages.common.tokenizers, "train_within_budget", made_again)
    monkeypatch.setattr(bpe_core.drawing.training_view, "training_view_data", made_again)
    tell_position(at, "train_stepper", 3)
    assert not at.exception
    assert component_data(at)["step"] == 3 and component_data(at)["merges"] == shown["merges"]


def test_a_corpus_is_split_and_counted_once_however_many_visits_show_it(monkeypatch):
    """The pieces beside each merge are counted once for every session and
    rerun: a cache made in the page's own script would start empty at every
    run (the script runs anew), and the count would be redone each time."""
    import pages.common.tokenizers
    from pages.common.shared_cache import SharedCache

    counted = []
    count_pieces = pages.common.tokenizers.count_pieces
    monkeypatch.setattr(pages.common.tokenizers, "PIECE_COUNTS", SharedCache(max_entries=8, max_bytes=200_000_000))
    monkeypatch.setattr(pages.common.tokenizers, "count_pieces", lambda *args: counted.append(args) or count_pieces(*args))
    first_visit = open_page("pages/train.py")
    tell_position(first_visit, "train_stepper", 3)
    open_page("pages/train.py")  # another visitor
    assert len(counted) == 1


def test_the_split_patterns_pieces_are_drawn_only_once_asked_for():
    """The corpus's first pieces are tens of kilobytes of HTML: sent only
    while "What the split pattern does" is open."""
    at = open_page("pages/train.py")
    assert "What the split pattern does" in [expander.label for expander in at.expander]
    closed = len(all_html(at))

    def pieces_caption():
        return [caption.value for caption in at.caption if "pieces in the first" in caption.value]

    assert not pieces_caption()
    at.session_state["train_pieces_open"] = True  # what a click on the expander tells the page
    at.run()
    assert pieces_caption() and len(all_html(at)) > closed + 10_000


@pytest.mark.parametrize("asked", ["-1", "3.5", "Infinity", "1e309", "9" * 5000, "x"])
def test_a_link_with_an_impossible_step_opens_at_step_0(asked):
    assert component_data(open_page("pages/train.py", query={"train_step": asked}))["step"] == 0


def test_a_link_past_the_last_merge_opens_at_the_last(expected_trace):
    view = component_data(open_page("pages/train.py", query={"train_step": "99999"}))
    assert view["step"] == len(expected_trace)


@pytest.mark.slow  # seconds: worker processes or whole vocabularies
def test_bad_settings_explain_and_keep_the_previous_tokenizer():
    at = open_page("pages/train.py")
    before = at.session_state["trained"].tokenizer
    at.number_input(key="train_vocab").set_value(100).run()
    assert any("at least 256" in e.value for e in at.error)
    assert at.session_state["trained"].tokenizer is before
    at.number_input(key="train_vocab").set_value(1_000).run()
    at.selectbox(key="train_pattern").set_value("custom").run()  # trains with the default custom regex
    before = at.session_state["trained"].tokenizer
    assert before.pattern_name == "custom"
    at.text_input(key="train_custom").input("(unclosed").run()
    assert any("not a valid regular expression" in e.value for e in at.error)
    assert at.session_state["trained"].tokenizer is before
    assert not at.exception


@pytest.mark.slow  # seconds: worker processes or whole vocabularies
def test_textbook_word_counts_show_each_word_with_its_count():
    at = open_page("pages/train.py")
    at.selectbox(key="train_sample").set_value("textbook_word_counts").run()
    at.segmented_control(key="train_units").set_value("chars").run()
    at.number_input(key="train_vocab").set_value(14).run()
    assert not at.error
    shown = visible_text(training_text_at(component_data(at), 0))
    assert "newest ×6" in shown and "low ×5" in shown
    assert at.session_state["trained"].tokenizer.trace[0].token == "es"


@pytest.mark.slow  # seconds: worker processes or whole vocabularies
def test_pasted_corpus_and_try_it_box():
    at = open_page("pages/train.py")
    at.segmented_control(key="train_source").set_value("Paste").run()
    assert any("Paste some text" in i.value for i in at.info)
    at.text_area(key="train_text").input("low lower lowest " * 20).run()
    at.number_input(key="train_vocab").set_value(300).run()
    tokenizer = at.session_state["trained"].tokenizer
    assert tokenizer.stop_reason and "no adjacent pair" in tokenizer.stop_reason
    assert any("Stopped early" in s.value for s in at.caption)
    tell_position(at, "train_stepper", len(tokenizer.merges))
    type_in_box(at, "train_try_box", " lowest")
    expected = len(tokenizer.encode_at_step(" lowest", len(tokenizer.merges)))
    assert expected == 1
    assert any(c.value == "1 token for 7 bytes" for c in at.caption)


def test_invalid_utf8_upload_is_reported_with_its_position():
    at = open_page("pages/train.py")
    at.segmented_control(key="train_source").set_value("Upload").run()
    at.file_uploader(key="train_upload").upload("latin1.txt", "café".encode("latin-1"), "text/plain").run()
    assert any("not UTF-8" in e.value and "offset 3" in e.value for e in at.error)
    assert not at.exception


def test_an_uploads_byte_order_mark_is_not_trained_on_as_the_command_line_leaves_it_out():
    merges = []
    for data in ("low lower lowest".encode(), "\ufefflow lower lowest".encode()):
        at = open_page("pages/train.py", query={"train_vocab": "300"})
        at.segmented_control(key="train_source").set_value("Upload").run()
        at.file_uploader(key="train_upload").upload("low.txt", data, "text/plain").run()
        assert not at.exception
        merges.append(at.session_state["trained"].tokenizer.merges)
    assert merges[1] == merges[0] and merges[0]


def test_downloads_are_offered():
    at = open_page("pages/train.py")
    labels = {button.proto.label for button in at.download_button}
    assert {"Tokenizer (JSON)", "Merges (CSV)", "tiktoken ranks", "Hugging Face tokenizer.json"} <= labels
    assert menu_labels(at)[2] == "Download"  # in a menu: the page shows the merges, not buttons


def menu_labels(at) -> list[str]:
    """The labels of the page's menus (st.popover), as a reader sees them."""
    return [shown(block.proto.popover.label) for block in at.get("popover")]


def test_the_train_menus_say_what_is_chosen_on_a_link_and_after_a_change():
    at = open_page("pages/train.py", query={"train_sample": "aaabdaaabac", "train_units": "chars",
                                            "train_vocab": "6", "train_pattern": "gpt2"})
    assert menu_labels(at)[:2] == ["Corpus: aaabdaaabac (Wikipedia's example)", "Vocabulary 6 · chars · split GPT-2"]
    at.number_input(key="train_vocab").set_value(5).run()
    at.selectbox(key="train_pattern").set_value("custom").run()
    assert menu_labels(at)[1] == "Vocabulary 5 · chars · split by a custom regex"
    at.segmented_control(key="train_source").set_value("Paste").run()
    assert menu_labels(at)[0] == "Corpus: paste a text"
    at.text_area(key="train_text").input("low lower lowest").run()
    assert menu_labels(at)[0] == "Corpus: pasted text, 16 characters"
    at.segmented_control(key="train_source").set_value("Upload").run()
    at.file_uploader(key="train_upload").upload("low_*[x].txt", b"low lower", "text/plain").run()
    assert menu_labels(at)[0] == "Corpus: “low_*[x].txt”"  # a file's name is shown as it is, never as Markdown


def test_the_train_menus_read_a_damaged_link_as_the_page_does():
    at = open_page("pages/train.py", query={"train_vocab": "Infinity", "train_pattern": "nope", "train_sample": "x"})
    assert menu_labels(at)[:2] == ["Corpus: Alice's Adventures in Wonderland (English prose)",
                                   "Vocabulary 1,000 · bytes · split GPT-4 (cl100k)"]
    assert at.number_input(key="train_vocab").value == 1_000 and at.selectbox(key="train_pattern").value == "cl100k"


def test_trained_tokenizer_is_offered_on_other_pages():
    at = open_page("pages/train.py")
    at.switch_page("pages/inspect.py")
    at.run()
    trained = at.session_state["trained"]
    assert f"Trained here — 1,000 tokens, GPT-4 (cl100k) split, on {trained.corpus_label}" in at.selectbox(
        key="inspect_tokenizer").options


# ---------------------------------------------------------------- inspect


def test_inspect_counts_equal_tiktoken_and_ids_can_be_shown():
    at = open_page("pages/inspect.py")
    text = "Tokenization is fun! 12345 🚀"
    type_text(at, text)
    at.selectbox(key="inspect_tokenizer").set_value("o200k_base").run()
    ids = tiktoken_encoding("o200k_base").encode(text)
    assert metric(at, "Tokens") == str(len(ids))
    at.toggle(key="inspect_ids").set_value(True).run()
    markup = all_html(at)
    assert all(f'<span class="bpe-id">{i}</span>' in markup for i in ids)


def test_inspect_special_tokens_follow_the_switch():
    at = open_page("pages/inspect.py")
    type_text(at, "end<|endoftext|>")
    assert any("special token" in i.value for i in at.info)
    assert "bpe-tok bpe-special" not in all_html(at)
    at.toggle(key="inspect_special").set_value(True).run()
    assert "bpe-tok bpe-special" in all_html(at)


def test_decode_box_reports_bad_ids():
    at = open_page("pages/inspect.py", inspect_decode_open=True)  # what a click on the expander tells the page
    at.selectbox(key="inspect_tokenizer").set_value("cl100k_base").run()
    at.text_input(key="inspect_decode").input("9906 1917").run()
    assert at.code[0].value == "Hello world"
    at.text_input(key="inspect_decode").input("9906 99999999").run()
    assert any("is not a token id" in e.value for e in at.error)
    at.text_input(key="inspect_decode").input("hello").run()
    assert any("whole numbers" in e.value for e in at.error)


def test_loading_a_tokenizer_file_adds_it_to_the_picker():
    at = open_page("pages/inspect.py", inspect_upload_open=True)  # likewise
    saved = train("hello hello world", num_merges=5, pattern="gpt2")
    from bpe_core.formats import tokenizer_to_json

    at.file_uploader(key="inspect_upload").upload("mine.json", tokenizer_to_json(saved).encode(), "application/json").run()
    assert at.selectbox(key="inspect_tokenizer").value == "loaded: mine.json"  # listed and selected at once
    assert any("Loaded “mine.json”" in s for s in messages(at.success))
    at.file_uploader(key="inspect_upload").upload("bad.json", json.dumps({"model": {}}).encode(), "application/json").run()
    assert any('has no "type"' in e and "only byte-level BPE" in e for e in messages(at.error))


@pytest.mark.slow
def test_loading_a_tiktoken_rank_file_and_a_hugging_face_json():
    from bpe_core.vocabularies.bundled_files import BUNDLED_DIR
    from bpe_core.vocabularies.catalogue import load_encoding

    at = open_page("pages/inspect.py", inspect_upload_open=True)
    type_text(at, "Hello tokens 12345")
    at.selectbox(key="inspect_upload_pattern").set_value("cl100k").run()
    data = (BUNDLED_DIR / "cl100k_base.tiktoken.gz").read_bytes()
    at.file_uploader(key="inspect_upload").upload("cl100k.tiktoken.gz", data, "application/gzip").run()
    assert at.selectbox(key="inspect_tokenizer").value == "loaded: cl100k.tiktoken.gz"
    assert metric(at, "Tokens") == str(len(tiktoken_encoding("cl100k_base").encode("Hello tokens 12345")))
    hf = hf_tokenizer_json(load_encoding("gpt2")).encode()
    at.file_uploader(key="inspect_upload").upload("gpt2-tokenizer.json", hf, "application/json").run()
    assert at.selectbox(key="inspect_tokenizer").value == "loaded: gpt2-tokenizer.json"
    assert metric(at, "Tokens") == str(len(tiktoken_encoding("gpt2").encode("Hello tokens 12345")))


def test_a_malformed_rank_file_is_explained():
    at = open_page("pages/inspect.py", inspect_upload_open=True)
    at.file_uploader(key="inspect_upload").upload("bad.tiktoken", b"not base64 at all\n", "text/plain").run()
    assert any("Cannot use “bad.tiktoken”" in e and "Line 1" in e for e in messages(at.error))
    assert not at.exception


def test_slide_downloads_are_offered_for_the_token_view():
    at = open_page("pages/inspect.py")
    labels = {button.proto.label for button in at.download_button}
    assert {"Slide (PNG)", "Slide (SVG)"} <= labels


def test_inspect_draws_its_uploader_and_decode_box_only_while_open():
    at = open_page("pages/inspect.py")
    assert not at.get("file_uploader") and not at.text_input  # closed: their code is not loaded by the browser
    at.session_state["inspect_decode_open"] = True  # what a click on the expander tells the page
    at.run()
    at.text_input(key="inspect_decode").input("9906").run()
    at.session_state["inspect_decode_open"] = False
    at.run()
    at.session_state["inspect_decode_open"] = True
    at.run()
    assert at.text_input(key="inspect_decode").value == "9906"  # closing it lost nothing typed
