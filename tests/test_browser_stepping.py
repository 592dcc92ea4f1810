"""Stepping through training on stage, in a real Chromium: keys work as soon
as the page has loaded, a step is drawn in the browser without asking the
server, Play keeps its pace, and the server hears the step once the
presenter pauses (a link, the try-it box and a new session follow it)."""

import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect
from streamlit.proto.BackMsg_pb2 import BackMsg

from bpe_core import train
from bpe_core.corpora.samples import catalog
from tests.browser import (
    assert_no_exception,
    menu_label,
    new_page,
    one_tab_per_file,
    open_menu,
    open_page,
    run,
    screenshot,
    type_into,
)

pytestmark = pytest.mark.browser
tab, page = one_tab_per_file()

# Times the page itself records (performance.now(), in ms): every message the
# page sends its server, and every key pressed.
RECORD_SENDS_AND_KEYS = """
window.__sent = [];
const send = WebSocket.prototype.send;
WebSocket.prototype.send = function (...args) { window.__sent.push(performance.now()); return send.apply(this, args); };
window.__keys = [];
document.addEventListener("keydown", () => window.__keys.push(performance.now()), true);
"""

# Times at which the step control showed each step: [time, step].
RECORD_STEPS = """element => {
  window.__steps = [];
  new MutationObserver(() => window.__steps.push([performance.now(), Number(element.dataset.step)]))
    .observe(element, {attributes: true, attributeFilter: ["data-step"]});
}"""


@pytest.fixture(scope="module")
def trace():
    """What the Train page shows for English prose, GPT-4 pattern, 1,500 tokens."""
    return train(catalog()["english_prose"].load(), vocab_size=1_500, pattern="cl100k",
                 special_tokens=("<|endoftext|>",)).trace


def heading(page):
    return page.locator(".trn-heading")


def step_in_link(page) -> int:
    return int(parse_qs(urlparse(page.url).query).get("train_step", ["0"])[0])


def test_a_key_press_steps_in_the_browser_with_no_message_to_the_server(server, browser, trace):
    page = new_page(browser)
    page.add_init_script(RECORD_SENDS_AND_KEYS)
    open_page(page, f"{server.url}/train?train_vocab=1500", "Train")
    expect(heading(page)).to_contain_text("Step 0")
    page.locator(".stp").evaluate(RECORD_STEPS)
    runs_before = page.finished_runs
    page.keyboard.press("ArrowRight")  # no click first: keys work as soon as the page has loaded
    expect(heading(page)).to_contain_text(f"Merge 1 of {len(trace):,}")
    shown_at = page.evaluate("window.__steps[0][0]")
    pressed_at = page.evaluate("window.__keys[window.__keys.length - 1]")
    sent_between = page.evaluate(f"window.__sent.filter(t => t >= {pressed_at} && t <= {shown_at}).length")
    assert sent_between == 0 and page.finished_runs == runs_before
    merge = trace[0]
    expect(page.locator(".trn-chips")).to_contain_text(str(merge.new_id))
    expect(page.locator(".trn-text .bpe-new").first).to_be_visible()  # the new token, outlined in the text
    expect(page.locator(".trn-pairs tbody tr").first).to_contain_text(f"{trace[1].count:,}")
    assert_no_exception(page)
    page.context.close()


def test_buttons_slider_and_keys_move_through_the_run(server, page, trace):
    open_page(page, f"{server.url}/train?train_vocab=1500", "Train")
    for step in (1, 2, 3):
        page.get_by_role("button", name="Next step").click()
        expect(heading(page)).to_contain_text(f"Merge {step} of")
    page.keyboard.press("ArrowLeft")
    expect(heading(page)).to_contain_text("Merge 2 of")
    page.get_by_role("button", name="First step").click()
    expect(heading(page)).to_contain_text("Step 0")
    page.locator(".stp-slider").fill("40")
    expect(heading(page)).to_contain_text(f"Merge 40 of {len(trace):,}")
    expect(page.locator(".trn-pairs tbody tr").first).to_contain_text(f"{trace[40].count:,}")
    expect(page).to_have_url(re.compile(r"train_step=40(&|$)"))  # the address bar follows at once
    assert_no_exception(page)


