"""A family's prompt as the Chat prompts page draws it, and the default conversation's, shipped.

The page draws each family's prompt from the prompt itself (its parts and
their tokens), a line per token saying what it is (`token_origins`) and
which of its ids are special tokens: all of it from the family's tokenizer,
which takes most of a second to load (Llama 3 through llama-models, Qwen
from its rank file). A first visit shows the default conversation in the
default families, the same for every visitor: so their views are made at
build time (`sample_corpora/build_chat_views.py`) and shipped in
`chat_views.json`, each under the family's name, what its tokenizer is read
from (`catalogue.encoding_source`: the maker's package and version, or the
file's pinned SHA-256) and the conversation. The page uses one while all
three match, and loads the tokenizer for anything else (a turn typed, another
shape of conversation, another family). A test renders them again and
compares.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bpe_core.analysis.token_cards import token_origins
from bpe_core.corpora.samples import SAMPLES_DIR
from bpe_core.engine.tokenizer import TokenSpan
from bpe_core.vocabularies.catalogue import encoding_source
from bpe_core.vocabularies.chat import ChatPrompt, Message, Part

SHIPPED_FILE = SAMPLES_DIR / "chat_views.json"
# The page's first view: this conversation (each turn's text by its slot: a system turn and one exchange before the
# last question) in these two families.
DEFAULT_TEXTS = {
    "system": "You are a concise assistant. Answer in the user's language.",
    "user1": "What does a tokenizer do?",
    "assistant1": "It cuts text into tokens, the units a model reads and writes.",
    "user2": "Et en français ? Und auf Deutsch? 日本語では？",
}
DEFAULT_CONVERSATION = tuple(Message(slot.rstrip("0123456789"), text) for slot, text in DEFAULT_TEXTS.items())
DEFAULT_FAMILIES = ("llama3", "qwen")


@dataclass(frozen=True)
class PromptView:
    """What the page draws of one family's prompt."""

    prompt: ChatPrompt
    cards: dict[int, str]  # token id -> what it is, for every id in the prompt
    special_ids: frozenset[int]  # the ids in the prompt that are special tokens


def prompt_view(prompt: ChatPrompt, tokenizer) -> PromptView:
    """The view of `prompt`, encoded with `tokenizer`."""
    ids = set(prompt.shown_ids)
    return PromptView(prompt, token_origins(tokenizer, ids), frozenset(ids & set(tokenizer.special_tokens.values())))


# ------------------------------------------------------------------ shipped


def view_key(name: str, messages: Sequence[Message]) -> str | None:
    """What names one family's view of one conversation: the family, what
    its tokenizer is read from, the turns; None when the tokenizer cannot be read here."""
    source = encoding_source(name)
    if source is None:
        return None
    return json.dumps([name, source, [[message.role, message.content] for message in messages]], ensure_ascii=False)


def shipped_view(name: str, messages: Sequence[Message], path: Path = SHIPPED_FILE) -> PromptView | None:
    """The shipped view of `messages` in the family `name`, if it was shipped."""
    key = view_key(name, messages)
    return None if key is None else _read_shipped(path).get(key)


def write_shipped(views: dict[str, PromptView], path: Path = SHIPPED_FILE) -> None:
    """Keep views, each under its `view_key`."""
    path.write_text(json.dumps({key: as_json(view) for key, view in views.items()}, ensure_ascii=False,
                               separators=(",", ":")) + "\n", encoding="utf-8")


@functools.cache
def _read_shipped(path: Path = SHIPPED_FILE) -> dict[str, PromptView]:
    """The shipped file's views by key, read once; none without a file."""
    try:
        return {key: from_json(stored) for key, stored in json.loads(path.read_text(encoding="utf-8")).items()}
    except OSError:
        return {}


def as_json(view: PromptView) -> dict:
    prompt = view.prompt
    return {
        "encoding": prompt.encoding,
        "messages": [[message.role, message.content] for message in prompt.messages],
        "parts": [[part.text, part.kind, part.turn, part.count] for part in prompt.parts],
        "spans": [[list(span) for span in spans] for spans in prompt.part_spans],
        "cards": [[token_id, card] for token_id, card in sorted(view.cards.items())],
        "special_ids": sorted(view.special_ids),
    }


def from_json(stored: dict) -> PromptView:
    prompt = ChatPrompt(
        stored["encoding"],
        tuple(Message(role, content) for role, content in stored["messages"]),
        tuple(Part(text, kind, turn, count) for text, kind, turn, count in stored["parts"]),
        tuple(tuple(TokenSpan(*span) for span in spans) for spans in stored["spans"]),
    )
    return PromptView(prompt, dict(stored["cards"]), frozenset(stored["special_ids"]))
