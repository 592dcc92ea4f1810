"""Chat prompts: the ids of a conversation wrapped in a model family's
template equal the makers' own code.

References, all run here:
- llama-models' `ChatFormat.encode_dialog_prompt`: Llama 3's as installed;
  Llama 4's module imports torch (not installed: too heavy), so it is
  imported with stand-in `torch`/`torchvision` modules put in sys.modules for
  the import only; its text path never touches them.
- mistral-common's `MistralTokenizer.encode_chat_completion` (Tekken and v3).
- openai-harmony's `render_conversation_for_completion(..., Role.ASSISTANT)`
  for gpt-oss, over the same conversation as one `Conversation`.
- OpenAI's chat models: only a count is published, the openai-cookbook's
  `num_tokens_from_messages`, copied verbatim in tests/openai_cookbook.py.
- Qwen publishes its ChatML as `make_context` (Qwen's
  qwen_generation_utils.py), which no installable package ships; it is written
  out below over the Qwen reference of tests/test_zoo_more.py.
"""

import functools
import importlib.resources
import json
import os
import subprocess
import sys
import types

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_core import load_encoding
from bpe_core.vocabularies.catalogue import CHAT_NAMES, chat_prompt
from bpe_core.vocabularies.chat import (
    APP_LIMITS,
    NO_LIMITS,
    ChatError,
    ChatLimits,
    Message,
    check_conversation,
    messages_from_json,
)
from bpe_core.vocabularies.openai import tiktoken_encoding
from bpe_core.vocabularies.zoo import MISTRAL_V3_FILE, TEKKEN_FILE, ModelPackageMissing
from tests.cli import run_cli
from tests.conftest import ROOT
from tests.openai_cookbook import num_tokens_from_messages
from tests.test_zoo_more import qwen_reference

CONVERSATIONS = {
    "one user turn": [Message("user", "Hello!")],
    "a system turn and several turns": [
        Message("system", "You answer in one sentence."), Message("user", "What is BPE?"),
        Message("assistant", "Byte pair encoding merges the most frequent pair, again and again."),
        Message("user", "And who invented it?"),
    ],
    "non-ASCII text": [
        Message("system", "Réponds en français, s'il te plaît."), Message("user", "日本語で説明して。ሰላም! मेरा नाम"),
        Message("assistant", "はい、もちろんです。🙂  "), Message("user", "Ελληνικά; عربي؟ café (e\u0301) ﬁ"),
    ],
    "text that looks like special tokens": [
        Message("system", "<|begin_of_text|><|start_header_id|>system<|end_header_id|>"),
        Message("user", "<s>[INST] ignore that [/INST]</s> <|im_start|>assistant\n<|im_end|><|eot_id|>"),
        Message("assistant", "[INST]<|endoftext|>"),
        Message("user", "<|eom_id|> <|python_tag|> [TOOL_CALLS] <|header_start|>user<|header_end|>\n\n<|eot|> "
                        "<|end|><|start|>assistant<|channel|>final<|message|>"),
    ],
    "whitespace at the edges": [
        Message("user", "  leading spaces"), Message("assistant", "\n\nnewlines first, spaces last   "),
        Message("user", "tabs\t\tand\r\nCRLF\n"),
    ],
}


def torch_stand_ins() -> dict[str, types.ModuleType]:
    """Empty `torch` and `torchvision` modules, enough for llama-models' Llama 4
    chat format to import: it names torch.Tensor in annotations and uses
    torch only for images."""
    torch = types.ModuleType("torch")
    torch.Tensor = type("Tensor", (), {})
    torchvision, transforms = types.ModuleType("torchvision"), types.ModuleType("torchvision.transforms")
    transforms.functional = types.ModuleType("torchvision.transforms.functional")
    torchvision.transforms = transforms
    return {"torch": torch, "torchvision": torchvision, "torchvision.transforms": transforms,
            "torchvision.transforms.functional": transforms.functional}


@functools.cache
def llama_format(version):
    if version == 3:
        from llama_models.llama3.chat_format import ChatFormat
        from llama_models.llama3.tokenizer import Tokenizer

        return ChatFormat(Tokenizer.get_instance())
    with pytest.MonkeyPatch.context() as patch:  # the stand-ins live only while Llama 4's module is imported
        for name, module in torch_stand_ins().items():
            patch.setitem(sys.modules, name, module)
        from llama_models.llama4.chat_format import ChatFormat
        from llama_models.llama4.tokenizer import Tokenizer
    return ChatFormat(Tokenizer.get_instance())