def test_the_settings_wait_in_a_menu_that_says_what_is_trained(server, page):
    """Opened, the menu's settings work as ever; it stays open while they change, and its label follows."""
    fewer = train(catalog()["english_prose"].load(), vocab_size=600, pattern="cl100k",
                  special_tokens=("<|endoftext|>",))
    open_page(page, f"{server.url}/train", "Train")
    expect(menu_label(page, "train_settings_menu")).to_have_text("Vocabulary 1,000 · bytes · split GPT-4 (cl100k)")
    open_menu(page, "train_settings_menu")
    size = page.get_by_label("Vocabulary size", exact=True)
    type_into(page, size, "600")
    expect(page.get_by_role("button", name="Vocabulary 600 · bytes · split GPT-4 (cl100k)")).to_be_visible()
    expect(size).to_be_visible()
    expect(page.locator(".stp-position")).to_have_text(f"0 / {len(fewer.trace):,}")  # trained again
    expect(page).to_have_url(re.compile(r"train_vocab=600(&|$)"))
    assert_no_exception(page)


def test_a_step_past_the_steps_held_fetches_them_and_lands_there(server, page, trace):
    assert len(trace) > 1_000  # more than the browser holds at once
    open_page(page, f"{server.url}/train?train_vocab=1500", "Train")
    page.keyboard.press("End")
    expect(heading(page)).to_contain_text(f"Merge {len(trace):,} of {len(trace):,}")
    expect(page.locator(".trn-chips")).to_contain_text(str(trace[-1].new_id))
    page.keyboard.press("Home")
    expect(heading(page)).to_contain_text("Step 0")
    assert_no_exception(page)


def test_play_keeps_its_pace_of_8_steps_a_second(server, page):
    open_page(page, f"{server.url}/train?train_vocab=1500&train_speed=8", "Train")
    expect(page.locator(".stp-speed")).to_have_value("8")
    page.locator(".stp").evaluate(RECORD_STEPS)
    page.keyboard.press(" ")
    expect(page.locator(".stp-play")).to_have_text("⏸ Pause")
    page.wait_for_function("window.__steps.length && window.__steps[window.__steps.length - 1][1] >= 40")
    page.keyboard.press(" ")
    expect(page.locator(".stp-play")).to_have_text("▶ Play")
    steps = page.evaluate("window.__steps")
    (first_time, first_step), (last_time, last_step) = steps[0], steps[-1]
    rate = (last_step - first_step) / ((last_time - first_time) / 1000)  # by the page's own clock
    assert 7.2 <= rate <= 8.8, rate
    paused_at = last_step
    expect(page).to_have_url(re.compile(rf"train_step={paused_at}(&|$)"))
    page.get_by_role("button", name="Next step").click()  # stepping by hand goes on from there
    expect(heading(page)).to_contain_text(f"Merge {paused_at + 1:,} of")


def record_fragment_reruns(page):
    """Every rerun of a fragment this page asks its server for (a step told is one)."""
    page.fragment_reruns = []

    def on_sent(payload) -> None:
        if isinstance(payload, bytes):
            message = BackMsg()
            message.ParseFromString(payload)
            if message.WhichOneof("type") == "rerun_script" and message.rerun_script.fragment_id:
                page.fragment_reruns.append(message.rerun_script.fragment_id)

    page.on("websocket", lambda websocket: websocket.on("framesent", on_sent))
    return page


