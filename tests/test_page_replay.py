"""The Encode replay page, run headless with Streamlit's AppTest."""

import re

import pytest
from streamlit.testing.v1 import AppTest

from bpe_core import train
from bpe_core.corpora.samples import catalog
from bpe_core.vocabularies.openai import tiktoken_encoding
from pages.common.tokenizers import TrainedTokenizer
from tests.apptest import component_data, open_page, popover_labels, shown, tell_position

PAGE = "pages/replay.py"
OPENAI = ["gpt2", "cl100k_base", "o200k_base"]


def open_replay(text: str | None = None, tokenizer: str | None = None, session: dict | None = None) -> AppTest:
    at = open_page(PAGE, **(session or {}))
    if tokenizer is not None:
        at.selectbox(key="replay_tokenizer").set_value(tokenizer).run()
    if text is not None:
        at.text_input(key="replay_text").input(text).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown_state(at: AppTest, step: int | None = None) -> list[int]:
    """The token ids of the big view of the text at `step` (by default, the
    step the page opens the step control on)."""
    view = component_data(at)
    markup = view["frames"][view["step"] if step is None else step]
    state = re.search(r'bpe-replay bpe-state".*?</div>', markup, flags=re.S).group(0)
    return [int(token_id) for token_id in re.findall(r"<small>(\d+)</small>", state)]


def test_opens_on_strawberry_at_step_zero():
    at = open_replay()
    assert at.text_input(key="replay_text").value == " strawberry"
    view = component_data(at)
    assert view["step"] == 0 and view["total"] == len(b" strawberry") - 1  # one token in cl100k: 10 merges
    assert len(shown_state(at)) == len(b" strawberry")
    assert any("shortcut" in info.value for info in at.info)


@pytest.mark.parametrize("name", OPENAI)
def test_the_last_step_shows_tiktokens_tokens(name):
    text = " unbelievably naïve"
    expected = tiktoken_encoding(name).encode(text)
    at = open_replay(text, name)
    merges = len(text.encode()) - len(expected)
    assert component_data(at)["total"] == merges
    tell_position(at, "replay_stepper", merges)
    assert not at.exception
    assert shown_state(at) == expected
    assert len(at.selectbox(key="replay_token").options) == len(set(expected))


def test_each_step_merges_one_pair_and_says_its_rank():
    at = open_replay(" tokenization", "gpt2")
    view = component_data(at)
    assert [len(shown_state(at, step)) for step in range(4)] == [13, 12, 11, 10]
    assert "lowest-ranked pair" in view["headings"][1] and "no merges yet" in view["headings"][0]
    rows = re.findall(r'data-step="(\d+)"', view["table"])
    assert rows == [str(step) for step in range(view["total"] + 1)]  # every step listed, for marking the current one


def test_a_shorter_text_keeps_the_step_in_range():
    at = open_replay(" internationalization", "cl100k_base")
    tell_position(at, "replay_stepper", component_data(at)["total"])
    at.text_input(key="replay_text").input(" cat").run()
    assert not at.exception
    view = component_data(at)
    assert view["step"] == view["total"] == 3
    assert shown_state(at) == tiktoken_encoding("cl100k_base").encode(" cat")


def test_a_text_without_merges_has_nothing_to_step_through():
    at = open_replay("!", "gpt2")
    assert component_data(at)["total"] == 0 and shown_state(at) == tiktoken_encoding("gpt2").encode("!")
    assert any("stays as single units" in caption.value for caption in at.caption)


def test_works_with_the_trained_tokenizer():
    corpus = catalog()["english_prose"].load()[:20_000]
    tokenizer = train(corpus, vocab_size=500, pattern="cl100k")
    at = open_replay(" Alice", "trained here", {"trained": TrainedTokenizer(tokenizer, corpus, "test corpus")})
    view = component_data(at)
    assert shown_state(at, view["total"]) == tokenizer.encode_ordinary(" Alice")


def test_merge_tree_of_the_chosen_token():
    at = open_replay(" strawberry fields", "gpt2")
    expected = tiktoken_encoding("gpt2").encode(" strawberry fields")
    token = at.selectbox(key="replay_token")
    assert token.options == [f"·strawberry  (id {expected[0]})", f"·fields  (id {expected[1]})"]
    assert token.value == expected[0]  # the longest token first
    token.set_value(expected[1]).run()
    tree = next(element.value for element in at.html if "bpe-chips bpe-tree\"" in element.value)
    root = re.search(r"<small>(\d+)</small>", tree)
    assert int(root[1]) == expected[1]
    assert tree.count('class="bpe-node"') == 2 * len(b" fields") - 1


