"""The Chat prompts page, run headless with Streamlit's AppTest: the
prompts it shows are the templates' (tests/test_chat.py holds those to the
makers' code), they follow what is typed, and links carry the conversation."""

import json
import re

import pytest

from bpe_core import load_encoding
from bpe_core.vocabularies.catalogue import CHAT_NAMES, chat_prompt
from bpe_core.vocabularies.chat import OPENAI_COUNT_NOTE, Message
from pages.common.chat_views import DEFAULT_TEXTS
from tests.apptest import all_html, messages, open_page, shown
from tests.openai_cookbook import num_tokens_from_messages

PAYLOAD = '<img src=x onerror="window.__xss=1"><script>x</script> ![p](http://evil.example/p.png) :red[r]'


JINJA_NOTE = "as transformers' apply_chat_template renders it"  # the caption under a prompt from a Jinja template


def conversation(texts: dict[str, str], with_system: bool = True, exchanges: int = 1) -> list[Message]:
    """A system turn, user/assistant pairs, the last question: each turn's text is its slot's ("user1", ...)."""
    turns = ["system"] if with_system else []
    turns += [f"{role}{number}" for number in range(1, exchanges + 1) for role in ("user", "assistant")]
    return [Message(slot.rstrip("0123456789"), texts[slot]) for slot in [*turns, f"user{exchanges + 1}"]]


def token_counts(at) -> list[str]:
    """Each family's token count, as its row of figures shows it."""
    return re.findall(r'<div class="bpe-count"><small>Tokens</small><b>([^<]*)</b>', all_html(at))


def menu_labels(at) -> list[str]:
    """The labels of the page's menus (st.popover), as a reader sees them."""
    return [shown(block.proto.popover.label) for block in at.get("popover")]


def type_turn(at, slot: str, text: str):
    """Do what a turn's box does when the typist pauses: send its text."""
    at.session_state[f"chat_box_{slot}"] = {"text": text}
    return at.run()


def boxes(at) -> list[str]:
    """The texts the turns' boxes show, in order."""
    return [json.loads(element.proto.json)["value"] for element in at.main
            if getattr(getattr(element, "proto", None), "component_name", None) == "bpe_playground.live_text"]


def test_the_page_shows_two_families_prompts_with_the_templates_counts():
    at = open_page("pages/chat.py")
    expected = [len(chat_prompt(conversation(DEFAULT_TEXTS), name, load_encoding(name)).ids) for name in ("llama3", "qwen")]
    assert token_counts(at) == [f"{count:,}" for count in expected]
    html = all_html(at)
    template = chat_prompt(conversation(DEFAULT_TEXTS), "llama3", load_encoding("llama3")).template_tokens
    assert f'<small>Template adds</small><b>{template:,}</b>' in html
    assert html.count('class="bpe-chat"') == 2
    assert re.search(r'bpe-chat-template">.*?&lt;\|start_header_id\|&gt;', html, flags=re.DOTALL)
    prompt = chat_prompt(conversation(DEFAULT_TEXTS), "llama3", load_encoding("llama3"))
    assert at.code[0].value.rstrip("\n") == prompt.text.rstrip("\n")  # the template's text, to copy (a code block drops the final newline)
    labels = at.selectbox(key="chat_left").options
    assert [label.split(" — ")[0] for label in labels] == CHAT_NAMES


def test_the_prompts_follow_what_is_typed_and_the_shape_of_the_conversation():
    at = open_page("pages/chat.py")
    type_turn(at, "user2", "Und auf Deutsch?")
    texts = {**DEFAULT_TEXTS, "user2": "Und auf Deutsch?"}
    assert token_counts(at)[0] == f"{len(chat_prompt(conversation(texts), 'llama3', load_encoding('llama3')).ids):,}"
    at.toggle(key="chat_system").set_value(False).run()
    at.number_input(key="chat_exchanges").set_value(0).run()
    assert boxes(at) == [DEFAULT_TEXTS["user1"]]
    alone = [Message("user", DEFAULT_TEXTS["user1"])]
    assert token_counts(at) == [f"{len(chat_prompt(alone, name, load_encoding(name)).ids):,}" for name in ("llama3", "qwen")]
    assert any("default one" in caption for caption in messages(at.caption))  # Qwen's default system turn
    at.number_input(key="chat_exchanges").set_value(2).run()
    assert len(boxes(at)) == 5 and boxes(at)[-1] == ""
    assert any("Turn 4 (assistant) is empty" in warning for warning in messages(at.warning))
    assert not at.exception


