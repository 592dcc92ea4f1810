"""Chat prompts: a conversation as two model families' prompts, side by side.

Widgets only; the templates are `bpe_core.vocabularies.chat` (which name uses
which is the catalogue's), the drawing `bpe_core.drawing.chat`. The default
conversation's prompts in the bundled families are shipped
(`pages.common.chat_views`): a first visit loads no tokenizer.
"""

import streamlit as st

from bpe_core.drawing.chat import ROLE_LABELS, chat_prompt_html
from bpe_core.drawing.markdown import markdown_literal, markdown_table
from bpe_core.drawing.tokens import figures_html
from bpe_core.vocabularies.catalogue import CATALOGUE, CHAT_NAMES, ModelPackageMissing, chat_prompt
from bpe_core.vocabularies.chat import APP_LIMITS, OPENAI_COUNT_NOTE, ChatError, Message, render_prompt
from bpe_core.vocabularies.chat_templates import JinjaTemplate, ShippedTemplate
from pages.common.chat_views import DEFAULT_FAMILIES, DEFAULT_TEXTS, prompt_view, shipped_view
from pages.common.live_text import live_text_area, typed_text
from pages.common.menus import id_or_label, shown_value, whole_number, yes_or_no
from pages.common.navigation import page_header
from pages.common.presenter import presenting
from pages.common.tokenizers import LOADED, bundled_encoding, loaded_tokenizers, tokenizer_by_name
from pages.common.url_state import (
    LINK_TEXT_LIMIT,
    LINKED,
    labelled_choice,
    link_value,
    linked_value,
    whole_number_input,
)
from pages.common.widgets import tokenizer_upload

MAX_EXCHANGES = 6  # earlier user/assistant pairs before the last question
TEXTS = "chat_texts"  # session key: each turn's text, by its slot ("system", "user1", "assistant1", ...)
LINK = "chat"  # link parameter: the turns' texts, while they fit
FAMILY_LABELS = {name: f"{name} — {CATALOGUE[name].chat.family}" for name in CHAT_NAMES}
JINJA_NOTE = ("Rendered from its tokenizer_config.json's chat template as transformers' apply_chat_template renders "
              "it, and encoded as one text, as transformers encodes it: text typed in a turn that spells one of its "
              "special tokens becomes that token.")
DEFAULT_LEFT, DEFAULT_RIGHT = DEFAULT_FAMILIES
TEMPLATE_NOTE = ("Special tokens, role headers and the newlines between turns: what the prompt costs beyond the turns' "
                 "own text.")


def slots(with_system: bool, exchanges: int) -> list[tuple[str, str]]:
    """(slot, role) of every turn: a system turn, user/assistant pairs, the last user turn."""
    turns = [("system", "system")] if with_system else []
    for number in range(1, exchanges + 1):
        turns += [(f"user{number}", "user"), (f"assistant{number}", "assistant")]
    return turns + [(f"user{exchanges + 1}", "user")]


def turn_texts() -> dict[str, str]:
    """Each slot's text: this session's, else the link's, else the defaults."""
    if TEXTS not in st.session_state:
        linked = linked_value(LINK)
        valid = isinstance(linked, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in linked.items())
        st.session_state[TEXTS] = {**DEFAULT_TEXTS, **(linked if valid else {})}
    return st.session_state[TEXTS]


def conversation_editor(turns: list[tuple[str, str]]) -> list[Message]:
    """A box per turn, sent as it is typed; the conversation it holds."""
    texts = turn_texts()
    messages = []
    for slot, role in turns:
        key = f"chat_box_{slot}"
        typed = typed_text(key)
        if typed is not None and typed != st.session_state.get(f"{key}_last"):  # typed since the last run
            texts[slot] = typed
        st.session_state[f"{key}_last"] = typed
        text = texts.get(slot, "")
        live_text_area(ROLE_LABELS[role], key=key, value=text, height=110 if presenting() else 68,
                       placeholder=f"What the {role} says")
        messages.append(Message(role, text))
    shown = {slot: texts.get(slot, "") for slot, _ in turns}
    fits = sum(map(len, shown.values())) <= LINK_TEXT_LIMIT
    link_value(LINK, shown if fits and shown != {s: DEFAULT_TEXTS.get(s, "") for s in shown} else None)
    if not fits:
        st.caption(f"These turns are too long to travel in a link (up to {LINK_TEXT_LIMIT:,} characters together).")
    return messages


def family_labels() -> dict[str, str]:
    """The families the pickers offer: the catalogue's, then the model
    folders this session brought that have a chat template."""
    folders = {LOADED + file_name: f"{file_name} — {tokenizer.chat.family}"
               for file_name, tokenizer in loaded_tokenizers().items() if getattr(tokenizer, "chat", None) is not None}
    return {**FAMILY_LABELS, **folders}


