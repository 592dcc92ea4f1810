"""Chat prompts as tokens: what a conversation costs once a model's chat
template has wrapped it.

A chat model never sees "system, user, assistant" turns: it sees one
sequence of tokens in which each turn is framed by its family's template,
with special tokens that mark where a turn starts and who speaks, and at the
end a header that asks for the next assistant turn. This module writes each
template out as `Part`s (a special token, the template's own text, or a
turn's text), so that a page can colour them and count what each turn and
the template cost. The ids are the makers' (tests/test_chat.py holds them to
the makers' own code):

- Llama 3 (`llama3`) and Llama 4 (`llama4`), as llama-models' `ChatFormat`
  builds them: <|begin_of_text|>, then per turn a header (Llama 3:
  <|start_header_id|>role<|end_header_id|>, Llama 4:
  <|header_start|>role<|header_end|>), "\\n\\n", the text and the end of
  the turn (<|eot_id|>, <|eot|>), then the assistant's header.
- Mistral (`tekken`, `mistral_v3`; mistral-common's instruct tokenizer V3):
  <s>, then [INST] user [/INST] and assistant </s> in turn; the system
  prompt joins the *last* user turn ("system\\n\\nuser"), and an
  assistant's trailing spaces are dropped.
- Qwen (`qwen`): ChatML, as Qwen's `make_context` builds it:
  <|im_start|>role"\\n"text<|im_end|> joined by "\\n", a system turn always
  (Qwen's default, "You are a helpful assistant.", when none is given), and
  <|im_start|>assistant"\\n" at the end.
- gpt-oss (`o200k_harmony`): the harmony format, rendered by OpenAI's own
  `openai-harmony` (see `harmony`): harmony's system message first, the
  system turn as the developer's instructions, and each turn
  <|start|>role<|message|>text<|end|> (a past assistant turn on the
  "final" channel), then <|start|>assistant.
- GPT-3.5 / GPT-4 (`cl100k_base`) and GPT-4o (`o200k_base`): OpenAI
  publishes only how many tokens its chat format adds (the openai-cookbook's
  `num_tokens_from_messages`: 3 per message beyond its role and text, and 3
  that prime the reply, "<|start|>assistant<|message|>"), not which:
  neither encoding holds a chat special token. Those tokens are `unpublished`
  parts, counted and never given ids; the prompt has no ids or text.

A turn's text is always encoded as text, never as special tokens: a user who
types "<|eot_id|>" gets the characters, not the control token (the makers'
code does the same).

Conversations take one shape, which every template here accepts: an
optional system turn first, then user and assistant turns in turn, ending
with a user turn.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from ..engine.tokenizer import TokenSpan
from .harmony import harmony_encoding

ROLES = ("system", "user", "assistant")

Kind = Literal["special", "template", "text", "unpublished"]


class ChatError(ValueError):
    """A conversation that no template here can take, said in a sentence."""


@dataclass(frozen=True)
class ChatLimits:
    """How long a conversation may be: its turns, and the characters of
    every turn's text together; None is no limit. The web app encodes the
    conversation again at every pause in typing, on the server's cores, so
    it keeps a budget (`APP_LIMITS`, the default); the command line runs on
    its user's own machine and sets none unless asked (`NO_LIMITS`)."""

    turns: int | None = None
    chars: int | None = None


APP_LIMITS = ChatLimits(turns=64, chars=20_000)
NO_LIMITS = ChatLimits()


@dataclass(frozen=True)
class Message:
    role: str
    content: str


@dataclass(frozen=True)
class Part:
    """A run of the prompt: a special token, the template's own text (a role
    name, a newline), a turn's text, or `count` tokens that the maker counts
    but does not publish (`text` then names them). `turn` is the message it
    belongs to, or None for what frames the whole prompt (its start, the
    closing cue)."""

    text: str
    kind: Kind
    turn: int | None
    count: int = 0  # an unpublished part's tokens