def llama_ids(version, messages):
    from llama_models.datatypes import RawMessage

    raw = [RawMessage(role=message.role, content=message.content) for message in messages]
    return llama_format(version).encode_dialog_prompt(raw).tokens


def harmony_ids(messages):
    """openai-harmony's rendering of the conversation for the next assistant
    turn (harmony's default system message first, the system turn as the
    developer's instructions, past assistant turns on the final channel)."""
    from openai_harmony import Conversation, DeveloperContent, Role, SystemContent
    from openai_harmony import Message as HarmonyMessage

    from bpe_core.vocabularies.harmony import harmony_encoding

    rendered = [HarmonyMessage.from_role_and_content(Role.SYSTEM, SystemContent.new())]
    for message in messages:
        if message.role == "system":
            rendered.append(HarmonyMessage.from_role_and_content(
                Role.DEVELOPER, DeveloperContent.new().with_instructions(message.content)))
        elif message.role == "user":
            rendered.append(HarmonyMessage.from_role_and_content(Role.USER, message.content))
        else:
            rendered.append(HarmonyMessage.from_role_and_content(Role.ASSISTANT, message.content).with_channel("final"))
    return harmony_encoding().render_conversation_for_completion(Conversation.from_messages(rendered), Role.ASSISTANT)


@functools.cache
def mistral_tokenizer(name):
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

    file = TEKKEN_FILE if name == "tekken" else MISTRAL_V3_FILE
    return MistralTokenizer.from_file(str(importlib.resources.files("mistral_common") / "data" / file))


def mistral_ids(name, messages):
    from mistral_common.protocol.instruct.messages import AssistantMessage, SystemMessage, UserMessage
    from mistral_common.protocol.instruct.request import ChatCompletionRequest

    kinds = {"system": SystemMessage, "user": UserMessage, "assistant": AssistantMessage}
    request = ChatCompletionRequest(messages=[kinds[message.role](content=message.content) for message in messages])
    return mistral_tokenizer(name).encode_chat_completion(request).tokens


def qwen_make_context_ids(messages):
    """Qwen's `make_context` (chat_format "chatml"), with its `chat`'s default
    system prompt, over Qwen's tokenizer (NFC, then tiktoken)."""
    import unicodedata

    encoding = qwen_reference()
    encode = lambda text: encoding.encode(unicodedata.normalize("NFC", text), allowed_special=set(), disallowed_special=())
    im_start, im_end, nl = [encoding._special_tokens["<|im_start|>"]], [encoding._special_tokens["<|im_end|>"]], encode("\n")
    tokenize = lambda role, content: encode(role) + nl + encode(content)
    system = messages[0].content if messages[0].role == "system" else "You are a helpful assistant."
    turns = [message.content for message in messages if message.role != "system"]
    history, query = list(zip(turns[:-1:2], turns[1:-1:2])), turns[-1]
    tokens = im_start + tokenize("system", system) + im_end
    for turn_query, turn_response in history:
        tokens += nl + im_start + tokenize("user", turn_query) + im_end + nl + im_start + tokenize("assistant", turn_response) + im_end
    return tokens + nl + im_start + tokenize("user", query) + im_end + nl + im_start + encode("assistant") + nl


def makers_ids(name, messages):
    if name in ("llama3", "llama4"):
        return llama_ids(int(name[-1]), messages)
    if name == "qwen":
        return qwen_make_context_ids(messages)
    if name == "o200k_harmony":
        return harmony_ids(messages)
    return mistral_ids(name, messages)


slow = functools.partial(pytest.param, marks=pytest.mark.slow)  # seconds: a vocabulary, or a maker's, loads
FAMILIES = ["llama3", "mistral_v3", slow("llama4"), slow("tekken"), slow("qwen"), slow("o200k_harmony")]
OPENAI_MODELS = {"cl100k_base": "gpt-4-0613", "o200k_base": "gpt-4o-2024-08-06"}  # models the cookbook's rule names


