"""The tokenization tax: what the same content costs in tokens, per language.

The parallel corpus (`sample_corpora/parallel/`) holds one passage in many
languages, line-aligned, so every language says the same thing and token
counts can be compared directly.

Premium (Petrov et al., "Language Model Tokenizers Introduce Unfairness
Between Languages", NeurIPS 2023): for language L and tokenizer T,

    premium_T(L) = tokens_T(text_L) / tokens_T(text_en)

over the whole passage (ratio of totals). A premium of 3 means the same
content costs three times as many tokens as in English: three times the
price per request, and a third as much text fits in the context window.

Two effects add up in it, and the other metrics separate them:

- the script's byte cost: the byte premium, bytes_L / bytes_en (UTF-8 spends
  1 byte on a Latin letter, 2 on Cyrillic or Arabic, 3 on Devanagari or
  Burmese). A byte-level tokenizer that learned nothing about L pays that.
- the vocabulary's coverage: bytes per token. A tokenizer whose training
  data held much of L has long tokens for it; one that saw little of L falls
  back to one or two bytes per token.

Fertility (tokens per word, Rust et al., "How Good is Your Tokenizer?",
ACL 2021) and the share of words split into several tokens say the same
per word, which is how a reader meets text. Words are found by ICU's word
boundaries in every language, with dictionaries for the scripts written
without spaces (see `words`).

Inequality over all languages at once, in one number: the Gini
coefficient of per-language token cost (`cost_gini`), the measure
parity-aware BPE is judged by (Foroutan et al. 2025, "Tokenizer Fairness
Gini"; computed as the authors' evaluation suite does,
swiss-ai/tokenizer-intrinsic-evals, `metrics/gini.py`, with its default
unit, lines): each language's cost c is its tokens per parallel unit (a
line of the passage, aligned across languages), every language weighted
equally, and G = sum_i sum_j |c_i - c_j| / (2 n^2 mean(c)). 0 is parity;
the more the tokens go to a few languages, the nearer 1 - 1/n.

The causal experiment: train the same algorithm on different mixes of
languages and the premiums follow the mix. `parity_experiment` goes one
step further: plain and parity-aware byte-level BPE (Foroutan et al.,
"Parity-Aware Byte-Pair Encoding", 2025) trained on the same 30-language
text at the same vocabulary size, and how much of each language's tax the
parity-aware objective removes, and what English pays for it.
"""

from __future__ import annotations

import csv
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..algorithms.hf_trainers import HFTokenizer, train_byte_bpe, train_parity_bpe
from ..corpora.samples import SAMPLES_DIR
from ..engine.tokenizer import Tokenizer, TokenSpan
from .words import count_words, split_words

PARALLEL_DIR = SAMPLES_DIR / "parallel"


@dataclass(frozen=True)
class Language:
    code: str
    name: str
    native_name: str
    script: str
    spaces_between_words: bool


@functools.cache
def languages(directory: Path = PARALLEL_DIR) -> dict[str, Language]:
    """The languages of the parallel corpus by code, English first (manifest order)."""
    with open(directory / "languages.csv", encoding="utf-8", newline="") as manifest:
        rows = list(csv.DictReader(manifest))
    return {
        row["code"]: Language(row["code"], row["name"], row["native_name"], row["script"],
                              row["spaces_between_words"] == "yes")
        for row in rows
    }


def parallel_lines(code: str, directory: Path = PARALLEL_DIR) -> list[str]:
    """The passage in one language, one sentence per line."""
    return (directory / f"{code}.txt").read_text(encoding="utf-8").splitlines()


def parallel_text(code: str, lines: slice = slice(None), directory: Path = PARALLEL_DIR) -> str:
    """The passage (or some of its lines) in one language, as one text."""
    return "\n".join(parallel_lines(code, directory)[lines]) + "\n"


@dataclass(frozen=True)
class Cost:
    """What one text costs under one tokenizer."""

    tokens: int
    bytes: int
    chars: int
    words: int  # found by ICU's word boundaries (see `words`)
    split_words: int  # words that take more than one token

    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.tokens if self.tokens else 0.0

    @property
    def chars_per_token(self) -> float:
        return self.chars / self.tokens if self.tokens else 0.0

    @property
    def fertility(self) -> float | None:
        """Tokens per word."""
        return self.tokens / self.words if self.words else None

    @property
    def split_share(self) -> float | None:
        """The share of words split into several tokens."""
        return self.split_words / self.words if self.words else None


def measure(tokenizer: Tokenizer, text: str, language: str = "en") -> Cost:
    """Token, byte, character and word counts of `text` under `tokenizer`,
    and how many words take more than one token. `language` is the text's
    (an ICU locale). Special-token strings in the text are plain text."""
    return cost_of_spans(text, tokenizer.encode_with_offsets(text, disallowed_special=()), language)