EncodedPart = tuple[Part, tuple[TokenSpan, ...]]  # a part and its tokens, offsets in the part's own UTF-8 text
Render = Callable[[Sequence[Message], object], list[EncodedPart]]  # (messages, the family's tokenizer) -> the prompt


@dataclass(frozen=True)
class Template:
    family: str  # who uses it, for labels
    render: Render


@dataclass(frozen=True)
class ChatPrompt:
    """A conversation as a model's prompt: its parts and their tokens."""

    encoding: str
    messages: tuple[Message, ...]
    parts: tuple[Part, ...]
    part_spans: tuple[tuple[TokenSpan, ...], ...]  # each part's tokens, offsets in the part's own UTF-8 text

    @property
    def published(self) -> bool:
        """Whether the maker publishes every token of this prompt (not only how many there are)."""
        return all(part.kind != "unpublished" for part in self.parts)

    @property
    def part_ids(self) -> list[list[int]]:
        return [[span.id for span in spans] for spans in self.part_spans]

    @property
    def shown_ids(self) -> list[int]:
        """The ids of every token whose id is known, in order."""
        return [token_id for ids in self.part_ids for token_id in ids]

    @property
    def ids(self) -> list[int] | None:
        """The prompt's ids, or None when the maker publishes only their count."""
        return self.shown_ids if self.published else None

    @property
    def token_count(self) -> int:
        return sum(len(spans) + part.count for part, spans in zip(self.parts, self.part_spans))

    @property
    def text(self) -> str | None:
        """The prompt as text, special tokens written out (None when unpublished)."""
        return "".join(part.text for part in self.parts) if self.published else None

    def tokens_of(self, turn: int | None,
                  kinds: Sequence[Kind] = ("special", "template", "text", "unpublished")) -> int:
        """Tokens of one turn (None: the prompt's start and its closing cue), of the kinds asked for."""
        return sum(len(spans) + part.count for part, spans in zip(self.parts, self.part_spans)
                   if part.turn == turn and part.kind in kinds)

    @property
    def template_tokens(self) -> int:
        """What the template adds to the turns' own text: special tokens, its own text, its unpublished tokens."""
        text = sum(len(spans) for part, spans in zip(self.parts, self.part_spans) if part.kind == "text")
        return self.token_count - text


def check_conversation(messages: Sequence[Message], limits: ChatLimits = APP_LIMITS) -> None:
    """Refuse, in one sentence, a conversation no template here takes, or
    one longer than `limits`."""
    if not messages:
        raise ChatError("The conversation is empty; add a user turn.")
    if limits.turns is not None and len(messages) > limits.turns:
        raise ChatError(f"The conversation has {len(messages)} turns; the limit is {limits.turns}.")
    total = sum(len(message.content) for message in messages)
    if limits.chars is not None and total > limits.chars:
        raise ChatError(f"The turns hold {total:,} characters together; the limit is {limits.chars:,}.")
    for number, message in enumerate(messages, start=1):
        if message.role not in ROLES:
            raise ChatError(f"Turn {number} has the role {message.role!r}; a role is one of {', '.join(ROLES)}.")
        if not message.content.strip():
            raise ChatError(f"Turn {number} ({message.role}) is empty; every turn needs some text.")
    turns = messages[1:] if messages[0].role == "system" else messages
    expected = ["user" if index % 2 == 0 else "assistant" for index in range(len(turns))]
    if [message.role for message in turns] != expected or expected[-1:] != ["user"]:
        raise ChatError(
            "After an optional system turn, turns go user, assistant, user, … and end with a user turn "
            "(the prompt asks for the assistant's next turn)."
        )


def messages_from_json(document: object, limits: ChatLimits = APP_LIMITS) -> list[Message]:
    """Messages from a JSON list of {"role": ..., "content": ...}, checked (within `limits`)."""
    if not isinstance(document, list):
        raise ChatError('The conversation must be a JSON list of {"role": ..., "content": ...} objects.')
    messages = []
    for number, item in enumerate(document, start=1):
        if not (isinstance(item, dict) and isinstance(item.get("role"), str) and isinstance(item.get("content"), str)):
            raise ChatError(f'Turn {number} is not an object with a string "role" and a string "content".')
        messages.append(Message(item["role"], item["content"]))
    check_conversation(messages, limits)
    return messages