def show_prompt(name: str, messages: list[Message]) -> None:
    """One family's prompt: its counts, its tokens turn by turn, the table."""
    if name in CATALOGUE:
        template = CATALOGUE[name].chat
        view = shipped_view(name, messages)
        if view is None:
            tokenizer = bundled_encoding(name)
            view = prompt_view(chat_prompt(messages, name, tokenizer), tokenizer)
    else:  # a model folder this session brought
        tokenizer = tokenizer_by_name(name)
        template = tokenizer.chat
        view = prompt_view(render_prompt(messages, tokenizer.name, template, tokenizer), tokenizer)
    prompt = view.prompt
    st.markdown(f"**{markdown_literal(name.removeprefix(LOADED))}** · {markdown_literal(template.family)}")
    counts = {"Tokens": f"{prompt.token_count:,}", "Template adds": f"{prompt.template_tokens:,}"}
    st.html(figures_html(counts, notes={"Template adds": TEMPLATE_NOTE})
            + chat_prompt_html(prompt, cards=view.cards, special_ids=view.special_ids))
    rows = [{"turn": str(number), "role": message.role, "tokens": prompt.tokens_of(turn),
             "its text": prompt.tokens_of(turn, ["text"]),
             "template": prompt.tokens_of(turn, ["special", "template", "unpublished"])}
            for number, (turn, message) in enumerate(enumerate(messages), start=1)]
    rows.append({"turn": "", "role": "start and cue", "tokens": prompt.tokens_of(None), "its text": 0,
                 "template": prompt.tokens_of(None)})
    st.markdown(markdown_table(rows))  # a few rows: a plain table, with no pandas to load for it
    if prompt.published:
        # In a menu: a code block loads a syntax highlighter (a quarter of a second of
        # a page load), and a browser draws a menu's content only once it is opened.
        with st.popover("The prompt as text", icon=":material/code:", key=f"chat_as_text_{name.removeprefix(LOADED)}"):
            st.code(prompt.text, language=None, wrap_lines=True)
    else:
        st.caption(markdown_literal(OPENAI_COUNT_NOTE))
    caption = family_caption(name, messages)
    if caption:
        st.caption(caption)
    if isinstance(template.render, (ShippedTemplate, JinjaTemplate)):
        st.caption(JINJA_NOTE)


def family_caption(name: str, messages: list[Message]) -> str | None:
    """What a family's template does with the conversation that the drawing alone does not say."""
    with_system = messages[0].role == "system"
    if name in ("tekken", "mistral_v3") and with_system:
        return ("Mistral's template has no system turn: the system text goes in front of the last user turn, and is "
                "counted there.")
    if name == "qwen" and not with_system:
        return "With no system turn, Qwen adds its default one, “You are a helpful assistant.”"
    if name == "gemma3" and with_system:
        return "Gemma's template has no system turn: the system text opens the first user turn, and is counted there."
    if name == "deepseek_v3" and with_system:
        return "DeepSeek's template puts the system text right after the beginning-of-sentence token, with no header."
    if name == "o200k_harmony":
        return ("gpt-oss's prompt starts with harmony's own system message (openai-harmony's defaults: model "
                "identity, knowledge cutoff, reasoning effort, channels; no date)"
                + ("; the system turn is the developer's “# Instructions”." if with_system else "."))
    return None


def families_label() -> str:
    """The families menu's label: the two families shown (read before their pickers run)."""
    labels = family_labels()

    def family(key: str, default: str) -> str:
        chosen = shown_value(key, default, id_or_label(labels))
        return (chosen if chosen in labels else default).removeprefix(LOADED)
    return "Families: " + " beside ".join(dict.fromkeys([family("chat_left", DEFAULT_LEFT),
                                                         family("chat_right", DEFAULT_RIGHT)]))


def turns_label() -> str:
    """The turns menu's label: a system turn or not, and how many exchanges come before the last question."""
    with_system = shown_value("chat_system", True, yes_or_no)
    exchanges = shown_value("chat_exchanges", 1, whole_number(0, MAX_EXCHANGES))
    exchanges = 1 if exchanges is None else exchanges
    return (f"{'System turn' if with_system else 'No system turn'}, "
            f"{exchanges} earlier exchange{'s' * (exchanges != 1)}")


@st.fragment  # typing reruns the conversation and its prompts, not the page
def conversation_and_prompts(names: list[str], with_system: bool, exchanges: int) -> None:
    editor, views = st.columns([2, 5])
    with editor:
        messages = conversation_editor(slots(with_system, exchanges))
    with views:
        try:
            for column, name in zip(st.columns(len(names)), names):
                with column:
                    show_prompt(name, messages)
        except (ChatError, ModelPackageMissing) as error:
            st.warning(markdown_literal(str(error)))


page_header(
    "Chat prompts",
    "A chat model reads one stream of tokens: every turn framed by its family's template, with special tokens "
    "that say who speaks, and a header at the end that asks for the assistant's reply. Type the conversation; "
    "the template's own tokens are outlined, and the counts say what each turn and the template cost. Ids "
    "equal the makers' own code (llama-models, mistral-common, openai-harmony, Qwen's ChatML), and for Gemma 3, "
    "DeepSeek V3 and a model folder you bring, transformers' apply_chat_template. For GPT-3.5, GPT-4 and GPT-4o "
    "OpenAI publishes only a count, and the page shows that count.",
)

# The conversation and its prompts fill the page; what shapes them waits in
# menus whose labels say what is chosen (pages.common.menus).
toolbar = st.container(horizontal=True)
with toolbar.popover(families_label(), key="chat_families_menu"):
    left = labelled_choice(st, "Model family", family_labels(), key="chat_left", default=DEFAULT_LEFT, width=480)
    right = labelled_choice(st, "Beside it", family_labels(), key="chat_right", default=DEFAULT_RIGHT, width=480)
    with st.expander("Bring a model folder", icon=":material/upload_file:"):
        tokenizer_upload("chat_upload", picker_key="chat_right", folders_only=True)
with toolbar.popover(turns_label(), key="chat_turns_menu"):
    with_system = st.toggle("System turn", key="chat_system", value=True, **LINKED)
    exchanges = whole_number_input(st, "Earlier exchanges", key="chat_exchanges", value=1, min_value=0,
                                   max_value=MAX_EXCHANGES, help="User and assistant turns before the last question")
st.caption(f"{', '.join(f'{name} ({CATALOGUE[name].maker})' for name in CHAT_NAMES)} · up to "
           f"{APP_LIMITS.chars:,} characters in all.")
conversation_and_prompts(list(dict.fromkeys([left, right])), with_system, exchanges if exchanges is not None else 1)