def cost_of_spans(text: str, spans: Sequence[TokenSpan], language: str = "en") -> Cost:
    """`measure`, given the tokens' spans already (from `encode_with_offsets`)."""
    return Cost(
        tokens=len(spans),
        bytes=len(text.encode("utf-8")),
        chars=len(text),
        words=count_words(text, language),
        split_words=split_words(text, spans, language),
    )


@dataclass(frozen=True)
class TaxRow:
    """One language under one tokenizer, relative to the base language."""

    tokenizer: str
    code: str
    cost: Cost
    premium: float  # tokens relative to the base language's
    byte_premium: float  # UTF-8 bytes relative to the base language's


def tax_table(tokenizers: Mapping[str, Tokenizer], texts: Mapping[str, str], base: str = "en") -> list[TaxRow]:
    """Every (tokenizer, language) pair with its premium against `base`;
    `texts` are keyed by language code."""
    if base not in texts:
        raise ValueError(f"The base language {base!r} is not among the texts.")
    return [row for name, tokenizer in tokenizers.items() for row in tax_rows(name, costs_of(tokenizer, texts), base)]


def costs_of(tokenizer: Tokenizer, texts: Mapping[str, str]) -> dict[str, Cost]:
    """What each text (keyed by language code) costs under `tokenizer`."""
    return {code: measure(tokenizer, text, code) for code, text in texts.items()}


def tax_rows(name: str, costs: Mapping[str, Cost], base: str = "en") -> list[TaxRow]:
    """One tokenizer's rows, from its costs per language, against `base`."""
    empty = [code for code, cost in costs.items() if cost.tokens == 0]
    if empty:  # its split pattern drops that text: there is no premium to speak of
        raise ValueError(
            f"{name} turns the text of {', '.join(empty[:5])} into no tokens at all "
            "(its split pattern does not match that script), so it has no premium to show."
        )
    reference = costs[base]
    return [TaxRow(name, code, cost, cost.tokens / reference.tokens, cost.bytes / reference.bytes)
            for code, cost in costs.items()]


def corpus_table(tokenizers: Mapping[str, Tokenizer], base: str = "en", directory: Path = PARALLEL_DIR) -> list[TaxRow]:
    """`tax_table` over the whole parallel corpus."""
    texts = {code: parallel_text(code, directory=directory) for code in languages(directory)}
    return tax_table(tokenizers, texts, base)


def premiums(tokenizers: Mapping[str, Tokenizer], base: str = "en", directory: Path = PARALLEL_DIR) -> dict[str, dict[str, float]]:
    """{tokenizer: {language code: premium}} over the whole parallel corpus."""
    table = {name: {} for name in tokenizers}
    for row in corpus_table(tokenizers, base, directory):
        table[row.tokenizer][row.code] = row.premium
    return table