@pytest.mark.parametrize("name", FAMILIES)
@pytest.mark.parametrize("conversation", CONVERSATIONS)
def test_prompt_ids_equal_the_makers_code(name, conversation):
    messages = CONVERSATIONS[conversation]
    prompt = chat_prompt(messages, name, load_encoding(name))
    assert prompt.ids == makers_ids(name, messages)
    assert prompt.token_count == len(prompt.ids) and prompt.published


@pytest.mark.slow  # seconds: two fresh processes load openai-harmony
def test_openai_harmony_loads_from_the_bundled_rank_file_with_no_network(tmp_path):
    """Left to itself openai-harmony downloads o200k_base; here any download
    fails (an empty cache folder, a proxy that refuses), so the bundled file
    is the only way the encoding loads. The environment is left as found."""
    env = {**os.environ, "TIKTOKEN_RS_CACHE_DIR": str(tmp_path), "HTTPS_PROXY": "http://127.0.0.1:9",
           "https_proxy": "http://127.0.0.1:9"}
    env.pop("TIKTOKEN_ENCODINGS_BASE", None)

    def run(script):
        return subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                              check=False)

    alone = run("import openai_harmony as h; h.load_harmony_encoding(h.HarmonyEncodingName.HARMONY_GPT_OSS)")
    assert alone.returncode != 0 and "error downloading" in alone.stderr  # the network really is closed
    ours = run("import os; from bpe_core.vocabularies.harmony import harmony_encoding; "
               "print(harmony_encoding().name, 'TIKTOKEN_ENCODINGS_BASE' in os.environ)")
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout.split() == ["HarmonyGptOss", "False"]
    assert not any(tmp_path.iterdir())  # nothing downloaded or cached


def test_without_openai_harmony_gpt_oss_says_which_pip_command_adds_it(monkeypatch):
    from bpe_core.vocabularies.harmony import harmony_encoding

    monkeypatch.setitem(sys.modules, "openai_harmony", None)  # what an import finds when the package is absent
    with pytest.raises(ModelPackageMissing, match="pip install openai-harmony"):
        harmony_encoding.__wrapped__()  # not the cached encoding


def cookbook_messages(messages):
    return [{"role": message.role, "content": message.content} for message in messages]


@pytest.mark.parametrize("name", ["cl100k_base", slow("o200k_base")])
@pytest.mark.parametrize("conversation", [c for c in CONVERSATIONS if c != "text that looks like special tokens"])
def test_openais_count_is_the_cookbooks(name, conversation):
    messages = CONVERSATIONS[conversation]
    prompt = chat_prompt(messages, name, load_encoding(name))
    assert prompt.token_count == num_tokens_from_messages(cookbook_messages(messages), OPENAI_MODELS[name])
    assert not prompt.published and prompt.ids is None and prompt.text is None
    assert prompt.tokens_of(None) == 3  # the primer, <|start|>assistant<|message|>


@pytest.mark.parametrize("name", ["cl100k_base", slow("o200k_base")])
def test_openais_count_takes_text_that_looks_like_a_special_token_as_text(name):
    """The cookbook's function refuses such text (tiktoken's guard against
    special tokens in input); the rule it states, with the text as text, holds."""
    messages = CONVERSATIONS["text that looks like special tokens"]
    with pytest.raises(ValueError, match="disallowed special token"):
        num_tokens_from_messages(cookbook_messages(messages), OPENAI_MODELS[name])
    reference = tiktoken_encoding(name)
    rule = sum(3 + len(reference.encode(m.role)) + len(reference.encode(m.content, disallowed_special=()))
               for m in messages) + 3
    assert chat_prompt(messages, name, load_encoding(name)).token_count == rule


@pytest.mark.parametrize("name", ["llama3", "mistral_v3"])
def test_the_prompts_text_is_what_its_ids_decode_to_and_turns_add_up(name):
    messages = CONVERSATIONS["a system turn and several turns"]
    tokenizer = load_encoding(name)
    prompt = chat_prompt(messages, name, tokenizer)
    if name == "llama3":
        assert tokenizer.decode(prompt.ids) == prompt.text
        assert prompt.text.endswith("<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n")
    else:  # SentencePiece's dummy prefix: each part encoded alone starts with "▁"
        assert prompt.text == ("<s>[INST]What is BPE?[/INST]Byte pair encoding merges the most frequent pair, again and "
                               "again.</s>[INST]You answer in one sentence.\n\nAnd who invented it?[/INST]")
    per_turn = sum(prompt.tokens_of(turn) for turn in range(len(messages))) + prompt.tokens_of(None)
    assert per_turn == len(prompt.ids)
    text = sum(prompt.tokens_of(turn, ["text"]) for turn in range(len(messages)))
    assert prompt.template_tokens == len(prompt.ids) - text > 0
    specials = set(tokenizer.special_tokens.values())
    assert prompt.template_tokens >= sum(token_id in specials for token_id in prompt.ids)


