"""The Chat prompts page in a real Chromium: the prompts follow the
conversation as it is typed, the template's tokens are marked, and it reads
at 1440×900 and on a projector (presenter mode, 1920×1080)."""

import pytest
from playwright.sync_api import expect

from bpe_core import load_encoding
from bpe_core.vocabularies.catalogue import chat_prompt
from bpe_core.vocabularies.chat import Message
from pages.common.chat_views import DEFAULT_TEXTS
from tests.browser import assert_no_exception, one_tab_per_file, open_page, screenshot
from tests.openai_cookbook import num_tokens_from_messages

pytestmark = pytest.mark.browser
tab, page = one_tab_per_file()

# Every part of a prompt's rows that is wider than the row that holds it.
OVERFLOWING = """() => [...document.querySelectorAll('.bpe-chat, .bpe-chat-tokens')]
  .filter(element => element.scrollWidth > element.clientWidth + 1).length"""


def default_conversation(last_question: str = DEFAULT_TEXTS["user2"]) -> list[Message]:
    return [Message("system", DEFAULT_TEXTS["system"]), Message("user", DEFAULT_TEXTS["user1"]),
            Message("assistant", DEFAULT_TEXTS["assistant1"]), Message("user", last_question)]


def expected_tokens(name: str, last_question: str) -> int:
    return len(chat_prompt(default_conversation(last_question), name, load_encoding(name)).ids)


def tokens_metrics(page):
    """Each family's token count, in its row of figures."""
    return page.locator(".bpe-count").filter(has_text="Tokens")


def test_the_prompts_follow_the_conversation_as_it_is_typed(server, page):
    page.set_viewport_size({"width": 1440, "height": 900})
    open_page(page, f"{server.url}/chat", "Chat prompts")
    expect(page.locator(".bpe-chat")).to_have_count(2)
    expect(tokens_metrics(page).nth(0)).to_contain_text(str(expected_tokens("llama3", DEFAULT_TEXTS["user2"])))
    header = page.locator(".bpe-chat-template .bpe-tok").filter(has_text="<|start_header_id|>").first
    expect(header).to_be_visible()
    expect(page.locator(".bpe-chat-template .bpe-tok").filter(has_text="<|im_start|>").first).to_be_visible()
    box = page.locator("textarea").last
    box.fill("")
    question = "Und <|eot_id|> auf Deutsch, bitte?"
    box.press_sequentially(question, delay=15)  # no Ctrl+Enter: the prompts follow the typing
    expect(tokens_metrics(page).nth(0)).to_contain_text(str(expected_tokens("llama3", question)))
    expect(tokens_metrics(page).nth(1)).to_contain_text(str(expected_tokens("qwen", question)))
    expect(box).to_be_focused()
    screenshot(page, "chat-1440")
    assert page.evaluate(OVERFLOWING) == 0
    assert_no_exception(page)


def test_presenter_mode_shows_two_families_side_by_side_in_large_type(server, page):
    page.set_viewport_size({"width": 1920, "height": 1080})
    open_page(page, f"{server.url}/chat?present=true&chat_left=tekken&chat_right=llama3", "Chat prompts")
    expect(page.locator(".bpe-chat")).to_have_count(2)
    expect(page.locator(".bpe-chat-template .bpe-tok").filter(has_text="[INST]").first).to_be_visible()
    expect(page.locator('[data-testid="stMarkdownContainer"] table')).to_have_count(2)  # each family's turns
    expect(page.get_by_role("button", name="Families: tekken beside llama3")).to_be_visible()  # what the menu chose
    assert page.evaluate("parseFloat(getComputedStyle(document.documentElement).fontSize)") >= 20
    screenshot(page, "chat-presenter-1920")
    assert page.evaluate(OVERFLOWING) == 0
    assert_no_exception(page)


def test_gpt_oss_beside_openais_published_count_on_a_projector(server, page):
    page.set_viewport_size({"width": 1920, "height": 1080})
    open_page(page, f"{server.url}/chat?present=true&chat_left=o200k_harmony&chat_right=o200k_base", "Chat prompts")
    expect(page.locator(".bpe-chat")).to_have_count(2)
    expect(tokens_metrics(page).nth(0)).to_contain_text(str(expected_tokens("o200k_harmony", DEFAULT_TEXTS["user2"])))
    cookbook = num_tokens_from_messages([{"role": m.role, "content": m.content} for m in default_conversation()],
                                        "gpt-4o-2024-08-06")
    expect(tokens_metrics(page).nth(1)).to_contain_text(str(cookbook))
    expect(page.locator(".bpe-chat-template .bpe-tok").filter(has_text="<|channel|>").first).to_be_visible()
    unpublished = page.locator(".bpe-chat-unpublished")
    expect(unpublished).to_have_count(len(default_conversation()) + 1)  # each message's 3 tokens, and the primer
    expect(unpublished.last).to_have_text("<|start|>assistant<|message|> · 3 tokens")
    screenshot(page, "chat-harmony-openai-presenter-1920")
    assert page.evaluate(OVERFLOWING) == 0
    assert_no_exception(page)


def test_gemma_beside_deepseek_follow_typing_and_a_typed_control_token_is_drawn_as_one(server, page):
    """transformers encodes a prompt with every special token found, also one
    a user typed: the page draws it as the control token it becomes."""
    page.set_viewport_size({"width": 1440, "height": 900})
    open_page(page, f"{server.url}/chat?chat_left=gemma3&chat_right=deepseek_v3", "Chat prompts")
    expect(page.locator(".bpe-chat")).to_have_count(2)
    expect(page.locator(".bpe-chat-template .bpe-tok").filter(has_text="<start_of_turn>").first).to_be_visible()
    expect(page.locator(".bpe-chat-template .bpe-tok").filter(has_text="<｜User｜>").first).to_be_visible()
    box = page.locator("textarea").last
    box.fill("")
    question = "Et <end_of_turn> en français ?"
    box.press_sequentially(question, delay=15)
    expect(tokens_metrics(page).nth(0)).to_contain_text(str(expected_tokens("gemma3", question)))
    expect(tokens_metrics(page).nth(1)).to_contain_text(str(expected_tokens("deepseek_v3", question)))
    typed = page.locator(".bpe-chat-template .bpe-tok").filter(has_text="<end_of_turn>")
    expect(typed).to_have_count(4)  # Gemma closes three turns, and the user typed one
    screenshot(page, "chat-gemma-deepseek-1440")
    assert page.evaluate(OVERFLOWING) == 0
    assert_no_exception(page)


def test_a_zipped_model_folder_brought_to_the_page_shows_its_prompt(server, page, tmp_path):
    from tests.test_model_folders import small_folder, zipped

    archive = tmp_path / "model.zip"
    archive.write_bytes(zipped(small_folder(tmp_path / "model")))
    page.set_viewport_size({"width": 1440, "height": 900})
    open_page(page, f"{server.url}/chat", "Chat prompts")
    page.get_by_role("button", name="Families: llama3 beside qwen").click()
    page.get_by_text("Bring a model folder").click()
    page.locator('input[type="file"]').set_input_files(str(archive))
    expect(page.get_by_role("button", name="Families: llama3 beside model.zip")).to_be_visible()
    expect(page.locator(".bpe-chat")).to_have_count(2)
    expect(page.locator(".bpe-chat-template .bpe-tok").filter(has_text="<|assistant|>").first).to_be_visible()
    assert_no_exception(page)
