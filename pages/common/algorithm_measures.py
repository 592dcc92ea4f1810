"""What the Algorithms page measures of its tokenizers, and its default view's measures, shipped.

The page encodes a corpus's held-out text a few times with each tokenizer
(what each costs, the pieces only one learned, what each loses, the
superwords each uses): about a second of a first visit, and the same for
every visitor of the default view, whose tokenizers ship with the app
(`bpe_core.analysis.shipped_algorithms`). So the default view's measures
are made at build time too (`sample_corpora/build_algorithm_measures.py`)
and shipped in `algorithm_measures.json`, under the SHA-256 of the held-out
text and each tokenizer's fingerprint: the page uses them while it measures
those very tokenizers on that very text, and measures anything else itself.
A test measures them again and compares.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bpe_core.analysis.algorithms import (
    ALGORITHMS,
    AlgorithmCost,
    OnlyHere,
    Removal,
    Superword,
    corpus_parts,
    measure_algorithm,
    only_in_each,
    removals,
    shared_share,
    superwords_used,
    training_settings,
    unknown_stretches,
)
from bpe_core.analysis.shipped_algorithms import (
    BPE_PATTERN,
    DEFAULT_CORPUS,
    DEFAULT_THRESHOLD,
    DEFAULT_TRANSITION,
    DEFAULT_VOCAB_SIZE,
    shipped_tokenizer,
)
from bpe_core.analysis.tax import Cost
from bpe_core.corpora.samples import SAMPLES_DIR
from bpe_core.drawing.algorithms import algorithm_bars

SHIPPED_FILE = SAMPLES_DIR / "algorithm_measures.json"
ONLY_HERE_SHOWN = 24  # pieces shown per algorithm under "What each keeps"
LOST_SHOWN = 12  # unknown stretches quoted per algorithm
SUPERWORDS_SHOWN = 30  # superwords shown per algorithm
REMOVALS_SHOWN = 12  # removals told per algorithm


@dataclass(frozen=True)
class Measures:
    """What the page shows of the tokenizers on the held-out text."""

    costs: tuple[AlgorithmCost, ...]
    shares: dict[str, float]
    only_here: dict[str, tuple[OnlyHere, ...]]  # the first ONLY_HERE_SHOWN of each
    only_here_count: dict[str, int]
    lost: dict[str, tuple[str, ...]]  # the first LOST_SHOWN + 1 of each
    superwords: dict[str, tuple[Superword, ...]]  # the first SUPERWORDS_SHOWN of each, of those with any
    superword_count: dict[str, int]
    removals: dict[str, tuple[Removal, ...]]  # of Picky BPE
    bars: str  # of the costs, as HTML (drawn once, with the rest)


def measure(tokenizers: Mapping[str, object], held_out: str, language: str) -> Measures:
    """The measures of `tokenizers` (algorithm -> tokenizer) on `held_out`,
    whose words are found as `language`'s."""
    only = only_in_each(tokenizers, held_out)
    lost = {algorithm: unknown_stretches(tokenizer, held_out) for algorithm, tokenizer in tokenizers.items()}
    superwords = {algorithm: superwords_used(tokenizer, held_out) for algorithm, tokenizer in tokenizers.items()
                  if algorithm in ("superbpe", "boundless")}
    costs = tuple(measure_algorithm(algorithm, tokenizer, held_out, language)
                  for algorithm, tokenizer in tokenizers.items())
    return Measures(
        costs=costs,
        shares=shared_share(tokenizers),
        only_here={algorithm: tuple(pieces[:ONLY_HERE_SHOWN]) for algorithm, pieces in only.items()},
        only_here_count={algorithm: len(pieces) for algorithm, pieces in only.items()},
        lost={algorithm: tuple(stretches[:LOST_SHOWN + 1]) for algorithm, stretches in lost.items()},
        superwords={algorithm: tuple(words[:SUPERWORDS_SHOWN]) for algorithm, words in superwords.items()},
        superword_count={algorithm: len(words) for algorithm, words in superwords.items()},
        removals={algorithm: tuple(removals(tokenizer)) for algorithm, tokenizer in tokenizers.items()
                  if algorithm == "picky"},
        bars=algorithm_bars(costs),
    )


# ------------------------------------------------------------------ shipped