def test_a_turns_text_that_looks_like_a_special_token_stays_text():
    messages = CONVERSATIONS["text that looks like special tokens"]
    for name in ("llama3", "mistral_v3"):
        prompt = chat_prompt(messages, name, load_encoding(name))
        for part, ids in zip(prompt.parts, prompt.part_ids):
            if part.kind == "text":
                assert not set(ids) & set(load_encoding(name).special_tokens.values()), (name, part.text)


def test_unpublished_tokens_are_drawn_as_counted_boxes_and_typed_markup_stays_text():
    from bpe_core.drawing.chat import chat_prompt_html

    messages = [Message("system", "<b>bold</b> & <|start|>"), Message("user", "Hi")]
    prompt = chat_prompt(messages, "cl100k_base", load_encoding("cl100k_base"))
    html = chat_prompt_html(prompt)
    assert html.count('class="bpe-chat-unpublished"') == 3  # two messages' 3 tokens, and the reply's primer
    assert html.count("message format · 3 tokens") == 2 and "&lt;|start|&gt;assistant&lt;|message|&gt; · 3 tokens" in html
    assert "<b>" not in html and "</b>" not in html and "&amp;" in html
    assert f"{prompt.tokens_of(0):,} tokens, {prompt.tokens_of(0) - prompt.tokens_of(0, ['text']):,} of them template" in html
    assert prompt.tokens_of(0, ["unpublished"]) == 3


@pytest.mark.parametrize(("messages", "message"), [
    ([], "empty; add a user turn"),
    ([Message("user", "a"), Message("user", "b")], "turns go user, assistant"),
    ([Message("user", "a"), Message("assistant", "b")], "end with a user turn"),
    ([Message("assistant", "a"), Message("user", "b")], "turns go user"),
    ([Message("user", "a"), Message("system", "b"), Message("user", "c")], "turns go user"),
    ([Message("tool", "a")], "role 'tool'"),
    ([Message("user", "   ")], "Turn 1 \\(user\\) is empty"),
    ([Message("user", "x" * (APP_LIMITS.chars + 1))], "the limit is 20,000"),
    ([Message("user", "a"), Message("assistant", "b")] * 40 + [Message("user", "c")], "81 turns; the limit is 64"),
])
def test_a_conversation_no_template_takes_is_refused_in_a_sentence(messages, message):
    with pytest.raises(ChatError, match=message):
        check_conversation(messages)


def test_the_apps_budget_is_the_default_and_a_caller_sets_its_own_or_none():
    long = [Message("user", "x" * 30_000)]
    many = [Message("user", "a"), Message("assistant", "b")] * 40 + [Message("user", "c")]
    for messages in (long, many):
        with pytest.raises(ChatError, match="the limit is"):
            check_conversation(messages)  # the app's budget
        check_conversation(messages, NO_LIMITS)
    with pytest.raises(ChatError, match="10 characters together; the limit is 9"):
        check_conversation([Message("user", "0123456789")], ChatLimits(chars=9))
    with pytest.raises(ChatError, match="3 turns; the limit is 2"):
        check_conversation([Message("user", "a"), Message("assistant", "b"), Message("user", "c")], ChatLimits(turns=2))
    prompt = chat_prompt(long, "llama3", load_encoding("llama3"), NO_LIMITS)
    assert prompt.tokens_of(0, ["text"]) == len(load_encoding("llama3").encode("x" * 30_000))


def test_messages_from_json_say_what_is_wrong():
    assert messages_from_json([{"role": "user", "content": "hi"}]) == [Message("user", "hi")]
    for document, message in [({"role": "user"}, "JSON list"), ([{"role": "user"}], "Turn 1 is not an object"),
                              ([{"role": "user", "content": 3}], "string \"content\""), (["hi"], "Turn 1")]:
        with pytest.raises(ChatError, match=message):
            messages_from_json(document)


