"""Quirks: ready examples of why tokenization matters, explained live.

Each `Quirk` is a short text and the view that shows it best: Inspect (one
tokenizer, ids on hover) or Compare (several, side by side). Its explanation
is *computed*: every count, id and token it quotes is read from the
tokenizers when the card is drawn, never typed in, so the text stays true
for whatever vocabulary is passed, and the tests check the numbers against
tiktoken's.

Explanations quote tokens the way the Compare page does: "·" is a space,
"↵" a line break, "<F0 9F>" bytes that are only part of a character, and
" | " separates tokens.

`drawing.quirks.card_html` draws a card; the Quirks page adds the button
that opens the example in its view.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from ..engine.patterns import split_pieces
from ..engine.tokenizer import Tokenizer
from .labels import label_text

View = Literal["inspect", "compare"]
Tokenizers = Mapping[str, Tokenizer]  # name -> tokenizer, in the order shown

OPENAI = ("gpt2", "cl100k_base", "o200k_base")


@dataclass(frozen=True)
class Quirk:
    """One example: where it opens, and how to explain it from live facts.

    `tokenizers` are shown on the card and selected in Compare; Inspect
    shows one tokenizer, the first. `explain` returns the explanation as
    short statements, each built from what the given tokenizers do."""

    id: str
    title: str
    text: str
    view: View
    tokenizers: tuple[str, ...]
    explain: Callable[[Tokenizers], list[str]]
    source: str | None = None  # where the quirk was first described

    @property
    def inspect_tokenizer(self) -> str:
        return self.tokenizers[0]


# ------------------------------------------------------------------ facts


def covering_ids(tokenizer: Tokenizer, text: str, part: str) -> list[int]:
    """The tokens holding any byte of the first `part` in `text`: what the
    model receives for that stretch in this context (a token may also hold
    a neighbouring space, which is the point of several quirks)."""
    start = len(text[: text.index(part)].encode("utf-8"))
    end = start + len(part.encode("utf-8"))
    return [span.id for span in tokenizer.encode_with_offsets(text) if span.start < end and span.end > start]


def tokens_label(tokenizer: Tokenizer, ids: Sequence[int]) -> str:
    """Tokens as plain text, "·Solid | Gold | Mag", whitespace made visible."""
    return " | ".join(label_text(tokenizer.token_bytes(token_id)) for token_id in ids)


def letters_per_token(tokenizer: Tokenizer, ids: Sequence[int], letter: str) -> list[int]:
    """How many times `letter` occurs inside each token: the letters are there,
    but only as part of tokens the model must have learned to spell."""
    return [tokenizer.token_bytes(token_id).count(letter.encode("utf-8")) for token_id in ids]


def digit_group_limit(tokenizer: Tokenizer) -> int | None:
    """The most digits the split pattern lets stay together, or None when it
    keeps a run of digits whole (and only the merges decide the groups).
    Found by splitting a run longer than any digit token could be."""
    probe = "7" * (longest_digit_token(tokenizer) + 1)
    longest_piece = max((len(piece) for piece in split_pieces(probe, tokenizer.pattern)), default=0)
    return None if longest_piece == len(probe) else longest_piece


def _remembered_per_tokenizer(function):
    """functools.cache for a function of one tokenizer, except that it
    forgets a tokenizer once nothing else holds it (a session's uploads)."""
    results: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    @functools.wraps(function)
    def remembered(tokenizer: Tokenizer):
        if tokenizer not in results:
            results[tokenizer] = function(tokenizer)
        return results[tokenizer]

    return remembered


@_remembered_per_tokenizer
def longest_digit_token(tokenizer: Tokenizer) -> int:
    """The most digits one token of the vocabulary holds."""
    return max((len(token) for token in _vocabulary(tokenizer) if token.isdigit()), default=0)


@_remembered_per_tokenizer
def longest_space_token(tokenizer: Tokenizer) -> int:
    """The most spaces one token of the vocabulary holds (tokens of spaces only)."""
    return max((len(token) for token in _vocabulary(tokenizer) if _only_spaces(token)), default=0)


def _vocabulary(tokenizer: Tokenizer) -> list[bytes]:
    return [tokenizer.token_bytes(token_id) for token_id in tokenizer.vocab]


def _only_spaces(token: bytes) -> bool:
    return bool(token) and not token.strip(b" ")


def space_tokens(tokenizer: Tokenizer, text: str) -> list[int]:
    """The length of every token of `text` made only of spaces."""
    tokens = (tokenizer.token_bytes(token_id) for token_id in tokenizer.encode_ordinary(text))
    return [len(token) for token in tokens if _only_spaces(token)]


# ---------------------------------------------------------------- wording


def amount(count: int, noun: str) -> str:
    """"1 token", "3 tokens"."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def token_phrase(tokenizer: Tokenizer, token_id: int) -> str:
    """"·hello (id 23748)"."""
    return f"{tokens_label(tokenizer, [token_id])} (id {token_id})"


def tokens_phrase(tokenizer: Tokenizer, ids: Sequence[int]) -> str:
    """"1 token: ·hello (id 23748)" or "3 tokens: st | raw | berry"."""
    if len(ids) == 1:
        return f"1 token: {token_phrase(tokenizer, ids[0])}"
    return f"{amount(len(ids), 'token')}: {tokens_label(tokenizer, ids)}"


def _size(text: str) -> str:
    """"2 code points, 8 bytes"."""
    return f"{amount(len(text), 'code point')}, {amount(len(text.encode('utf-8')), 'byte')}"


def _counts_list(counts: Sequence[int]) -> str:
    """"0, 1 and 2"."""
    words = [str(count) for count in counts]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


# ---------------------------------------------------------------- quirks

WORD, LETTER = "strawberry", "r"
STRAWBERRY_TEXT = f"How many {LETTER}'s are in {WORD}?"


def explain_strawberry(tokenizers: Tokenizers) -> list[str]:
    lines = [f"“{WORD}” has {WORD.count(LETTER)} letters “{LETTER}”, but a model receives token ids, not letters."]
    for name, tokenizer in tokenizers.items():
        in_text, alone = covering_ids(tokenizer, STRAWBERRY_TEXT, WORD), tokenizer.encode_ordinary(WORD)
        letters = _counts_list(letters_per_token(tokenizer, alone, LETTER))
        lines.append(
            f"{name}: in this question, {tokens_phrase(tokenizer, in_text)}; at the start of a text, "
            f"{tokens_phrase(tokenizer, alone)}, holding {letters} of the {LETTER}'s."
        )
    lines.append(f"To count the {LETTER}'s, the model must have learned how each of these tokens is spelled.")
    return lines


DECIMALS = ("9.11", "9.9")
DECIMALS_TEXT = f"Which is bigger: {DECIMALS[0]} or {DECIMALS[1]}?"


def explain_decimals(tokenizers: Tokenizers) -> list[str]:
    lines = []
    for name, tokenizer in tokenizers.items():
        splits = (
            f"{number} is {tokens_label(tokenizer, covering_ids(tokenizer, DECIMALS_TEXT, number))}"
            for number in DECIMALS
        )
        lines.append(f"{name}: {', '.join(splits)}.")
    lines.append(
        "Where “11” is one token, the model sees the number eleven after the point, not the digits 1 and 1, "
        "and eleven is bigger than nine: a plausible reason why models have answered that 9.11 is bigger than 9.9."
    )
    return lines


LONG_NUMBER = "1234567890"
DIGITS_TEXT = f"{LONG_NUMBER} and 3.14159265358979"


def explain_digits(tokenizers: Tokenizers) -> list[str]:
    lines = []
    for name, tokenizer in tokenizers.items():
        groups = tokens_label(tokenizer, covering_ids(tokenizer, DIGITS_TEXT, LONG_NUMBER))
        limit = digit_group_limit(tokenizer)
        if limit is None:
            rule = "its split pattern keeps a run of digits whole, so its merges decide the groups"
        else:
            rule = f"its split pattern cuts digits into groups of at most {limit}, left to right, before any merge"
        longest = longest_digit_token(tokenizer)
        lines.append(f"{name}: {LONG_NUMBER} is {groups}; {rule}; its longest digit token has {longest} digits.")
    lines.append(
        "Where merges decide, the groups follow whichever digit strings were frequent in training (years, "
        "prices), so the same digits are grouped differently in different numbers: arithmetic on tokens is harder."
    )
    return lines


HELLO_VARIANTS = ("hello", " hello", "Hello", " Hello", "HELLO")
HELLO_TEXT = "\n".join(HELLO_VARIANTS)


def explain_leading_space(tokenizers: Tokenizers) -> list[str]:
    summary = (
        f"{amount(len(HELLO_VARIANTS), 'spelling')} of one word, as unrelated token ids: that they mean the same "
        "is something the model has to learn from data. A space belongs to the word after it."
    )
    lines = [summary]
    for name, tokenizer in tokenizers.items():
        variants = (
            f"{tokens_label(tokenizer, ids)} = {' '.join(map(str, ids))}"
            for ids in map(tokenizer.encode_ordinary, HELLO_VARIANTS)
        )
        lines.append(f"{name}: " + ";  ".join(variants))
    return lines


TRAILING_SPACE_TEXT = "The capital of France is "


def explain_trailing_space(tokenizers: Tokenizers) -> list[str]:
    lines = []
    for name, tokenizer in tokenizers.items():
        last = tokenizer.encode_ordinary(TRAILING_SPACE_TEXT)[-1]
        lines.append(
            f"{name}: the prompt's last token is {token_phrase(tokenizer, last)}; “ Paris” is "
            f"{tokens_phrase(tokenizer, tokenizer.encode_ordinary(' Paris'))}, and “Paris” without its space "
            f"{tokens_phrase(tokenizer, tokenizer.encode_ordinary('Paris'))}."
        )
    lines.append(
        "In ordinary text a space arrives glued to the next word. After a lone space token the model must go on "
        "with the rarer space-less form of the word, and completions get worse: trim trailing spaces from prompts."
    )
    return lines


GLITCH_WORD = " SolidGoldMagikarp"
GLITCH_TEXT = f"Please repeat the word{GLITCH_WORD} back to me."


def explain_glitch_token(tokenizers: Tokenizers) -> list[str]:
    lines = [
        f"{name}: “{GLITCH_WORD}” is {tokens_phrase(tokenizer, covering_ids(tokenizer, GLITCH_TEXT, GLITCH_WORD))}."
        for name, tokenizer in tokenizers.items()
    ]
    lines.append(
        "A vocabulary with this Reddit username as one token learned it from text where the name was frequent. "
        "The models trained with gpt2's vocabulary (GPT-2, GPT-3) most likely hardly ever saw that token, "
        "so its embedding stayed nearly untrained: asked to repeat it, GPT-3 models answered with other words. "
        "Split into ordinary pieces, the name is harmless."
    )
    return lines


FIRST_INDENTED = "    result"
INDENTATION_TEXT = (
    "def total(prices):\n"
    "    result = 0\n"
    "    for price in prices:\n"
    "        if price > 0:\n"
    "            result += price\n"
    "    return result\n"
)


def explain_indentation(tokenizers: Tokenizers) -> list[str]:
    lines = []
    for name, tokenizer in tokenizers.items():
        spaces = space_tokens(tokenizer, INDENTATION_TEXT)
        first_line = tokens_label(tokenizer, covering_ids(tokenizer, INDENTATION_TEXT, FIRST_INDENTED))
        lines.append(
            f"{name}: {amount(len(tokenizer.encode_ordinary(INDENTATION_TEXT)), 'token')}, "
            f"{len(spaces)} of them only spaces ({amount(sum(spaces), 'space')}); "
            f"“{FIRST_INDENTED}” is {first_line}; "
            f"its longest token of spaces is {amount(longest_space_token(tokenizer), 'space')}."
        )
    lines.append(
        "A vocabulary with tokens for runs of spaces spends one token per indentation; without them every space "
        "costs a token, and code fills the context window fast. The last space still joins the word, as in prose."
    )
    return lines


THUMBS_UP, SKIN_TONE_THUMBS_UP, FAMILY = "👍", "👍🏽", "👨\u200d👩\u200d👧\u200d👦"
ZERO_WIDTH_JOINER = "\u200d"
EMOJI_TEXT = f"{THUMBS_UP} {SKIN_TONE_THUMBS_UP} {FAMILY}"


def explain_emoji(tokenizers: Tokenizers) -> list[str]:
    joiners = FAMILY.count(ZERO_WIDTH_JOINER)
    anatomy = (
        f"{SKIN_TONE_THUMBS_UP} is {THUMBS_UP} plus a skin-tone modifier: {_size(SKIN_TONE_THUMBS_UP)}. "
        f"{FAMILY} is {len(FAMILY) - joiners} people joined by {joiners} invisible zero-width joiners (ZWJ): "
        f"{_size(FAMILY)}."
    )
    lines = [anatomy]
    for name, tokenizer in tokenizers.items():
        costs = ", ".join(
            f"{emoji} {amount(len(covering_ids(tokenizer, EMOJI_TEXT, emoji)), 'token')}"
            for emoji in (SKIN_TONE_THUMBS_UP, FAMILY)
        )
        thumbs_up = tokens_phrase(tokenizer, covering_ids(tokenizer, EMOJI_TEXT, THUMBS_UP))
        lines.append(f"{name}: {THUMBS_UP} is {thumbs_up}; {costs}.")
    lines.append(
        "A token shown as <…> is no character, only some of the bytes of one: the model has to learn which "
        "byte sequences add up to which emoji."
    )
    return lines


GREETINGS = {"English": "Hello, world!", "Hindi": "नमस्ते दुनिया!", "Burmese": "မင်္ဂလာပါ ကမ္ဘာလောက!"}
GREETINGS_TEXT = "\n".join(GREETINGS.values())


def greeting_costs(tokenizer: Tokenizer) -> dict[str, int]:
    """Tokens per language for the same greeting (tokens touching its line)."""
    return {language: len(covering_ids(tokenizer, GREETINGS_TEXT, line)) for language, line in GREETINGS.items()}


def explain_greetings(tokenizers: Tokenizers) -> list[str]:
    reference, *others = GREETINGS
    lines = [f"The same greeting in {', '.join(GREETINGS)}: tokens per line, and how many times the {reference} cost."]
    for name, tokenizer in tokenizers.items():
        costs = greeting_costs(tokenizer)
        relative = (
            f"{language} {costs[language]:,} ({costs[language] / costs[reference]:.1f}×)" for language in others
        )
        lines.append(f"{name}: {reference} {costs[reference]:,}, " + ", ".join(relative) + ".")
    lines.append(
        "Byte-level BPE can encode any script, but text the tokenizer saw little of is paid nearly byte by byte: "
        f"the Burmese line is {_size(GREETINGS['Burmese'])}. Newer vocabularies learned more scripts."
    )
    return lines


QUIRKS: list[Quirk] = [
    Quirk("strawberry", "How many r's in “strawberry”?", STRAWBERRY_TEXT, "compare", OPENAI, explain_strawberry),
    Quirk("decimals", "9.11 vs 9.9", DECIMALS_TEXT, "compare", OPENAI, explain_decimals),
    Quirk("digits", "How numbers are cut into tokens", DIGITS_TEXT, "compare", OPENAI, explain_digits),
    Quirk(
        "leading_space", "“hello” and “ hello” are different tokens", HELLO_TEXT, "inspect",
        ("gpt2", "cl100k_base"), explain_leading_space,
    ),
    Quirk(
        "trailing_space", "A prompt ending in a space", TRAILING_SPACE_TEXT, "inspect",
        OPENAI, explain_trailing_space,
    ),
    Quirk(
        "glitch_token", "“ SolidGoldMagikarp”: a glitch token", GLITCH_TEXT, "inspect", OPENAI, explain_glitch_token,
        source="Rumbelow & Watkins (2023), “SolidGoldMagikarp (plus, prompt generation)”, LessWrong.",
    ),
    Quirk("indentation", "Python indentation", INDENTATION_TEXT, "compare", OPENAI, explain_indentation),
    Quirk("emoji", "Emoji: skin tones and ZWJ sequences", EMOJI_TEXT, "compare", OPENAI, explain_emoji),
    Quirk("greetings", "One greeting, three scripts", GREETINGS_TEXT, "compare", OPENAI, explain_greetings),
]
