"""Chat prompts as tokens: what a conversation costs once a model's chat
template has wrapped it.

A chat model never sees "system, user, assistant" turns: it sees one
sequence of tokens in which each turn is framed by its family's template,
with special tokens that mark where a turn starts and who speaks, and at the
end a header that asks for the next assistant turn. This module writes each
template out as `Part`s (a special token, the template's own text, or a
turn's text), so that a page can colour them and count what each turn and
the template cost. The ids are the makers' (the tests hold them to
llama-models' `ChatFormat.encode_dialog_prompt` and mistral-common's
`encode_chat_completion`):

- Llama 3 (`llama3`): <|begin_of_text|>, then per turn
  <|start_header_id|>role<|end_header_id|>"\\n\\n" text <|eot_id|>, then the
  assistant's header.
- Mistral (`tekken`, `mistral_v3`; mistral-common's instruct tokenizer V3):
  <s>, then [INST] user [/INST] and assistant </s> in turn; the system
  prompt joins the *last* user turn ("system\\n\\nuser"), and an
  assistant's trailing spaces are dropped.
- Qwen (`qwen`): ChatML, as Qwen's `make_context` builds it:
  <|im_start|>role"\\n"text<|im_end|> joined by "\\n", a system turn always
  (Qwen's default, "You are a helpful assistant.", when none is given), and
  <|im_start|>assistant"\\n" at the end.

A turn's text is always encoded as text, never as special tokens: a user who
types "<|eot_id|>" gets the characters, not the control token (the makers'
code does the same).

Conversations take one shape, which every template here accepts: an
optional system turn first, then user and assistant turns in turn, ending
with a user turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from .tokenizer import TokenSpan

ROLES = ("system", "user", "assistant")
MAX_TURNS = 64
MAX_CHAT_CHARS = 20_000  # every turn's text together (Llama's encoder cuts longer runs of its own accord)

Kind = Literal["special", "template", "text"]


class ChatError(ValueError):
    """A conversation that no template here can take, said in a sentence."""


@dataclass(frozen=True)
class Message:
    role: str
    content: str


@dataclass(frozen=True)
class Part:
    """A run of the prompt: a special token, the template's own text (a role
    name, a newline), or a turn's text. `turn` is the message it belongs to,
    or None for what frames the whole prompt (its start, the closing cue)."""

    text: str
    kind: Kind
    turn: int | None


@dataclass(frozen=True)
class Template:
    family: str  # who uses it, for labels
    parts: Callable[[Sequence[Message]], list[Part]]


@dataclass(frozen=True)
class ChatPrompt:
    """A conversation as a model's prompt: its parts and their ids."""

    encoding: str
    messages: tuple[Message, ...]
    parts: tuple[Part, ...]
    part_spans: tuple[tuple[TokenSpan, ...], ...]  # each part's tokens, offsets in the part's own UTF-8 text

    @property
    def part_ids(self) -> list[list[int]]:
        return [[span.id for span in spans] for spans in self.part_spans]

    @property
    def ids(self) -> list[int]:
        return [token_id for ids in self.part_ids for token_id in ids]

    @property
    def text(self) -> str:
        """The prompt as text, special tokens written out."""
        return "".join(part.text for part in self.parts)

    def tokens_of(self, turn: int | None, kinds: Sequence[Kind] = ("special", "template", "text")) -> int:
        """Tokens of one turn (None: the prompt's start and its closing cue), of the kinds asked for."""
        return sum(len(spans) for part, spans in zip(self.parts, self.part_spans) if part.turn == turn and part.kind in kinds)

    @property
    def template_tokens(self) -> int:
        """What the template adds to the turns' own text: special tokens and its own text."""
        return sum(len(spans) for part, spans in zip(self.parts, self.part_spans) if part.kind != "text")


def check_conversation(messages: Sequence[Message]) -> None:
    """Refuse, in one sentence, a conversation no template here takes."""
    if not messages:
        raise ChatError("The conversation is empty; add a user turn.")
    if len(messages) > MAX_TURNS:
        raise ChatError(f"The conversation has {len(messages)} turns; the limit is {MAX_TURNS}.")
    total = sum(len(message.content) for message in messages)
    if total > MAX_CHAT_CHARS:
        raise ChatError(f"The turns hold {total:,} characters together; the limit is {MAX_CHAT_CHARS:,}.")
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


def messages_from_json(document: object) -> list[Message]:
    """Messages from a JSON list of {"role": ..., "content": ...}, checked."""
    if not isinstance(document, list):
        raise ChatError('The conversation must be a JSON list of {"role": ..., "content": ...} objects.')
    messages = []
    for number, item in enumerate(document, start=1):
        if not (isinstance(item, dict) and isinstance(item.get("role"), str) and isinstance(item.get("content"), str)):
            raise ChatError(f'Turn {number} is not an object with a string "role" and a string "content".')
        messages.append(Message(item["role"], item["content"]))
    check_conversation(messages)
    return messages


def _split_system(messages: Sequence[Message]) -> tuple[str | None, list[tuple[int, Message]]]:
    if messages[0].role == "system":
        return messages[0].content, list(enumerate(messages))[1:]
    return None, list(enumerate(messages))


# ------------------------------------------------------------ the templates


def llama3_parts(messages: Sequence[Message]) -> list[Part]:
    """llama-models' `ChatFormat.encode_dialog_prompt` (Llama 3)."""
    parts = [Part("<|begin_of_text|>", "special", None)]

    def header(role: str, turn: int | None) -> list[Part]:
        return [Part("<|start_header_id|>", "special", turn), Part(role, "template", turn),
                Part("<|end_header_id|>", "special", turn), Part("\n\n", "template", turn)]

    for turn, message in enumerate(messages):
        parts += [*header(message.role, turn), Part(message.content, "text", turn), Part("<|eot_id|>", "special", turn)]
    return parts + header("assistant", None)


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


TEMPLATES: dict[str, Template] = {
    "llama3": Template("Llama 3 / 3.1 / 3.2 / 3.3 (llama-models' ChatFormat)", llama3_parts),
    "tekken": Template("Mistral NeMo and later, Tekken (mistral-common, instruct V3)", mistral_parts),
    "mistral_v3": Template("Mistral 7B v0.3 / Mixtral / Codestral (mistral-common, instruct V3)", mistral_parts),
    "qwen": Template("Qwen (ChatML, as Qwen's make_context builds it)", chatml_parts),
}


def chat_prompt(messages: Sequence[Message], encoding: str, tokenizer) -> ChatPrompt:
    """`messages` as the prompt of the model family `encoding` (a name in
    TEMPLATES), encoded with that family's `tokenizer`."""
    if encoding not in TEMPLATES:
        raise ChatError(f"No chat template for {encoding!r}; choose one of {', '.join(TEMPLATES)}.")
    check_conversation(messages)
    parts = TEMPLATES[encoding].parts(messages)
    part_spans = []
    for part in parts:
        if part.kind == "special":
            part_spans.append((TokenSpan(tokenizer.special_tokens[part.text], 0, len(part.text.encode("utf-8"))),))
        else:  # text, never special tokens (see above)
            part_spans.append(tuple(tokenizer.encode_with_offsets(part.text, disallowed_special=())))
    return ChatPrompt(encoding, tuple(messages), tuple(parts), tuple(part_spans))