@pytest.mark.parametrize(
    "text, message",
    [("", "Type a word"), ("x" * 61, "61 characters"), ("a much too long phrase " * 4, "up to 60")],
)
def test_bad_input_gets_a_message_not_a_traceback(text, message):
    at = open_replay(text)
    assert not at.exception
    assert any(message in element.value for element in [*at.info, *at.error])
    with pytest.raises(AssertionError, match="no bpe_playground.stepper"):
        component_data(at)


def test_typed_markup_is_shown_as_text():
    payload = "<script>alert(1)</script>"
    at = open_replay(payload, "o200k_base")
    view = component_data(at)
    drawn = "".join(view["frames"] + view["headings"]) + view["table"]
    assert "<script>alert" not in drawn and "&lt;script" in drawn
    assert not any("alert" in element.value for element in [*at.markdown, *at.caption, *at.info])


def test_a_link_reproduces_the_view():
    at = open_page(PAGE, query=dict(replay_text=" hello world", replay_tokenizer="gpt2", replay_step="3"))
    assert at.text_input(key="replay_text").value == " hello world"
    assert at.selectbox(key="replay_tokenizer").value == "gpt2"
    assert component_data(at)["step"] == 3
    tell_position(at, "replay_stepper", 5)
    assert at.query_params["replay_step"] == "5"  # the address bar follows the step the browser shows


def test_a_link_asking_for_too_many_steps_shows_the_last():
    at = open_page(PAGE, query=dict(replay_text=" cat", replay_tokenizer="gpt2", replay_step="99"))
    view = component_data(at)
    assert view["step"] == view["total"] == 3
    assert shown_state(at) == tiktoken_encoding("gpt2").encode(" cat")


def buttons(at: AppTest) -> list[str]:
    """The page's own popover buttons (the text's and the merge tree token's), as a reader sees them."""
    return [shown(label) for label in popover_labels(at) if label.startswith(("Text:", "Token:"))]


def test_the_buttons_say_which_text_and_token_are_shown():
    at = open_replay()
    strawberry = tiktoken_encoding("cl100k_base").encode(" strawberry")[0]
    assert buttons(at) == ["Text: ·strawberry", f"Token: ·strawberry  (id {strawberry})"]
    at = open_replay(" strawberry fields", "gpt2")
    expected = tiktoken_encoding("gpt2").encode(" strawberry fields")
    assert buttons(at) == ["Text: ·strawberry·fields", f"Token: ·strawberry  (id {expected[0]})"]
    at.selectbox(key="replay_token").set_value(expected[1]).run()
    assert buttons(at) == ["Text: ·strawberry·fields", f"Token: ·fields  (id {expected[1]})"]
    at.text_input(key="replay_text").input(" cat").run()  # the chosen token is gone: the longest again
    assert buttons(at) == ["Text: ·cat", f"Token: ·cat  (id {tiktoken_encoding('gpt2').encode(' cat')[0]})"]


def test_the_buttons_follow_a_link():
    fields = tiktoken_encoding("gpt2").encode(" fields")[0]
    at = open_page(PAGE, query=dict(replay_text=" strawberry fields", replay_tokenizer="gpt2",
                                    replay_token=f"·fields  (id {fields})"))
    assert at.selectbox(key="replay_token").value == fields
    assert buttons(at) == ["Text: ·strawberry·fields", f"Token: ·fields  (id {fields})"]


def test_typed_markup_on_a_button_stays_text():
    at = open_replay("[x](https://example.com) *y*" + "z" * 40)
    label = next(label for label in popover_labels(at) if label.startswith("Text:"))
    assert shown(label) == "Text: [x](https://example.com)·*y*z…"  # cut short after 30 characters
    assert not re.search(r"(?<!\\)[][()*]", label)  # every Markdown character escaped: no link, no emphasis


