"""Chat templates from tokenizer_config.json: prompts as transformers'
`apply_chat_template(messages, add_generation_prompt=True, tokenize=True)`
builds them, and a template that misbehaves ends in one line, within bounds.

The reference is transformers itself (no torch), loaded from the makers'
files; loading it takes seconds, so those comparisons run with the slow
tests. The quick ones hold the prompts to what the makers' templates say,
written out here."""

import json
import time

import pytest

from bpe_core import load_encoding
from bpe_core.sandbox.jinja_chat import TemplateProblem, render, render_untrusted
from bpe_core.vocabularies.catalogue import chat_prompt
from bpe_core.vocabularies.chat import ChatError, Message
from bpe_core.vocabularies.chat_templates import jinja_chat, template_variables
from tests.test_zoo_hf_files import transformers_folder

CONVERSATIONS = {
    "a system turn": [Message("system", "You are terse."), Message("user", "Hi there")],
    "several turns": [Message("user", "Hello"), Message("assistant", "Hi! How can I help?"),
                      Message("user", "Tell me a joke."), Message("assistant", "No."), Message("user", "  Please  ")],
    "non-ASCII text": [Message("system", "Réponds en français 🇫🇷"), Message("user", "日本語で答えて。नमस्ते! Ça va? ሰላም")],
    "text that looks like a special token": [
        Message("user", "<start_of_turn>model\n<｜Assistant｜><|im_end|><end_of_turn><bos><｜end▁of▁sentence｜>"),
        Message("assistant", "<eos></s> <unused3>"), Message("user", "<｜User｜> \n\n <table>")],
}


@pytest.mark.slow
@pytest.mark.parametrize("conversation", list(CONVERSATIONS))
@pytest.mark.parametrize("name", ["gemma3", "deepseek_v3"])
def test_prompt_ids_equal_transformers_apply_chat_template(name, conversation):
    messages = CONVERSATIONS[conversation]
    turns = [{"role": message.role, "content": message.content} for message in messages]
    reference = transformers_folder(name)
    prompt = chat_prompt(messages, name, load_encoding(name))
    assert prompt.text == reference.apply_chat_template(turns, add_generation_prompt=True, tokenize=False)
    assert prompt.ids == reference.apply_chat_template(turns, add_generation_prompt=True, tokenize=True)["input_ids"]


def test_gemmas_template_folds_the_system_turn_into_the_first_user_turn():
    prompt = chat_prompt(CONVERSATIONS["a system turn"], "gemma3", load_encoding("gemma3"))
    assert prompt.text == ("<bos><start_of_turn>user\nYou are terse.\n\nHi there<end_of_turn>\n"
                           "<start_of_turn>model\n")
    kinds = [(part.text, part.kind, part.turn) for part in prompt.parts]
    assert kinds[0] == ("<bos>", "special", None)  # the prompt's start
    assert ("You are terse.", "text", 0) in kinds and ("Hi there", "text", 1) in kinds
    assert kinds[-2:] == [("<start_of_turn>", "special", None), ("model\n", "template", None)]  # the cue
    assert prompt.tokens_of(0, ["text"]) == len(load_encoding("gemma3").encode("You are terse."))


def test_gemma_trims_a_turns_text_and_deepseek_gathers_system_turns_first():
    gemma = chat_prompt(CONVERSATIONS["several turns"], "gemma3", load_encoding("gemma3"))
    assert "<start_of_turn>user\nPlease<end_of_turn>" in gemma.text
    assert [part.text for part in gemma.parts if part.turn == 4 and part.kind == "text"] == ["Please"]
    deepseek = chat_prompt(CONVERSATIONS["a system turn"], "deepseek_v3", load_encoding("deepseek_v3"))
    assert deepseek.text == "<｜begin▁of▁sentence｜>You are terse.<｜User｜>Hi there<｜Assistant｜>"
    assert deepseek.tokens_of(None, ["special"]) == 2  # the beginning of the sentence, and the cue


def test_text_that_spells_a_special_token_becomes_it_as_in_transformers():
    """transformers encodes the rendered prompt with every added token found,
    also those a user typed: the ids say so, and so do the parts."""
    gemma = load_encoding("gemma3")
    prompt = chat_prompt([Message("user", "a<end_of_turn>b")], "gemma3", gemma)
    typed = [part for part in prompt.parts if part.turn == 0]
    assert ("<end_of_turn>", "special") in [(part.text, part.kind) for part in typed]
    assert prompt.ids.count(gemma.special_tokens["<end_of_turn>"]) == 2


def test_a_prompts_parts_join_into_its_text_and_their_tokens_into_its_ids():
    for name in ("gemma3", "deepseek_v3"):
        tokenizer = load_encoding(name)
        for messages in CONVERSATIONS.values():
            prompt = chat_prompt(messages, name, tokenizer)
            assert "".join(part.text for part in prompt.parts) == prompt.text
            assert prompt.ids == tokenizer.encode(prompt.text, allowed_special="all")
            for part, spans in zip(prompt.parts, prompt.part_spans):
                assert b"".join(tokenizer.token_bytes(span.id) for span in spans) == part.text.encode("utf-8") \
                    or name == "gemma3"  # Gemma's "▁" pieces stand for the spaces typed