@pytest.mark.slow  # seconds: Mistral's vocabularies load
@pytest.mark.parametrize("name", ["tekken", "mistral_v3"])
def test_mistral_says_where_its_system_text_went(name):
    at = open_page("pages/chat.py")
    at.selectbox(key="chat_right").set_value(name).run()
    assert not at.exception
    assert any("no system turn" in caption for caption in messages(at.caption))
    expected = len(chat_prompt(conversation(DEFAULT_TEXTS), name, load_encoding(name)).ids)
    assert token_counts(at)[1] == f"{expected:,}"


@pytest.mark.slow  # seconds: OpenAI's vocabularies load
@pytest.mark.parametrize(("name", "model"), [("cl100k_base", "gpt-4-0613"), ("o200k_base", "gpt-4o-2024-08-06")])
def test_openais_families_show_the_published_count_and_say_that_is_all(name, model):
    at = open_page("pages/chat.py", query={"chat_right": name})
    default = [{"role": m.role, "content": m.content} for m in conversation(DEFAULT_TEXTS)]
    assert token_counts(at)[1] == f"{num_tokens_from_messages(default, model):,}"
    assert any(shown(caption) == OPENAI_COUNT_NOTE for caption in messages(at.caption))
    assert len(at.code) == 1  # Llama 3's prompt as text; OpenAI's is not published
    html = all_html(at)
    assert html.count('class="bpe-chat-unpublished"') == len(default) + 1  # each message's 3, and the primer
    assert "&lt;|start|&gt;assistant&lt;|message|&gt; · 3 tokens" in html


@pytest.mark.parametrize(("left", "right", "tokens", "caption", "jinja_notes"), [
    pytest.param("llama4", "o200k_harmony", ("&lt;|header_start|&gt;", "&lt;|channel|&gt;"),
                 "the system turn is the developer's “# Instructions”", 0,
                 marks=pytest.mark.slow),  # seconds: Llama 4's vocabulary and openai-harmony load
    # Gemma 3 and DeepSeek V3, as transformers' apply_chat_template renders them
    ("gemma3", "deepseek_v3", ("&lt;start_of_turn&gt;", "&lt;｜User｜&gt;"), "the system text opens the first user turn", 2),
])
def test_two_families_side_by_side(left, right, tokens, caption, jinja_notes):
    at = open_page("pages/chat.py", query={"chat_left": left, "chat_right": right})
    expected = [len(chat_prompt(conversation(DEFAULT_TEXTS), name, load_encoding(name)).ids) for name in (left, right)]
    assert token_counts(at) == [f"{count:,}" for count in expected]
    html = all_html(at)
    assert all(token in html for token in tokens)
    captions = [shown(caption) for caption in messages(at.caption)]
    assert any(caption in shown_caption for shown_caption in captions)
    assert sum(JINJA_NOTE in caption for caption in captions) == jinja_notes
    assert not at.exception


@pytest.mark.slow  # seconds: six pages opened
def test_a_link_carries_the_conversation_and_a_damaged_one_is_ignored():
    at = open_page("pages/chat.py")
    type_turn(at, "system", "Answer in verse.")
    linked = at.query_params["chat"]
    linked = linked[0] if isinstance(linked, list) else linked
    assert json.loads(linked)["system"] == "Answer in verse."
    opened = open_page("pages/chat.py", query={"chat": linked, "chat_left": "mistral_v3"})
    assert boxes(opened)[0] == "Answer in verse."
    assert opened.selectbox(key="chat_left").value == "mistral_v3"
    for damaged in ('{"system": 3}', "[1,2", '["a"]', "1e999"):
        assert boxes(open_page("pages/chat.py", query={"chat": damaged}))[0] == DEFAULT_TEXTS["system"]


def test_typed_markup_is_shown_as_text():
    at = open_page("pages/chat.py")
    type_turn(at, "user2", PAYLOAD)
    html = all_html(at)
    assert "<img" not in html and "<script>x" not in html
    assert "&lt;img" in html
    assert not at.exception


def test_the_prompt_as_text_waits_in_a_menu():
    """A code block loads a syntax highlighter in the browser: a menu's content is drawn only once opened."""
    at = open_page("pages/chat.py")
    assert menu_labels(at)[2:] == ["The prompt as text"] * 2
    expected = [chat_prompt(conversation(DEFAULT_TEXTS), name, load_encoding(name)).text for name in ("llama3", "qwen")]
    assert [code.value.rstrip("\n") for code in at.code] == [text.rstrip("\n") for text in expected]