def test_an_edited_text_shows_its_longest_token_as_a_link_to_it_would():
    gpt2 = tiktoken_encoding("gpt2")
    cat, international, fields = (gpt2.encode(word)[0] for word in (" cat", " international", " fields"))
    at = open_replay(" cat", "gpt2")
    at.text_input(key="replay_text").input(" cat internationalization").run()
    assert at.selectbox(key="replay_token").value == international  # " cat" was shown by default, not picked
    fresh = open_page(PAGE, query=dict(replay_text=" cat internationalization", replay_tokenizer="gpt2"))
    assert fresh.selectbox(key="replay_token").value == international
    # A token picked stays while the text has it, and is forgotten once it has not.
    at.selectbox(key="replay_token").set_value(cat).run()
    at.text_input(key="replay_text").input(" internationalization of a cat").run()
    assert at.selectbox(key="replay_token").value == cat
    at.text_input(key="replay_text").input(" fields").run()
    at.text_input(key="replay_text").input(" cat internationalization").run()
    assert at.selectbox(key="replay_token").value == international


def test_a_token_named_by_the_link_is_forgotten_once_the_text_lacks_it():
    gpt2 = tiktoken_encoding("gpt2")
    international, fields = (gpt2.encode(word)[0] for word in (" international", " fields"))
    at = open_page(PAGE, query=dict(replay_text=" strawberry fields", replay_tokenizer="gpt2",
                                    replay_token=f"·fields  (id {fields})"))
    assert at.selectbox(key="replay_token").value == fields
    at.text_input(key="replay_text").input(" cat").run()
    at.text_input(key="replay_text").input(" internationalization fields").run()
    assert at.selectbox(key="replay_token").value == international  # not the link's leftover " fields"


# ------------------------------------------------------------------ BPE-dropout

def dropout_rows(at: AppTest) -> list[tuple[int, list[int]]]:
    """The dropout section's rows: (draws, token ids) each, as drawn."""
    (drawn,) = [element.value for element in at.html if "bpe-share" in element.value and "× ·" in element.value]
    rows = re.findall(r'bpe-step-label">([\d,]+) × .*?</span><span class="bpe-share">.*?</span><span>(.*?)</span></div>',
                      drawn, flags=re.S)
    return [(int(count.replace(",", "")), [int(token_id) for token_id in re.findall(r"<small>(\d+)</small>", chips)])
            for count, chips in rows]


def test_a_link_with_p_and_a_seed_opens_the_words_sampled_segmentations():
    link = {"replay_tokenizer": "gpt2", "replay_p": "0.2", "replay_samples": "300"}
    at = open_page(PAGE, query={**link, "replay_seed": "3"})
    rows = dropout_rows(at)
    gpt2 = tiktoken_encoding("gpt2")
    assert len(rows) == 20 and sum(count for count, _ in rows) <= 300  # the 20 most frequent ...
    (caption,) = [caption.value for caption in at.caption if "different segmentations" in caption.value]
    left_out = re.search(r"([\d,]+) draws, are left out", caption)  # ... and the rest counted
    assert sum(count for count, _ in rows) + int(left_out.group(1).replace(",", "")) == 300
    assert all(gpt2.decode(ids) == " strawberry" for _, ids in rows)  # every draw is the text
    counts = [count for count, _ in rows]
    assert counts == sorted(counts, reverse=True) and rows[0][1] == gpt2.encode(" strawberry")
    assert at.query_params["replay_p"] == "0.2" and at.query_params["replay_seed"] == "3"
    again = open_page(PAGE, query={**link, "replay_seed": "4"})
    assert dropout_rows(again) != rows  # another seed, other draws


@pytest.mark.parametrize("p", ["1", "1.0"])
def test_a_dropout_of_one_is_one_line_and_the_replay_stays(p):
    at = open_page(PAGE, query={"replay_p": p})
    (error,) = at.error
    assert "below 1" in error.value and component_data(at)["total"] > 0  # the replay is still there


def test_dropout_is_refused_for_picky_bpe_in_one_line():
    from bpe_core.algorithms.picky import train_picky
    from pages.common.names import LOADED_TOKENIZERS

    picky = train_picky(catalog()["english_prose"].load()[:20_000], vocab_size=400)
    at = open_page(PAGE, query={"replay_p": "0.1"}, **{LOADED_TOKENIZERS: {"picky.json": picky},
                                                        "replay_tokenizer": "loaded: picky.json"})
    assert any("not defined for Picky BPE" in shown(info.value) for info in at.info)
    assert not at.error and not [element for element in at.html if "bpe-share" in element.value and "× ·" in element.value]
