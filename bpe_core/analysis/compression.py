"""Compression against vocabulary size: the curve the tutorials plot, done properly.

Each merge adds one token to the vocabulary and makes the text shorter, so
the text's bytes per token rise as the vocabulary grows. Three measurements
sit on one chart:

- the *training* curve, read straight from the training trace (training
  already counted the corpus's length after every merge, so nothing is
  re-encoded);
- the *held-out* curve: the end of the text, cut off before training, encoded
  with the first k merges at a few checkpoints. It shows what generalises:
  merges that only memorised the training text do not shorten it;
- *reference points*: GPT-2's, GPT-4's and GPT-4o's vocabularies on the same
  held-out text.

Bytes per token is the size that matters to a model (its context window is
counted in tokens); characters per token is shown too, since a Japanese
character is three bytes and an English letter one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from ..corpora.samples import SAMPLES_DIR, catalog
from ..engine.corpus import corpus_size, count_pieces
from ..engine.replay_tokenizer import ReplayTokenizer
from ..engine.tokenizer import Tokenizer
from ..vocabularies.catalogue import OPENAI_GENERATIONS, load_encoding
from .tax import languages, parallel_text

HELD_OUT_FRACTION = 0.1
REFERENCE_ENCODINGS = OPENAI_GENERATIONS
MAX_TRAINING_POINTS = 400  # enough for a smooth line; a 20k trace would be 20k points
MIN_SAMPLE_BYTES = 1_000  # shorter samples ("aaabdaaabac") teach merges, not compression


PARALLEL_PREFIX = "parallel/"


class Point(NamedTuple):
    """One vocabulary size and how well it compresses a text."""

    vocab_size: int
    bytes_per_token: float
    chars_per_token: float


class Curves(NamedTuple):
    """One corpus's curves; `held_out` is empty when there is no held-out text."""

    training: list[Point]
    held_out: list[Point]


class ReferencePoint(NamedTuple):
    encoding: str
    vocab_size: int
    bytes_per_token: float
    chars_per_token: float


# ------------------------------------------------------------------ corpora


def chart_corpora() -> dict[str, str]:
    """Corpus id -> label of every text the chart can plot: the bundled text
    samples long enough to compress, then each language of the parallel
    corpus (ids "parallel/<code>"), whose curves differ only by language."""
    corpora = {
        sample_id: sample.title
        for sample_id, sample in catalog().items()
        if sample.kind == "text" and (SAMPLES_DIR / sample.file).stat().st_size >= MIN_SAMPLE_BYTES
    }
    for code, language in languages().items():
        corpora[PARALLEL_PREFIX + code] = f"Parallel corpus: {language.name}"
    return corpora


def corpus_text(corpus_id: str) -> str:
    """The text of a corpus id from `chart_corpora`."""
    if corpus_id.startswith(PARALLEL_PREFIX):
        code = corpus_id.removeprefix(PARALLEL_PREFIX)
        if code not in languages():
            raise ValueError(f"The parallel corpus has no language {code!r}.")
        return parallel_text(code)
    sample = catalog().get(corpus_id)
    if sample is None or sample.kind != "text":
        raise ValueError(f"No bundled text sample {corpus_id!r}.")
    return sample.load()


# -------------------------------------------------------------- measuring


def split_held_out(text: str, fraction: float = HELD_OUT_FRACTION) -> tuple[str, str]:
    """(training part, held-out part): the last `fraction` of the text is held out.

    The end is held out rather than random lines so that the two parts are
    as independent as the text allows (neighbouring lines share words). The
    cut is made at the start of the line nearest the cut point so no word
    is split; in a text with a single line, at the nearest whitespace, and
    in one without whitespace either, at the cut point itself.
    """
    if not 0 < fraction < 1:
        raise ValueError(f"The held-out fraction must be between 0 and 1, not {fraction!r}.")
    if len(text) < 2:
        raise ValueError("The text is too short to hold part of it out: it needs at least two characters.")
    target = round(len(text) * (1 - fraction))
    cut = _nearest_boundary(text, target, r"\n") or _nearest_boundary(text, target, r"\s") or target
    cut = min(max(cut, 1), len(text) - 1)  # both parts keep some text
    return text[:cut], text[cut:]


def _nearest_boundary(text: str, target: int, separator: str) -> int | None:
    """The position right after a match of `separator` (a regex) nearest
    `target` that leaves text on both sides; None if there is none."""
    boundaries = [match.end() for match in re.finditer(separator, text) if match.end() < len(text)]
    return min(boundaries, key=lambda position: abs(position - target), default=None)


