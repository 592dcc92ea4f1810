"""A chat prompt drawn turn by turn: who speaks, what the turn costs, and
its tokens, with the template's own tokens (special tokens, role headers,
the newlines that frame a turn) outlined apart from the turn's text.

Each run of template parts and each turn's text is drawn by `token_html`
(which escapes every character), as one line of the turn's row.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from ..chat import ChatPrompt, Part
from ..tokenizer import TokenSpan
from .tokens import TOKEN_CSS, token_html

CHAT_CSS = """
<style>
.bpe-chat { display: flex; flex-direction: column; gap: 0.25rem; }
.bpe-chat-who { font: 600 0.9rem/1.3 system-ui, sans-serif; color: #111; margin-top: 0.35rem; }
.bpe-chat-who small { font-weight: 400; color: #444; font-size: 0.85rem; margin-left: 0.4rem; }
.bpe-chat-tokens { border-left: 3px solid #ccd; padding-left: 0.5rem; min-width: 0; overflow-wrap: anywhere; }
.bpe-chat-tokens > .bpe-text { display: inline; }
.bpe-chat-template .bpe-tok { outline: 2px dashed #222; font-weight: 700; }
</style>
"""

ROLE_LABELS = {"system": "System", "user": "User", "assistant": "Assistant"}


def _runs(parts: list[tuple[Part, tuple[TokenSpan, ...]]]) -> list[tuple[bool, str, list[TokenSpan]]]:
    """Consecutive parts joined into runs of template or of text: (is
    template, the run's text, its spans with offsets in the run's bytes)."""
    runs: list[tuple[bool, str, list[TokenSpan]]] = []
    for part, spans in parts:
        is_template = part.kind != "text"
        if not runs or runs[-1][0] != is_template:
            runs.append((is_template, "", []))
        template, text, run_spans = runs[-1]
        offset = len(text.encode("utf-8"))
        run_spans += [TokenSpan(span.id, span.start + offset, span.end + offset) for span in spans]
        runs[-1] = (template, text + part.text, run_spans)
    return runs


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
        for is_template, text, spans in _runs(pairs[index:end]):
            drawn = token_html(text, spans, cards=cards, special_ids=special_ids, colour_by=colour_by,
                               font_size="0.9rem")
            drawn = drawn.removeprefix(TOKEN_CSS)  # the style once, for the whole prompt
            lines.append(f'<span class="bpe-chat-template">{drawn}</span>' if is_template else drawn)
        rows.append(f'<div class="bpe-chat-who">{_row_label(prompt, turn, at_start=index == 0)}</div>'
                    f'<div class="bpe-chat-tokens">{"".join(lines)}</div>')
        index = end
    return f'{TOKEN_CSS}{CHAT_CSS}<div class="bpe-chat">{"".join(rows)}</div>'