def _split_system(messages: Sequence[Message]) -> tuple[str | None, list[tuple[int, Message]]]:
    if messages[0].role == "system":
        return messages[0].content, list(enumerate(messages))[1:]
    return None, list(enumerate(messages))


# ------------------------------------------------------------ the templates


def _llama_parts(messages: Sequence[Message], *, header_start: str, header_end: str, end_of_turn: str) -> list[Part]:
    """llama-models' `ChatFormat.encode_dialog_prompt`, which Llama 3 and 4
    share but for the names of their special tokens."""
    parts = [Part("<|begin_of_text|>", "special", None)]

    def header(role: str, turn: int | None) -> list[Part]:
        return [Part(header_start, "special", turn), Part(role, "template", turn),
                Part(header_end, "special", turn), Part("\n\n", "template", turn)]

    for turn, message in enumerate(messages):
        parts += [*header(message.role, turn), Part(message.content, "text", turn), Part(end_of_turn, "special", turn)]
    return parts + header("assistant", None)


llama3_parts = functools.partial(_llama_parts, header_start="<|start_header_id|>", header_end="<|end_header_id|>",
                                 end_of_turn="<|eot_id|>")
llama4_parts = functools.partial(_llama_parts, header_start="<|header_start|>", header_end="<|header_end|>",
                                 end_of_turn="<|eot|>")


def mistral_parts(messages: Sequence[Message]) -> list[Part]:
    """mistral-common's instruct tokenizer V3 (`encode_chat_completion`)."""
    system, turns = _split_system(messages)
    last_user = max(turn for turn, message in turns if message.role == "user")
    parts = [Part("<s>", "special", None)]
    for turn, message in turns:
        if message.role == "assistant":
            parts += [Part(message.content.rstrip(" "), "text", turn), Part("</s>", "special", turn)]
            continue
        parts.append(Part("[INST]", "special", turn))
        if turn == last_user and system is not None:  # encoded with the user's text, as one
            parts.append(Part(f"{system}\n\n{message.content}", "text", turn))
        else:
            parts.append(Part(message.content, "text", turn))
        parts.append(Part("[/INST]", "special", turn))
    return parts


QWEN_DEFAULT_SYSTEM = "You are a helpful assistant."


def chatml_parts(messages: Sequence[Message]) -> list[Part]:
    """ChatML as Qwen's `make_context` builds it: role and text encoded apart."""
    system, turns = _split_system(messages)
    system_turn = 0 if system is not None else None
    parts: list[Part] = []

    def block(role: str, text: str | None, turn: int | None) -> list[Part]:
        framed = [Part("<|im_start|>", "special", turn), Part(role, "template", turn), Part("\n", "template", turn)]
        if text is None:  # the cue for the assistant's turn
            return framed
        return [*framed, Part(text, "text", turn), Part("<|im_end|>", "special", turn)]

    parts += block("system", QWEN_DEFAULT_SYSTEM if system is None else system, system_turn)
    for turn, message in turns:
        parts += [Part("\n", "template", turn), *block(message.role, message.content, turn)]
    return parts + [Part("\n", "template", None), *block("assistant", None, None)]


# openai-cookbook, "How to count tokens with tiktoken", `num_tokens_from_messages`
# for gpt-3.5-turbo-0125, gpt-4-0613, gpt-4o-2024-08-06, gpt-4o-mini-2024-07-18 and their kin.
OPENAI_TOKENS_PER_MESSAGE = 3
OPENAI_REPLY_PRIMER = "<|start|>assistant<|message|>"  # "every reply is primed with" these, 3 tokens
OPENAI_REPLY_TOKENS = 3
OPENAI_COUNT_NOTE = (
    "OpenAI publishes how many tokens its chat format adds, not which (openai-cookbook, \"How to count tokens with "
    "tiktoken\"): each message costs its role's and its text's tokens and 3 more, and 3 prime the reply "
    "(<|start|>assistant<|message|>). The count follows that rule; the format's own tokens have no ids or text to show."
)