def test_the_control_tells_the_server_nothing_until_the_presenter_moves(server, browser, trace):
    """The step the server drew is not told back: an unasked message starts
    a rerun that races what the presenter does next, and when that was
    leaving for another page, the page came up blank (the rerun asked for
    a fragment of the page just left)."""
    page = record_fragment_reruns(new_page(browser))
    page.clock.install()  # time flows as ever; fast_forward fires the control's timers at once
    open_page(page, f"{server.url}/train?train_vocab=1500&train_step=7", "Train")
    expect(heading(page)).to_contain_text(f"Merge 7 of {len(trace):,}")
    page.clock.fast_forward(60_000)  # far past the pause after which a step is told
    run(page, lambda: (page.keyboard.press("ArrowRight"), page.clock.fast_forward(60_000)))  # a step moved is told
    expect(page.get_by_text("as of step 8")).to_be_visible()
    assert len(page.fragment_reruns) == 1  # that step's, and nothing before it
    assert_no_exception(page)
    page.context.close()


def test_the_server_hears_the_step_once_the_presenter_pauses(server, browser, page, trace):
    open_page(page, f"{server.url}/train?train_vocab=1500&train_step=7", "Train")
    expect(heading(page)).to_contain_text(f"Merge 7 of {len(trace):,}")
    run(page, lambda: page.keyboard.press("ArrowRight"))  # the pause's message reruns the step view
    expect(page.get_by_text("as of step 8")).to_be_visible()  # the try-it box follows
    expect(page).to_have_url(re.compile(r"train_step=8(&|$)"))

    other = new_page(browser)  # the link, opened in a new session, lands on the same merge
    open_page(other, page.url, "Train")
    expect(heading(other)).to_contain_text(f"Merge 8 of {len(trace):,}")
    expect(other.locator(".trn-chips")).to_contain_text(str(trace[7].new_id))
    assert_no_exception(other)
    other.context.close()


def test_a_token_in_the_text_opens_its_card_on_focus(server, page):
    open_page(page, f"{server.url}/train?train_vocab=1500&train_step=60", "Train")
    token = page.locator(".trn-text .bpe-tok").first
    token.click()
    expect(token).to_be_focused()
    card = token.get_attribute("data-card")
    assert card.startswith("id ") and "bytes:" in card
    page.keyboard.press("ArrowRight")  # within the text, arrows walk the tokens, not the steps
    expect(page.locator(".trn-text .bpe-tok").nth(1)).to_be_focused()
    expect(heading(page)).to_contain_text("Merge 60 of")
    screenshot(page, "train-card")


def test_when_the_server_hears_the_step_the_view_is_not_redrawn(server, page):
    open_page(page, f"{server.url}/train?train_vocab=1500&train_step=20", "Train")
    text = page.locator(".trn-text")
    text.evaluate("element => { element.scrollTop = 120; element.dataset.mark = 'kept'; }")
    run(page, lambda: page.keyboard.press("ArrowRight"))  # the pause's message reruns the step view ...
    expect(page.get_by_text("as of step 21")).to_be_visible()
    assert text.evaluate("element => [element.scrollTop, element.dataset.mark]") == [120, "kept"]  # ... not redrawn
    expect(heading(page)).to_contain_text("Merge 21 of")


def test_a_word_typed_in_the_replays_text_menu_is_replayed_and_named_on_its_button(server, page):
    open_page(page, f"{server.url}/replay", "Encode replay")
    expect(menu_label(page, "replay_text_menu")).to_have_text("Text: ·strawberry")
    open_menu(page, "replay_text_menu")
    type_into(page, page.get_by_label("A word or a short phrase", exact=True), " cat")
    expect(menu_label(page, "replay_text_menu")).to_have_text("Text: ·cat")
    expect(menu_label(page, "replay_token_menu")).to_have_text("Token: ·cat (id 8415)")  # cl100k_base: one token
    expect(page.locator(".stp-position")).to_have_text("0 / 3")
    assert "replay_text=+cat" in page.url or "replay_text=%20cat" in page.url
    assert_no_exception(page)
