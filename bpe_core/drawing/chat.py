"""A chat prompt drawn turn by turn: who speaks, what the turn costs, and
its tokens, with the template's own tokens (special tokens, role headers,
the newlines that frame a turn) outlined apart from the turn's text.

Each run of template parts and each turn's text is drawn by `token_html`
(which escapes every character), as one line of the turn's row. Tokens a
maker counts without publishing them (OpenAI's chat format) are drawn as a
dashed box that names them and says how many there are.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import NamedTuple

from ..engine.tokenizer import TokenSpan
from ..vocabularies.chat import ChatPrompt, Part
from .tokens import TOKEN_CSS, token_html

CHAT_CSS = """
<style>
.bpe-chat { display: flex; flex-direction: column; gap: 0.25rem; }
.bpe-chat-who { font: 600 0.9rem/1.3 system-ui, sans-serif; color: #111; margin-top: 0.35rem; }
.bpe-chat-who small { font-weight: 400; color: #444; font-size: 0.85rem; margin-left: 0.4rem; }
.bpe-chat-tokens { border-left: 3px solid #ccd; padding-left: 0.5rem; min-width: 0; overflow-wrap: anywhere; }
.bpe-chat-tokens > .bpe-text { display: inline; }
.bpe-chat-template .bpe-tok { outline: 2px dashed #222; font-weight: 700; }
.bpe-chat-unpublished { display: inline-block; border: 2px dashed #555; border-radius: 4px; padding: 0 0.3rem;
  margin: 0.1rem 0.2rem 0.1rem 0; font: 600 0.85rem/1.5 ui-monospace, monospace; color: #333; background: #f4f4f4; }
</style>
"""

ROLE_LABELS = {"system": "System", "user": "User", "assistant": "Assistant"}


class Run(NamedTuple):
    """Parts drawn as one: of the template, of a turn's text, or one unpublished part."""

    style: str  # "template", "text" or "unpublished"
    text: str
    spans: list[TokenSpan]  # offsets in the run's bytes
    count: int = 0  # an unpublished part's tokens


def _runs(parts: list[tuple[Part, tuple[TokenSpan, ...]]]) -> list[Run]:
    """Consecutive parts joined into runs of template or of text; an
    unpublished part stays a run of its own."""
    runs: list[Run] = []
    for part, spans in parts:
        style = part.kind if part.kind in ("text", "unpublished") else "template"
        if not runs or runs[-1].style != style or style == "unpublished":
            runs.append(Run(style, "", [], part.count))
        run = runs[-1]
        offset = len(run.text.encode("utf-8"))
        run.spans.extend(TokenSpan(span.id, span.start + offset, span.end + offset) for span in spans)
        runs[-1] = run._replace(text=run.text + part.text)
    return runs


def _unpublished_html(run: Run) -> str:
    return (f'<span class="bpe-chat-unpublished" title="Counted by the maker\'s published rule; which tokens these '
            f'are is not published">{html.escape(run.text)} · {run.count} tokens</span>')


def _row_label(prompt: ChatPrompt, turn: int | None, at_start: bool) -> str:
    if turn is None:  # what frames the whole prompt: all template
        return "Start<small>template</small>" if at_start else "Cue<small>asks for the assistant's turn</small>"
    role = ROLE_LABELS.get(prompt.messages[turn].role, prompt.messages[turn].role)
    text = prompt.tokens_of(turn, ["text"])
    total = prompt.tokens_of(turn)
    return f"{html.escape(role)}<small>{total:,} tokens, {total - text:,} of them template</small>"


def chat_prompt_html(prompt: ChatPrompt, *, cards: Mapping[int, str] | None = None,
                     special_ids=frozenset(), colour_by: str = "id") -> str:
    """The prompt as rows, one per turn (and the prompt's start and its
    closing cue): a label with the turn's counts, then its tokens. Colours
    go by id (each run is drawn on its own, so positions would restart)."""
    rows = []
    pairs = list(zip(prompt.parts, prompt.part_spans))
    index = 0
    while index < len(pairs):
        turn = pairs[index][0].turn
        end = index
        while end < len(pairs) and pairs[end][0].turn == turn:
            end += 1
        lines = []
        for run in _runs(pairs[index:end]):
            if run.style == "unpublished":
                lines.append(_unpublished_html(run))
                continue
            drawn = token_html(run.text, run.spans, cards=cards, special_ids=special_ids, colour_by=colour_by,
                               font_size="0.9rem")
            drawn = drawn.removeprefix(TOKEN_CSS)  # the style once, for the whole prompt
            lines.append(f'<span class="bpe-chat-template">{drawn}</span>' if run.style == "template" else drawn)
        rows.append(f'<div class="bpe-chat-who">{_row_label(prompt, turn, at_start=index == 0)}</div>'
                    f'<div class="bpe-chat-tokens">{"".join(lines)}</div>')
        index = end
    return f'{TOKEN_CSS}{CHAT_CSS}<div class="bpe-chat">{"".join(rows)}</div>'