@pytest.mark.slow
def test_the_environment_is_transformers_own_on_what_templates_use():
    """tojson (non-ASCII and HTML left alone), namespace, loop controls, the
    generation block, trim and lstrip of blocks, the special tokens."""
    from transformers.utils.chat_template_utils import render_jinja_template

    template = (
        "{% set ns = namespace(n=0) %}{{ bos_token }}\n"
        "{%- for m in messages %}{% if m.role == 'system' %}{% continue %}{% endif %}\n"
        "  {% set ns.n = ns.n + 1 %}[{{ ns.n }}] {{ m | tojson }}{% generation %}<{{ m.content | trim }}>{% endgeneration %}\n"
        "{% endfor %}{{ dict(a=1) | tojson }}{% if add_generation_prompt %}{{ eos_token }}{% endif %}"
    )
    turns = [{"role": "system", "content": "sys"}, {"role": "user", "content": " <b>é</b> & \"q\" "}]
    variables = {"bos_token": "<s>", "eos_token": "</s>"}
    expected, _ = render_jinja_template([turns], chat_template=template, add_generation_prompt=True, **variables)
    assert render(template, turns, variables).text == expected[0]


def test_the_named_special_tokens_are_read_as_transformers_passes_them():
    config = {"bos_token": {"__type": "AddedToken", "content": "<｜begin▁of▁sentence｜>"}, "eos_token": "<eos>",
              "unk_token": None, "pad_token": "<pad>", "extra_special_tokens": {"boi_token": "<start_of_image>"}}
    assert template_variables(config) == {"bos_token": "<｜begin▁of▁sentence｜>", "eos_token": "<eos>",
                                          "pad_token": "<pad>", "boi_token": "<start_of_image>"}


HI = [Message("user", "hi")]


@pytest.mark.parametrize("template, message", [
    ("{{ raise_exception('Only user turns, please') }}", "refused this conversation: Only user turns, please"),
    ("{% for %}", r"not valid Jinja \(line 1"),
    ("{{ ''.__class__.__mro__ }}", "unsafe"),
    ("{% set ns = namespace(_x=1) %}", "underscore"),
    ("{{ 'x' * 10**10 }}", "needs more than 256 MB"),
    ("{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}",
     "needs more than 256 MB"),
    ("{% for i in range(100000) %}{{ 'y' * 100 }}{% endfor %}", "wrote 10,000,000 characters"),
    ("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "needs more than 256 MB"),
    ("{{ messages[5].content }}", "refused this conversation"),
])
def test_a_visitors_template_that_misbehaves_ends_in_one_line(template, message):
    chat = jinja_chat("folder", template, {"bos_token": "<s>"})
    with pytest.raises(ChatError, match=message) as raised:
        chat.render(HI, load_encoding("gpt2"))
    assert "\n" not in str(raised.value)


@pytest.mark.slow  # the template runs until its 3 s of processor time are spent
def test_a_template_that_loops_is_stopped_by_its_processor_time():
    template = "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}"
    started = time.process_time()
    with pytest.raises(TemplateProblem, match="processor time"):
        render_untrusted(template, [{"role": "user", "content": "hi"}], {})
    assert time.process_time() - started < 1  # the work was the throwaway process's


def test_a_template_renders_the_same_in_a_throwaway_process():
    config = json.loads('{"bos_token": "<s>", "chat_template": "{{ bos_token }}{% for m in messages %}'
                        '[{{ m.role }}] {{ m.content }}\\n{% endfor %}{% if add_generation_prompt %}[assistant]{% endif %}"}')
    turns = [{"role": "user", "content": "héllo"}]
    assert render_untrusted(config["chat_template"], turns, template_variables(config)) == \
        render(config["chat_template"], turns, template_variables(config))


MARKER_TEMPLATES = {
    "its bos token": ({"bos_token": "\ue0009\ue001"}, "{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}"),
    "its own text": ({"bos_token": "<s>"}, "\ue0007\ue001{% for m in messages %}{{ m.content }}{% endfor %}"),
    "a huge number": ({"bos_token": "<s>"}, "\ue000" + "9" * 5000 + "\ue001{% for m in messages %}{{ m.content }}{% endfor %}"),
}


@pytest.mark.parametrize("case", list(MARKER_TEMPLATES))
def test_a_template_that_writes_the_turn_markers_itself_is_all_template_text(case):
    """The prompt's turns are found by markers put around each turn's text;
    a visitor's template (or its special tokens) may write such a marker
    itself, naming a turn that does not exist (or no turn a number can
    name): the prompt is then drawn with no turn's text but the turn's
    own, never a traceback."""
    variables, template = MARKER_TEMPLATES[case]
    parts = [part for part, _ in jinja_chat("folder", template, variables).render(HI, load_encoding("gpt2"))]
    assert "".join(part.text for part in parts).endswith("hi")
    assert [part.text for part in parts if part.kind == "text"] in ([], ["hi"])
