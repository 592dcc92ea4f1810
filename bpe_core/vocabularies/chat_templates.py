"""Chat prompts from a Hugging Face model folder's own chat template, as transformers builds them.

Gemma 3, DeepSeek V3 and most models on the Hugging Face hub say how their
prompts look with a Jinja template in tokenizer_config.json (or
chat_template.jinja beside it). transformers' `apply_chat_template(messages,
add_generation_prompt=True, tokenize=True)` renders it (see
`sandbox.jinja_chat`) and encodes the whole prompt at once, with
`add_special_tokens=False`, which still finds every added token in the
text: the template's own special tokens, and also any a user typed into a
turn ("<end_of_turn>" in a message becomes the control token;
transformers' `sanitize_control_tokens` is off unless asked for). The ids
here are those.

To show which tokens are whose, the prompt is cut into `Part`s: the turns'
own text is found by rendering once more with each turn's text replaced by
a marker (a template may trim it, as Gemma's does, or gather every system
turn at the front, as DeepSeek's does), the cue for the reply by rendering
without it, and the tokens, encoded once over the whole prompt, go to the
part they start in; special tokens are parts of their own.

The variables a template sees besides the conversation are the tokenizer's
named special tokens from tokenizer_config.json (`bos_token`, `eos_token`,
`unk_token`, `sep_token`, `pad_token`, `cls_token`, `mask_token`, and a
model's own such as Gemma's `boi_token`), as transformers passes its
`special_tokens_map`. (transformers also fills in a class's default for one
the file leaves out; templates rarely read those.)
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..engine.tokenizer import TokenSpan
from ..formats.hf_folder import config_template
from ..sandbox.jinja_chat import Rendered, TemplateProblem, render, render_untrusted
from .bundled_files import BundledFile
from .chat import ChatError, EncodedPart, Message, Part, Template

NAMED_SPECIAL_TOKENS = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")
_MARKER = re.compile("\ue000([0-9]{1,6})\ue001")


def _token_text(value: object) -> str | None:
    """A special token as tokenizer_config.json writes it: a string, or an
    AddedToken object {"content": ...}."""
    value = value.get("content") if isinstance(value, dict) else value
    return value if isinstance(value, str) else None


def template_variables(config: Mapping) -> dict[str, str]:
    """The named special tokens a template sees, from tokenizer_config.json."""
    variables = {name: _token_text(config.get(name)) for name in NAMED_SPECIAL_TOKENS}
    for key in ("extra_special_tokens", "model_specific_special_tokens"):  # a model's own, by name (Gemma's boi_token)
        if isinstance(config.get(key), dict):
            variables |= {name: _token_text(value) for name, value in config[key].items()}
    return {name: value for name, value in variables.items() if value is not None}


@dataclass(frozen=True)
class JinjaTemplate:
    """A model's chat template and the special tokens it sees; `trusted`
    for the makers' templates shipped here, rendered without a throwaway
    process."""

    source: str
    variables: tuple[tuple[str, str], ...]
    trusted: bool = False

    def rendered(self, messages: Sequence[Message]) -> Rendered:
        turns = [{"role": message.role, "content": message.content} for message in messages]
        renderer = render if self.trusted else render_untrusted
        try:
            return renderer(self.source, turns, dict(self.variables))
        except TemplateProblem as problem:
            raise ChatError(str(problem)) from None

    def __call__(self, messages: Sequence[Message], tokenizer) -> list[EncodedPart]:
        """The prompt as parts with their tokens (a chat `Render`)."""
        rendered = self.rendered(messages)
        spans = list(tokenizer.encode_with_offsets(rendered.text, allowed_special="all"))
        regions = _regions(rendered, messages, dict(self.variables).get("bos_token"))
        return _parts(rendered.text, spans, regions, set(tokenizer.special_tokens.values()))


def jinja_chat(family: str, source: str, variables: Mapping[str, str], trusted: bool = False) -> Template:
    """A chat `Template` that renders `source` as transformers does."""
    return Template(family, JinjaTemplate(source, tuple(sorted(variables.items())), trusted))


# ------------------------------------------------------------ whose text is which


def _regions(rendered: Rendered, messages: Sequence[Message], bos: str | None) -> list[tuple[int, str, int | None]]:
    """Where each kind of text starts in the prompt, in characters: (start,
    kind, turn), kind "text" for a turn's own text and "template" for the
    rest. The template's text before a turn's text belongs to that turn
    (its header), after the last turn's text to the last turn, up to the
    cue for the reply, which belongs to no turn; so does the beginning-of-
    text token the prompt starts with. Where the markers do not account for
    the prompt (a template that transforms the text), it is all template."""
    text, pieces = rendered.text, _MARKER.split(rendered.marked)  # template, turn, template, turn, ..., template
    if any(int(turn) >= len(messages) for turn in pieces[1::2]):
        return [(0, "template", None)]  # a marker the template wrote itself (its own text, a variable), not a turn's
    regions, position, said_to = [], 0, 0
    for index in range(0, len(pieces), 2):
        template = pieces[index]
        turn = int(pieces[index + 1]) if index + 1 < len(pieces) else None
        if not text.startswith(template, position):
            return [(0, "template", None)]
        owner = turn if turn is not None else (int(pieces[-2]) if len(pieces) > 1 else None)
        regions.append((position, "template", owner))
        position += len(template)
        if turn is None:
            break
        said = messages[turn].content
        for written in (said, said.strip(), said.rstrip(), said.lstrip()):  # as the template may have trimmed it
            if text.startswith(written, position) and text.startswith(pieces[index + 2][:1], position + len(written)):
                break
        else:
            return [(0, "template", None)]
        regions.append((position, "text", turn))
        position += len(written)
        said_to = position
    without_cue = rendered.without_cue
    if without_cue is not None and text.startswith(without_cue) and said_to <= len(without_cue) < len(text):
        regions.append((len(without_cue), "template", None))
    if bos and text.startswith(bos) and regions[0][1] == "template":
        regions[0:1] = [(0, "template", None), (len(bos), "template", regions[0][2])]
    return sorted(regions, key=lambda region: region[0])


def _parts(text: str, spans: Sequence[TokenSpan], regions: list[tuple[int, str, int | None]],
           special_ids: set[int]) -> list[EncodedPart]:
    """The tokens grouped into parts: by the region each starts in, a
    special token alone; a part's offsets start at its own text."""
    data = text.encode("utf-8")
    byte_starts = [len(text[:start].encode("utf-8")) for start, _, _ in regions]
    parts: list[EncodedPart] = []
    group: list[TokenSpan] = []
    key = None

    def close():
        if group:
            start, end = group[0].start, group[-1].end
            part_kind, turn = key[0], key[1]
            parts.append((Part(data[start:end].decode("utf-8", errors="replace"), part_kind, turn),
                          tuple(TokenSpan(span.id, span.start - start, span.end - start) for span in group)))

    region = 0
    for span in spans:
        while region + 1 < len(regions) and byte_starts[region + 1] <= span.start:
            region += 1
        _, kind, turn = regions[region]
        if span.id in special_ids:
            this = ("special", turn, span.start)  # alone
        else:
            this = (kind, turn, None)
        if this != key and not (group and _inside_character(data, span.start)):
            close()
            group, key = [], this
        group.append(span)
    close()
    return parts


def _inside_character(data: bytes, offset: int) -> bool:
    """Whether `offset` falls inside a UTF-8 character (a token of one part
    ended inside it: the next token stays in that part)."""
    return 0 < offset < len(data) and 0x80 <= data[offset] < 0xC0


@dataclass(frozen=True)
class ShippedTemplate:
    """A maker's chat template in the tokenizer_config.json that ships here
    (`config`, checked like every shipped file): rendered in this process,
    as the makers' files are trusted."""

    config: BundledFile

    def __call__(self, messages: Sequence[Message], tokenizer) -> list[EncodedPart]:
        return _shipped_template(self.config)(messages, tokenizer)


@functools.cache
def _shipped_template(config_file: BundledFile) -> JinjaTemplate:
    config = json.loads(config_file.read())
    return JinjaTemplate(config_template(config), tuple(sorted(template_variables(config).items())), trusted=True)