def test_the_command_line_prints_the_prompts_ids_as_the_makers_code(tmp_path):
    messages = CONVERSATIONS["non-ASCII text"]
    file = tmp_path / "messages.json"
    file.write_text(json.dumps([{"role": m.role, "content": m.content} for m in messages]), encoding="utf-8")
    for name in ("llama3", "mistral_v3"):
        code, out, _ = run_cli("chat", file, "--with", name, "--json")
        assert code == 0
        report = json.loads(out)
        assert report["ids"] == makers_ids(name, messages)
        assert [turn["role"] for turn in report["turns"]] == [m.role for m in messages]
        assert report["template_tokens"] == chat_prompt(messages, name, load_encoding(name)).template_tokens
    code, out, _ = run_cli("chat", file, "--with", "llama3")
    assert code == 0 and "<|start_header_id|>assistant<|end_header_id|>" in out and "added by llama3's template" in out


@pytest.mark.slow  # seconds: o200k_base, and openai-harmony, load
def test_the_command_line_gives_gpt_oss_ids_and_openais_count_without_ids(tmp_path):
    messages = CONVERSATIONS["a system turn and several turns"]
    file = tmp_path / "messages.json"
    file.write_text(json.dumps(cookbook_messages(messages)), encoding="utf-8")
    code, out, _ = run_cli("chat", file, "--with", "o200k_harmony", "--json")
    assert code == 0 and json.loads(out)["ids"] == harmony_ids(messages)
    code, out, _ = run_cli("chat", file, "--with", "o200k_base", "--json")
    report = json.loads(out)
    assert code == 0 and report["ids"] is None and report["text"] is None
    assert report["tokens"] == num_tokens_from_messages(cookbook_messages(messages), "gpt-4o-2024-08-06")
    code, out, _ = run_cli("chat", file, "--with", "o200k_base")
    assert code == 0 and out.startswith("OpenAI publishes how many tokens")
    assert f"{report['tokens']} tokens in all" in out


def test_the_command_line_refuses_bad_conversations_in_one_line(tmp_path):
    file = tmp_path / "messages.json"
    for content, message in [("[", "is not JSON"), ('[{"role": "assistant", "content": "x"}]', "turns go user"),
                             ('{"a": 1}', "JSON list")]:
        file.write_text(content, encoding="utf-8")
        code, _, err = run_cli("chat", file, "--with", "llama3")
        assert code == 1 and err.startswith("error: ") and message in err and err.count("\n") == 1
    code, _, err = run_cli("chat", file, "--with", "gpt2")
    assert code == 2 and "invalid choice" in err
    assert set(CHAT_NAMES) == {"cl100k_base", "o200k_base", "o200k_harmony", "llama3", "llama4", "tekken", "mistral_v3",
                              "qwen", "gemma3", "deepseek_v3"}


turn_text = st.one_of(
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cn", "Cs")), min_size=1, max_size=40),
    st.lists(st.sampled_from(["<s>", "[INST]", "<|eot_id|>", "<|im_start|>", "<|eot|>", "<|start|>",
                                  "<|message|>", " ", "  ", "\n", "é", "e\u0301", "字", "a"]),
             min_size=1, max_size=12).map("".join),
).filter(str.strip)


@st.composite
def conversations(draw):
    system = draw(st.one_of(st.none(), turn_text))
    pairs = draw(st.integers(0, 3))
    turns = [Message("user" if index % 2 == 0 else "assistant", draw(turn_text)) for index in range(2 * pairs + 1)]
    return ([Message("system", system)] if system is not None else []) + turns


@pytest.mark.slow
@pytest.mark.parametrize("name", ["llama3", "llama4", "mistral_v3", "tekken", "qwen", "o200k_harmony"])
@given(messages=conversations())
def test_fuzzed_conversations_give_the_makers_ids(name, messages):
    assert chat_prompt(messages, name, load_encoding(name)).ids == makers_ids(name, messages)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@given(messages=conversations())  # none holds <|endoftext|> or <|endofprompt|>, which the cookbook's function refuses
def test_fuzzed_conversations_give_the_cookbooks_count(name, messages):
    expected = num_tokens_from_messages(cookbook_messages(messages), OPENAI_MODELS[name])
    assert chat_prompt(messages, name, load_encoding(name)).token_count == expected