def test_the_menus_say_what_is_chosen_on_a_link_and_after_a_change():
    # DeepSeek V3: a family the side-by-side test above loaded already (Mistral's Tekken took seconds)
    at = open_page("pages/chat.py", query={"chat_left": "deepseek_v3", "chat_system": "false", "chat_exchanges": "2"})
    assert menu_labels(at)[:2] == ["Families: deepseek_v3 beside qwen", "No system turn, 2 earlier exchanges"]
    at.selectbox(key="chat_right").set_value("deepseek_v3").run()
    at.toggle(key="chat_system").set_value(True).run()
    at.number_input(key="chat_exchanges").set_value(1).run()
    assert menu_labels(at)[:2] == ["Families: deepseek_v3", "System turn, 1 earlier exchange"]
    damaged = open_page("pages/chat.py", query={"chat_left": "nope", "chat_system": "maybe", "chat_exchanges": "99"})
    assert menu_labels(damaged)[:2] == ["Families: llama3 beside qwen", "System turn, 1 earlier exchange"]


def test_a_model_folder_brought_to_the_page_shows_its_own_prompt(tmp_path):
    from tests.test_model_folders import small_folder, zipped

    folder = small_folder(tmp_path / "model")
    at = open_page("pages/chat.py")
    at.file_uploader(key="chat_upload").upload("model.zip", zipped(folder), "application/zip").run()
    assert not at.exception and at.selectbox(key="chat_right").value == "loaded: model.zip"
    from bpe_core.formats.hf_folder import read_folder
    from bpe_core.vocabularies.chat import render_prompt
    from bpe_core.vocabularies.model_folders import tokenizer_from_folder

    tokenizer = tokenizer_from_folder(read_folder(folder), probe=False)
    expected = render_prompt(conversation(DEFAULT_TEXTS), "model", tokenizer.chat, tokenizer)
    assert token_counts(at)[1] == f"{len(expected.ids):,}"
    assert "&lt;|assistant|&gt;" in all_html(at)


@pytest.mark.parametrize("template, message", [(None, "has no chat template"),
                                               ("{{ raise_exception('Only one turn, please') }}", "Only one turn")])
def test_a_folder_without_a_template_or_whose_template_raises_says_so_in_a_line(tmp_path, template, message):
    from tests.test_model_folders import small_folder, zipped

    folder = small_folder(tmp_path / "model", template=template)
    at = open_page("pages/chat.py")
    at.file_uploader(key="chat_upload").upload("model.zip", zipped(folder), "application/zip").run()
    assert not at.exception
    assert any(message in text for text in messages(at.error) + messages(at.warning))


SHOWN = ("html", "markdown", "caption", "code", "warning", "popover", "selectbox", "toggle", "number_input")


def drawn(at) -> dict[str, list]:
    """Every element the page drew, of the kinds it draws, by kind."""
    return {kind: [element.proto for element in at.get(kind)] for kind in SHOWN}


@pytest.mark.slow  # seconds: the page drawn twice, Llama 3 and Qwen loaded
def test_the_first_view_is_shipped_loads_no_tokenizer_and_is_the_page_drawn_live(monkeypatch):
    """A first visit shows the default conversation in the default families
    from shipped data (pages/common/chat_views.py), loading no tokenizer; it
    is element for element the page drawn from the tokenizers, today's (else:
    python sample_corpora/build_chat_views.py). Typing a turn loads the
    tokenizers the warm-up loads once the first page is drawn."""
    from pages.common import chat_views, tokenizers
    from pages.common.warm_up import NEXT_TOKENIZERS

    loads = []
    loaded = tokenizers.load_encoding
    monkeypatch.setattr(tokenizers, "load_encoding", lambda name: loads.append(name) or loaded(name))
    at = open_page("pages/chat.py")
    from_data = drawn(at)
    assert loads == [] and from_data["html"]
    type_turn(at, "user2", "Und auf Deutsch?")
    assert set(loads) == set(NEXT_TOKENIZERS["chat"])
    monkeypatch.setattr(chat_views, "shipped_view", lambda *arguments: None)  # the page imports it as it runs
    assert drawn(open_page("pages/chat.py")) == from_data