def openai_counted_parts(messages: Sequence[Message]) -> list[Part]:
    """OpenAI's published rule for its chat models: each message costs its
    role's tokens, its text's tokens and 3 more; the reply's primer 3. Which
    tokens those 3 are is not published, so they stay unpublished parts."""
    parts = []
    for turn, message in enumerate(messages):
        parts += [Part("message format", "unpublished", turn, count=OPENAI_TOKENS_PER_MESSAGE),
                  Part(message.role, "template", turn), Part(message.content, "text", turn)]
    return parts + [Part(OPENAI_REPLY_PRIMER, "unpublished", None, count=OPENAI_REPLY_TOKENS)]


def encode_parts(parts: Sequence[Part], tokenizer) -> list[EncodedPart]:
    """Each part encoded on its own, as the makers' code does: a special token
    by its id, any other text as text, never as special tokens (see above); an
    unpublished part has no tokens to show."""
    encoded = []
    for part in parts:
        if part.kind == "special":
            spans = (TokenSpan(tokenizer.special_tokens[part.text], 0, len(part.text.encode("utf-8"))),)
        elif part.kind == "unpublished":
            spans = ()
        else:
            spans = tuple(tokenizer.encode_with_offsets(part.text, disallowed_special=()))
        encoded.append((part, spans))
    return encoded


def from_parts(parts: Callable[[Sequence[Message]], list[Part]]) -> Render:
    """A template written as parts, encoded with the family's tokenizer."""
    return lambda messages, tokenizer: encode_parts(parts(messages), tokenizer)


# ------------------------------------------------------------ gpt-oss (harmony)

HARMONY_INSTRUCTIONS = "# Instructions\n\n"  # what harmony's developer message writes before its instructions


def harmony_render(messages: Sequence[Message], tokenizer) -> list[EncodedPart]:
    """openai-harmony's `render_conversation_for_completion(conversation,
    Role.ASSISTANT)`, rendered message by message so that each turn keeps its
    own tokens: harmony's default system message (model identity, knowledge
    cutoff, reasoning effort, channels) as the prompt's start, the system turn
    as the developer's instructions (where gpt-oss takes what other families
    call the system prompt), past assistant turns on the "final" channel, and
    <|start|>assistant as the cue. Harmony encodes "# Instructions" and the
    instructions as one text; tokens that end inside the heading are the
    template's."""
    encoding = harmony_encoding()  # first: it says which pip command adds the package, if it is missing
    from openai_harmony import Conversation, DeveloperContent, Role, SystemContent
    from openai_harmony import Message as HarmonyMessage


    def message_parts(message: HarmonyMessage, turn: int | None, content: Kind, heading: str = "") -> list[EncodedPart]:
        return _harmony_parts(encoding.render(message), turn, content, heading, encoding, tokenizer)

    parts = message_parts(HarmonyMessage.from_role_and_content(Role.SYSTEM, SystemContent.new()), None, "template")
    for turn, message in enumerate(messages):
        if message.role == "system":
            instructions = DeveloperContent.new().with_instructions(message.content)
            parts += message_parts(HarmonyMessage.from_role_and_content(Role.DEVELOPER, instructions), turn, "text",
                                   heading=HARMONY_INSTRUCTIONS)
        elif message.role == "user":
            parts += message_parts(HarmonyMessage.from_role_and_content(Role.USER, message.content), turn, "text")
        else:
            said = HarmonyMessage.from_role_and_content(Role.ASSISTANT, message.content).with_channel("final")
            parts += message_parts(said, turn, "text")
    cue = encoding.render_conversation_for_completion(Conversation.from_messages([]), Role.ASSISTANT)
    return parts + _harmony_parts(cue, None, "template", "", encoding, tokenizer)