def checkpoints(n_merges: int, count: int = 25, *, base_vocab: int = 256) -> list[int]:
    """About `count` merge counts from 0 to `n_merges`, sorted and distinct,
    spaced evenly in log(vocabulary size) so they are spread out on a log
    axis and still reach the right end of a linear one.

    Every step when there are no more than `count`.
    """
    if n_merges < 0 or count < 2 or base_vocab < 1:
        raise ValueError("checkpoints needs n_merges >= 0, count >= 2 and base_vocab >= 1.")
    if n_merges + 1 <= count:
        return list(range(n_merges + 1))
    growth = (base_vocab + n_merges) / base_vocab
    steps = {round(base_vocab * growth ** (index / (count - 1))) - base_vocab for index in range(count)}
    return sorted(steps | {0, n_merges})


def training_size(tokenizer: Tokenizer, corpus: str | Mapping[str, int]) -> tuple[int, int]:
    """(bytes, characters) of `corpus` as training counted it: its pieces
    under the tokenizer's split pattern, without special tokens or text the
    pattern drops, so that they match the trace's token counts."""
    return corpus_size(count_pieces(corpus, tokenizer.pattern, tuple(tokenizer.special_tokens)))


def training_curve(tokenizer: Tokenizer, corpus_bytes: int, corpus_chars: int) -> list[Point]:
    """Compression of the training text after 0, 1, ... merges, from the trace alone.

    `corpus_bytes` and `corpus_chars` are the training text's size as
    training counted it (see `training_size`). Before any merge every base
    unit is a token: one per byte, or one per character in the character
    variant. Long traces are thinned to `MAX_TRAINING_POINTS` points, the
    first and last always among them.
    """
    trace = tokenizer.trace
    if corpus_tokens_at(tokenizer, 0, corpus_bytes, corpus_chars) == 0:
        raise ValueError("The training text is empty, so it has no compression to plot.")
    points = []
    for step in checkpoints(len(trace), MAX_TRAINING_POINTS, base_vocab=tokenizer.first_merge_id):
        tokens = corpus_tokens_at(tokenizer, step, corpus_bytes, corpus_chars)
        points.append(Point(vocabulary_at(tokenizer, step), corpus_bytes / tokens, corpus_chars / tokens))
    return points


def held_out_curve(tokenizer: Tokenizer, text: str, steps: Sequence[int]) -> list[Point]:
    """Compression of a text the tokenizer never saw, with only the first k
    merges for each k in `steps` (see `checkpoints`): exactly the tokenizer
    that training had built by then. Sizes are the whole text's, as for the
    reference points (the preset split patterns drop nothing)."""
    points = []
    for step in steps:
        tokens = len(tokenizer.encode_at_step(text, step))
        points.append(_point(vocabulary_at(tokenizer, step), text, tokens))
    return points


def vocabulary_at(tokenizer: Tokenizer, step: int) -> int:
    """The vocabulary's size after `step` merges: the base units and one
    token per merge, less the tokens Picky BPE had removed by then (a
    removal follows its merge), so that a curve's x-axis counts tokens."""
    removed = sum(1 for removal in tokenizer.removals if removal.after <= step) \
        if isinstance(tokenizer, ReplayTokenizer) else 0
    return tokenizer.first_merge_id + step - removed


def reference_points(text: str, encodings: Sequence[str] = REFERENCE_ENCODINGS) -> list[ReferencePoint]:
    """How real models' vocabularies (OpenAI's by default) compress `text` (special-token strings as
    plain text, like tiktoken's `encode_ordinary`)."""
    points = []
    for name in encodings:
        encoding = load_encoding(name)
        point = _point(encoding.n_vocab, text, len(encoding.encode_ordinary(text)))
        points.append(ReferencePoint(name, *point))
    return points


def _point(vocab_size: int, text: str, tokens: int) -> Point:
    if tokens == 0:
        raise ValueError("The text has no tokens to measure (it is empty, or the split pattern drops all of it).")
    return Point(vocab_size, len(text.encode("utf-8")) / tokens, len(text) / tokens)


def corpus_curves(
    tokenizer: Tokenizer, training_corpus: str | Mapping[str, int], held_out_text: str | None
) -> Curves:
    """Both curves for a tokenizer trained on `training_corpus` (a text, or
    word counts); no held-out curve when `held_out_text` is None."""
    training = training_curve(tokenizer, *training_size(tokenizer, training_corpus))
    if held_out_text is None:
        return Curves(training, [])
    steps = checkpoints(len(tokenizer.trace), base_vocab=tokenizer.first_merge_id)
    return Curves(training, held_out_curve(tokenizer, held_out_text, steps))


def corpus_tokens_at(tokenizer: Tokenizer, step: int, corpus_bytes: int, corpus_chars: int) -> int:
    """The training corpus's length in tokens after `step` merges (and the
    removals they caused): from the trace, and before any merge one token
    per base unit (byte, or character in the character variant)."""
    if isinstance(tokenizer, ReplayTokenizer):
        after = [removal.corpus_tokens for removal in tokenizer.removals if removal.after == step]
        if after:
            return after[-1]
    if step:
        return tokenizer.trace[step - 1].corpus_tokens
    return corpus_bytes if tokenizer.units == "bytes" else corpus_chars