def gini(values: Sequence[float]) -> float:
    """The Gini coefficient of `values`, each weighted equally: the mean
    absolute difference of all pairs over twice the mean,
    sum_i sum_j |x_i - x_j| / (2 n^2 mean). Computed from the values sorted
    ascending, where half that double sum is sum_i (2i - n - 1) x_(i) (i
    from 1): n log n steps rather than n^2. 0 when all are equal (or all 0)."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("The Gini coefficient of no values is undefined.")
    if ordered[0] < 0:
        raise ValueError(f"The Gini coefficient is for amounts of 0 or more, not {ordered[0]}.")
    total, n = sum(ordered), len(ordered)
    if total == 0:
        return 0.0
    return sum((2 * rank - n - 1) * value for rank, value in enumerate(ordered, start=1)) / (n * total)


def cost_gini(costs: Mapping[str, Cost], units: Mapping[str, int]) -> float:
    """The Gini coefficient of per-language token cost: each language's
    tokens per parallel unit (`units[code]`: its lines, or its declarations),
    every language weighted equally (see the module's note)."""
    return gini([cost.tokens / units[code] for code, cost in costs.items()])


PASSAGE_GINI_COST = "tokens per line of the passage (its sentences, aligned across languages), every language weighted equally"


def passage_units(directory: Path = PARALLEL_DIR) -> dict[str, int]:
    """Each language's parallel units in the passage: its lines (the same
    sentences in every language)."""
    return {code: sum(1 for line in parallel_lines(code, directory) if line.strip()) for code in languages(directory)}


def passage_gini(rows: Sequence[TaxRow]) -> dict[str, float]:
    """{tokenizer: the Gini coefficient of its per-language cost} over the
    passage, from its rows (`tax_table`, `corpus_table`)."""
    units = passage_units()
    costs: dict[str, dict[str, Cost]] = {}
    for row in rows:
        costs.setdefault(row.tokenizer, {})[row.code] = row.cost
    return {name: cost_gini(by_language, units) for name, by_language in costs.items()}


def row_figures(row: TaxRow) -> dict[str, float | int | None]:
    """One (tokenizer, language) pair's figures, as the command line prints them."""
    cost = row.cost
    return {"premium": row.premium, "fertility": cost.fertility, "split_share": cost.split_share,
            "tokens": cost.tokens, "words": cost.words, "split_words": cost.split_words,
            "bytes_per_token": cost.bytes_per_token}


# The causal experiment: the tax comes from what a tokenizer was trained on.
BYTES = 256  # the byte-level tokenizers' base vocabulary: every byte (see `hf_trainers`)
TRAINING_LINES = slice(0, 14)  # sentences 1-14 train the experiment's tokenizers
HELD_OUT_LINES = slice(14, None)  # sentences 15-20 measure them


def training_mix(weights: Mapping[str, int], directory: Path = PARALLEL_DIR) -> str:
    """A training text: each language's training sentences repeated by its weight.

    Repetition stands in for "more data in this language": pair counts, and
    so merges, follow how much of each language the trainer sees."""
    parts = []
    for code, weight in weights.items():
        parts.extend([parallel_text(code, TRAINING_LINES, directory)] * weight)
    return "".join(parts)


@dataclass(frozen=True)
class ContentCost:
    """What a fixed amount of content costs in one language."""

    tokens: float  # tokens the content takes in this language
    price: float  # at the given price per million tokens
    fits: float  # share of the content that fits in one context window (1.0 = all of it)


def content_cost(premium: float, base_tokens: float, price_per_million: float, context_window: int) -> ContentCost:
    """The cost of content that takes `base_tokens` in the base language,
    in a language with the given premium."""
    tokens = base_tokens * premium
    fits = min(1.0, context_window / tokens) if tokens else 1.0
    return ContentCost(tokens, tokens * price_per_million / 1_000_000, fits)


# The parity experiment: same text, same vocabulary size, two objectives.


@dataclass(frozen=True)
class ParityRow:
    """One language under plain and under parity-aware BPE."""

    code: str
    plain: TaxRow
    parity: TaxRow

    @property
    def tax_removed(self) -> float | None:
        """The share of the plain tokenizer's tax (premium above 1) that
        parity-aware training removes: 1.0 is parity with the base language;
        negative, the tax grew. None where there was no tax to remove."""
        excess = self.plain.premium - 1
        return (self.plain.premium - self.parity.premium) / excess if excess > 0 else None

    @property
    def token_change(self) -> float:
        """Tokens under parity-aware BPE relative to plain BPE, minus one:
        -0.2 is a fifth fewer tokens; for English, what it pays."""
        return self.parity.cost.tokens / self.plain.cost.tokens - 1


@dataclass(frozen=True)
class ParityExperiment:
    plain: HFTokenizer
    parity: HFTokenizer
    rows: list[ParityRow]  # in the corpus manifest's order

    def row(self, code: str) -> ParityRow:
        return next(row for row in self.rows if row.code == code)


PARITY_STAGES = ("training parity-aware BPE", "training plain BPE", "measuring both")


def parity_experiment(num_merges: int, base: str = "en", directory: Path = PARALLEL_DIR, *,
                      progress: Callable[[int, int], None] | None = None) -> ParityExperiment:
    """Train plain and parity-aware byte-level BPE on the training sentences
    of every language (the same text, split and number of merges, so the
    same vocabulary size; pairs seen once are not merged, and where one
    trainer runs out of pairs first, the other stops there too), and
    measure both on the held-out sentences. The
    dev text parity-aware training balances on is the training sentences
    themselves, parallel across languages; neither tokenizer sees the
    held-out ones. `progress(stages done, stages)` is called before each of
    the PARITY_STAGES and at the end (Hugging Face's trainers report no
    progress of their own)."""
    def reached(stage: int) -> None:
        if progress is not None:
            progress(stage, len(PARITY_STAGES))

    codes = list(languages(directory))
    lines = {code: parallel_lines(code, directory)[TRAINING_LINES] for code in codes}
    every_line = [line for code in codes for line in lines[code]]
    reached(0)
    parity = train_parity_bpe(lines, lines, num_merges)
    reached(1)
    plain = train_byte_bpe(every_line, num_merges)
    if plain.n_vocab != parity.n_vocab:  # one ran out of pairs seen twice first: the other stops there too
        merges = min(plain.n_vocab, parity.n_vocab) - BYTES
        if plain.n_vocab > parity.n_vocab:
            plain = train_byte_bpe(every_line, merges)
        else:
            parity = train_parity_bpe(lines, lines, merges)
    reached(2)
    held_out = {code: parallel_text(code, HELD_OUT_LINES, directory) for code in codes}
    rows = {(row.tokenizer, row.code): row for row in tax_table({"plain": plain, "parity": parity}, held_out, base)}
    reached(3)
    return ParityExperiment(plain, parity, [ParityRow(code, rows["plain", code], rows["parity", code]) for code in codes])