def default_tokenizers() -> dict:
    """The default view's tokenizers, as `algorithms.json` ships them, in the
    page's order (None for one that is not shipped)."""
    training_text = corpus_parts(DEFAULT_CORPUS)[0]
    return {algorithm: shipped_tokenizer(algorithm, training_text, training_settings(
        algorithm, DEFAULT_VOCAB_SIZE, pattern=BPE_PATTERN, transition=DEFAULT_TRANSITION, threshold=DEFAULT_THRESHOLD))
        for algorithm in ALGORITHMS}


def default_view() -> None:
    """Read what the page's default view shows from the shipped files (the
    server's warm-up does, while the first visitor's browser loads)."""
    tokenizers = default_tokenizers()
    if None not in tokenizers.values():
        shipped_measures(tokenizers, corpus_parts(DEFAULT_CORPUS)[1])


def measures_key(tokenizers: Mapping[str, object], held_out: str) -> str:
    """What names one measurement: the held-out text's SHA-256, and each
    algorithm's tokenizer by its fingerprint, in the page's order."""
    return json.dumps([hashlib.sha256(held_out.encode("utf-8")).hexdigest(),
                       [[algorithm, tokenizer.fingerprint] for algorithm, tokenizer in tokenizers.items()]])


def shipped_measures(tokenizers: Mapping[str, object], held_out: str, path: Path = SHIPPED_FILE) -> Measures | None:
    """The shipped measures of these tokenizers on this text, if they were shipped."""
    return _read_shipped(path).get(measures_key(tokenizers, held_out))


def write_shipped(measured: Mapping[str, Measures], path: Path = SHIPPED_FILE) -> None:
    """Keep measures, each under its `measures_key`."""
    path.write_text(json.dumps({key: as_json(measures) for key, measures in measured.items()},
                               ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")


@functools.cache
def _read_shipped(path: Path = SHIPPED_FILE) -> dict[str, Measures]:
    """The shipped file's measures by key, read once; none without a file."""
    try:
        return {key: from_json(stored) for key, stored in json.loads(path.read_text(encoding="utf-8")).items()}
    except OSError:
        return {}


def as_json(measures: Measures) -> dict:
    """`measures` as JSON: token bytes in hex, the bars left to be drawn again, everything else as it is."""
    def piece(item: OnlyHere | Superword) -> list:
        return [item.token_id, item.text.hex(), item.uses]

    def removal(item: Removal) -> list:
        return [item.token_id, item.text.hex(), item.ios, item.step, [part.hex() for part in item.merged]]

    return {
        "costs": [[cost.algorithm, cost.n_vocab, [cost.cost.tokens, cost.cost.bytes, cost.cost.chars, cost.cost.words,
                                                  cost.cost.split_words],
                   cost.unknown_tokens, cost.unknown_chars, cost.round_trip] for cost in measures.costs],
        "shares": measures.shares,
        "only_here": {algorithm: [piece(item) for item in items] for algorithm, items in measures.only_here.items()},
        "only_here_count": measures.only_here_count,
        "lost": {algorithm: list(items) for algorithm, items in measures.lost.items()},
        "superwords": {algorithm: [piece(item) for item in items] for algorithm, items in measures.superwords.items()},
        "superword_count": measures.superword_count,
        "removals": {algorithm: [removal(item) for item in items] for algorithm, items in measures.removals.items()},
    }


def from_json(stored: dict) -> Measures:
    """`as_json`'s measures back, their bars drawn."""
    costs = tuple(AlgorithmCost(algorithm, n_vocab, Cost(*cost), unknown_tokens, unknown_chars, round_trip)
                  for algorithm, n_vocab, cost, unknown_tokens, unknown_chars, round_trip in stored["costs"])
    return Measures(
        costs=costs,
        shares=stored["shares"],
        only_here={algorithm: tuple(OnlyHere(token_id, bytes.fromhex(text), uses) for token_id, text, uses in items)
                   for algorithm, items in stored["only_here"].items()},
        only_here_count=stored["only_here_count"],
        lost={algorithm: tuple(items) for algorithm, items in stored["lost"].items()},
        superwords={algorithm: tuple(Superword(token_id, bytes.fromhex(text), uses) for token_id, text, uses in items)
                    for algorithm, items in stored["superwords"].items()},
        superword_count=stored["superword_count"],
        removals={algorithm: tuple(Removal(token_id, bytes.fromhex(text), ios, step,
                                           tuple(bytes.fromhex(part) for part in merged))
                                   for token_id, text, ios, step, merged in items)
                  for algorithm, items in stored["removals"].items()},
        bars=algorithm_bars(costs),
    )