def _harmony_parts(ids: list[int], turn: int | None, content: Kind, heading: str,
                   encoding, tokenizer) -> list[EncodedPart]:
    """A rendered message's ids as parts: each special token alone; a run of
    text is the header's (role, channel) before <|message|>, and the
    message's content (of kind `content`, after a template `heading`) from
    there to the end."""
    parts: list[EncodedPart] = []
    in_content = False
    for special, run in itertools.groupby(ids, key=encoding.is_special_token):
        if special:
            for token_id in run:
                text = tokenizer.token_bytes(token_id).decode("utf-8")
                parts.append((Part(text, "special", turn), (TokenSpan(token_id, 0, len(text.encode("utf-8"))),)))
                in_content = text == "<|message|>"
            continue
        spans = _spans_of(list(run), tokenizer)
        if not in_content:
            parts.append(_text_part(spans, "template", turn, tokenizer))
            continue
        cut = sum(1 for span in spans if span.end <= len(heading.encode("utf-8")))
        if cut:
            parts.append(_text_part(spans[:cut], "template", turn, tokenizer))
        if cut < len(spans):
            parts.append(_text_part(spans[cut:], content, turn, tokenizer))
    return parts


def _spans_of(ids: list[int], tokenizer) -> list[TokenSpan]:
    """Spans of consecutive tokens, offsets counted from the first one's start."""
    spans, offset = [], 0
    for token_id in ids:
        size = len(tokenizer.token_bytes(token_id))
        spans.append(TokenSpan(token_id, offset, offset + size))
        offset += size
    return spans


def _text_part(spans: list[TokenSpan], kind: Kind, turn: int | None, tokenizer) -> EncodedPart:
    """A part made of whole tokens of text, its offsets moved to start at 0."""
    start = spans[0].start
    text = b"".join(tokenizer.token_bytes(span.id) for span in spans).decode("utf-8")
    return Part(text, kind, turn), tuple(TokenSpan(span.id, span.start - start, span.end - start) for span in spans)


# The templates, by who wrote them; `catalogue` says which name uses which.
OPENAI_GPT4_COUNT = Template("GPT-3.5 / GPT-4: OpenAI's published token count (its format's tokens are not published)",
                             from_parts(openai_counted_parts))
OPENAI_GPT4O_COUNT = Template("GPT-4o / GPT-4o mini: OpenAI's published token count (its format's tokens are not "
                              "published)", from_parts(openai_counted_parts))
HARMONY = Template("gpt-oss (harmony, rendered by OpenAI's openai-harmony)", harmony_render)
LLAMA3 = Template("Llama 3 / 3.1 / 3.2 / 3.3 (llama-models' ChatFormat)", from_parts(llama3_parts))
LLAMA4 = Template("Llama 4 (llama-models' Llama 4 ChatFormat)", from_parts(llama4_parts))
MISTRAL_TEKKEN = Template("Mistral NeMo and later, Tekken (mistral-common, instruct V3)", from_parts(mistral_parts))
MISTRAL_V3 = Template("Mistral 7B v0.3 / Mixtral / Codestral (mistral-common, instruct V3)", from_parts(mistral_parts))
CHATML_QWEN = Template("Qwen (ChatML, as Qwen's make_context builds it)", from_parts(chatml_parts))


def render_prompt(messages: Sequence[Message], encoding: str, template: Template, tokenizer,
                  limits: ChatLimits = APP_LIMITS) -> ChatPrompt:
    """`messages` (within `limits`) as the prompt `template` builds, encoded
    with the family's `tokenizer` (the encoding named `encoding`)."""
    check_conversation(messages, limits)
    encoded = template.render(messages, tokenizer)
    return ChatPrompt(encoding, tuple(messages), tuple(part for part, _ in encoded),
                      tuple(spans for _, spans in encoded))
