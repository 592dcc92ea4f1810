"""Ways to learn a subword vocabulary, side by side: BPE, WordPiece, Unigram,
and three ideas after 2019 on this engine (SuperBPE, BoundlessBPE, Picky BPE).

All of them start from small units and end with a vocabulary of a chosen
size; they differ in what they add, and in what they keep of the text:

- **BPE** (this engine; GPT, Llama): merge the most frequent adjacent pair,
  again and again. Byte-level, so every byte has a token: nothing is ever
  unknown, and decoding gives the text back exactly.
- **WordPiece** (Hugging Face; BERT): merge the pair that raises the
  likelihood of the training text most, count(ab) / (count(a) * count(b)),
  so pairs of rare parts win over pairs of common ones. Words are cut at
  spaces and punctuation first; a word's later pieces are marked "##"; a
  word with a character it never saw becomes "[UNK]" whole, and the
  whitespace between words is not kept.
- **Unigram** (Hugging Face, as in SentencePiece; T5, ALBERT): start from
  many candidate pieces and drop, round after round, those the training
  text misses least, by a unigram language model; a text is cut into its
  most probable pieces. "▁" marks a space; an unseen character is "<unk>".
- **SuperBPE**, **BoundlessBPE**, **Picky BPE** (this engine, see
  `bpe_core.algorithms`): BPE whose tokens may span words (superwords), or
  whose training removes the tokens a merge leaves behind (removals).

Each is trained on the same text to the same vocabulary size, then measured
on text held out from training: tokens, bytes and characters per token,
tokens per word (`words`), words split, and what is lost as unknown; and
on the 30-language passage, what each language pays against English and how
unevenly (`language_effect`).
"""

from __future__ import annotations

import collections
import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass

from ..algorithms.hf_trainers import HFTokenizer, train_unigram, train_wordpiece
from ..algorithms.picky import check_threshold
from ..algorithms.superbpe import check_transition
from ..corpora.samples import SAMPLES_DIR, catalog
from ..engine.replay_tokenizer import ReplayTokenizer
from ..engine.tokenizer import Tokenizer
from .compression import HELD_OUT_FRACTION, split_held_out
from .tax import HELD_OUT_LINES, TRAINING_LINES, Cost, cost_of_spans, gini, languages, parallel_text

ALGORITHMS = {
    "bpe": "BPE",
    "superbpe": "SuperBPE",
    "boundless": "BoundlessBPE",
    "picky": "Picky BPE",
    "wordpiece": "WordPiece",
    "unigram": "Unigram",
}
ON_THE_ENGINE = ("bpe", "superbpe", "boundless", "picky")  # trained here; the others by Hugging Face
ALL_LANGUAGES = "parallel"  # corpus id: the parallel corpus, every language
MIN_CORPUS_BYTES = 3_000  # enough text to learn a vocabulary of some hundreds from


# ------------------------------------------------------------------ corpora


def algorithm_corpora() -> dict[str, str]:
    """Corpus id -> label: the bundled text samples with enough text, and the
    parallel corpus in all its languages."""
    corpora = {
        sample_id: sample.title for sample_id, sample in catalog().items()
        if sample.kind == "text" and (SAMPLES_DIR / sample.file).stat().st_size >= MIN_CORPUS_BYTES
    }
    corpora[ALL_LANGUAGES] = f"Parallel corpus: all {len(languages())} languages"
    return corpora


@functools.cache  # the page asks for them a few times per visit; the corpora do not change
def corpus_parts(corpus_id: str) -> tuple[str, str]:
    """(training text, held-out text) of a corpus from `algorithm_corpora`:
    a sample's last tenth is held out; the parallel corpus holds out the
    same sentences in every language."""
    if corpus_id == ALL_LANGUAGES:
        codes = list(languages())
        return ("".join(parallel_text(code, TRAINING_LINES) for code in codes),
                "".join(parallel_text(code, HELD_OUT_LINES) for code in codes))
    if corpus_id not in algorithm_corpora():
        raise ValueError(f"No bundled corpus {corpus_id!r} to train the algorithms on.")
    return split_held_out(catalog()[corpus_id].load(), HELD_OUT_FRACTION)


def word_language(corpus_id: str) -> str:
    """The ICU locale words are found with (ICU's dictionaries go by script,
    so mixed text is found right with any)."""
    sample = catalog().get(corpus_id)
    return sample.language if sample is not None and len(sample.language) == 2 else "en"


# ----------------------------------------------------------------- training


RIVALS = {"wordpiece": train_wordpiece, "unigram": train_unigram}  # trained by Hugging Face


def training_settings(algorithm: str, vocab_size: int, *, pattern: str, transition: int, threshold: float) -> dict:
    """The settings `algorithm`'s trainer takes: Hugging Face's the
    vocabulary size (`train_rival`); the engine's (see
    `jobs.budgeted_training.TRAINERS`) the split too, SuperBPE its
    transition, Picky BPE its threshold."""
    if algorithm in RIVALS:
        return {"vocab_size": vocab_size}
    settings = {"vocab_size": vocab_size, "pattern": pattern}
    if algorithm == "superbpe":
        settings["transition"] = transition
    if algorithm == "picky":
        settings["threshold"] = threshold
    return settings


def settings_problems(vocab_size: int, transition: int, threshold: float) -> dict[str, str]:
    """Algorithm -> why its settings cannot train it (the trainer's own
    one-line refusal), for those that cannot; checked before any work."""
    problems = {}
    for algorithm, check in (("superbpe", lambda: check_transition(transition, vocab_size)),
                             ("picky", lambda: check_threshold(threshold))):
        try:
            check()
        except ValueError as error:
            problems[algorithm] = str(error)
    return problems


def train_rival(algorithm: str, training_text: str, vocab_size: int) -> HFTokenizer:
    """WordPiece or Unigram, trained by Hugging Face on `training_text`
    (line by line, line breaks included, as BPE sees them) to `vocab_size`."""
    return RIVALS[algorithm](training_text.splitlines(keepends=True), vocab_size)


# ---------------------------------------------------------------- measuring


@dataclass(frozen=True)
class AlgorithmCost:
    """One algorithm's tokenizer on one text: what the text costs (tokens,
    compression, fertility), and what it loses."""

    algorithm: str
    n_vocab: int
    cost: Cost
    unknown_tokens: int  # "[UNK]" or "<unk>": text the vocabulary cannot spell
    unknown_chars: int  # the characters those stand for, lost
    round_trip: bool  # whether decoding gives the text back exactly


def measure_algorithm(algorithm: str, tokenizer: Tokenizer | HFTokenizer, text: str,
                      language: str = "en") -> AlgorithmCost:
    spans = tokenizer.encode_with_offsets(text, disallowed_special=())
    data = text.encode("utf-8")
    unknown = [span for span in spans if span.id == tokenizer.unknown_id]
    return AlgorithmCost(
        algorithm=algorithm,
        n_vocab=vocabulary_size(tokenizer),
        cost=cost_of_spans(text, spans, language),
        unknown_tokens=len(unknown),
        unknown_chars=sum(len(data[span.start:span.end].decode("utf-8", "replace")) for span in unknown),
        round_trip=tokenizer.decode([span.id for span in spans]) == text,
    )


def vocabulary_size(tokenizer: Tokenizer | HFTokenizer) -> int:
    """How many tokens a tokenizer has: its ids, less those Picky BPE removed."""
    removed = len(tokenizer.removed_tokens) if isinstance(tokenizer, ReplayTokenizer) else 0
    return tokenizer.n_vocab - removed


def unknown_stretches(tokenizer: Tokenizer | HFTokenizer, text: str) -> list[str]:
    """The stretches of `text` the tokenizer could only call unknown, in order
    of first appearance."""
    data = text.encode("utf-8")
    spans = tokenizer.encode_with_offsets(text, disallowed_special=())
    found = (data[span.start:span.end].decode("utf-8", "replace") for span in spans if span.id == tokenizer.unknown_id)
    return list(dict.fromkeys(found))


# ------------------------------------------------------- what each one keeps


def surface(tokenizer: Tokenizer | HFTokenizer, token_id: int) -> bytes:
    """A token's text without its algorithm's word mark: BPE's and Unigram's
    leading space, WordPiece's "##" (already off its bytes), so that " the",
    "▁the", "the" and "##the" all read "the"."""
    return tokenizer.token_bytes(token_id).removeprefix(b" ")


@dataclass(frozen=True)
class OnlyHere:
    """A piece one algorithm learned and no other did, and how often its
    tokenizer used it on the text."""

    token_id: int
    text: bytes  # its surface (see `surface`)
    uses: int


def only_in_each(tokenizers: Mapping[str, Tokenizer | HFTokenizer], text: str) -> dict[str, list[OnlyHere]]:
    """For each algorithm, the pieces (by surface) in its vocabulary and in no
    other one's, the ones its encoding of `text` uses most first (then
    the longest)."""
    surfaces = {
        name: {surface(tokenizer, token_id) for token_id in tokenizer.vocab} - {b""}
        for name, tokenizer in tokenizers.items()
    }
    result = {}
    for name, tokenizer in tokenizers.items():
        others = set().union(*(pieces for other, pieces in surfaces.items() if other != name))
        uses = collections.Counter(span.id for span in tokenizer.encode_with_offsets(text, disallowed_special=()))
        own = {}
        for token_id in tokenizer.vocab:
            piece = surface(tokenizer, token_id)
            if piece and piece not in others:
                own.setdefault(piece, OnlyHere(token_id, piece, 0))
                if uses[token_id] > own[piece].uses:
                    own[piece] = OnlyHere(token_id, piece, uses[token_id])
        result[name] = sorted(own.values(), key=lambda item: (-item.uses, -len(item.text), item.token_id))
    return result


def shared_share(tokenizers: Mapping[str, Tokenizer | HFTokenizer]) -> dict[str, float]:
    """For each algorithm, the share of its pieces (by surface) that every
    other learned too."""
    surfaces = {name: {surface(tok, token_id) for token_id in tok.vocab} - {b""} for name, tok in tokenizers.items()}
    shares = {}
    for name, pieces in surfaces.items():
        others = [other for key, other in surfaces.items() if key != name]
        shares[name] = len(pieces.intersection(*others)) / len(pieces) if pieces else 0.0
    return shares


# ------------------------------------------------ superwords and removals

_ACROSS_WORDS = re.compile(rb"\S\s+\S")  # text, whitespace, text: a word boundary inside the token


def spans_words(token: bytes) -> bool:
    """Whether a token holds a word boundary inside it (" of the", ", and"):
    a superword. A leading space only marks a word's start, as in " the"."""
    return _ACROSS_WORDS.search(token) is not None


@dataclass(frozen=True)
class Superword:
    """A token spanning words, and how often its tokenizer used it on the text."""

    token_id: int
    text: bytes
    uses: int


def superwords_used(tokenizer: Tokenizer, text: str) -> list[Superword]:
    """The superwords of `tokenizer`'s vocabulary, those its encoding of
    `text` uses most first (then by id: the earliest learned)."""
    uses = collections.Counter(tokenizer.encode(text, disallowed_special=()))
    found = [Superword(token_id, token, uses[token_id]) for token_id, token in tokenizer.vocab.items()
             if isinstance(token, bytes) and spans_words(token)]
    return sorted(found, key=lambda word: (-word.uses, word.token_id))


@dataclass(frozen=True)
class Removal:
    """A token Picky BPE removed, in words: after which merge, into what."""

    token_id: int
    text: bytes
    ios: float  # of its uses before the merge, the share inside the merge's new token
    step: int  # the merge after which it was removed
    merged: tuple[bytes, bytes, bytes]  # that merge: left + right -> new token


def removals(tokenizer: Tokenizer) -> list[Removal]:
    """Every token Picky BPE's training removed, in the order removed (none
    for a tokenizer that removes nothing)."""
    if not isinstance(tokenizer, ReplayTokenizer):
        return []
    found = []
    for removal in tokenizer.removals:
        merge = tokenizer.trace[removal.after - 1]
        left, right = (tokenizer.token_bytes(part) for part in merge.pair)
        found.append(Removal(removal.token_id, tokenizer.token_bytes(removal.token_id), removal.ios, removal.after,
                             (left, right, tokenizer.token_bytes(merge.new_id))))
    return found


# --------------------------------------------------- the per-language effect


def language_tokens(tokenizer: Tokenizer | HFTokenizer) -> dict[str, int]:
    """Language code -> tokens of the passage's held-out lines in it (the
    same content in every language: the lines a training on
    `corpus_parts(ALL_LANGUAGES)` did not see)."""
    return {code: len(tokenizer.encode(parallel_text(code, HELD_OUT_LINES), disallowed_special=()))
            for code in languages()}


@dataclass(frozen=True)
class LanguageEffect:
    """One algorithm on the 30-language passage: each language's premium
    (its tokens over English's, for the same content) and their Gini."""

    algorithm: str
    tokens: dict[str, int]  # language code -> tokens of the same content
    premiums: dict[str, float]  # language code -> premium
    gini: float  # of the tokens per language


def language_effect(algorithm: str, tokens: Mapping[str, int], base: str = "en") -> LanguageEffect:
    """`language_tokens`' counts as premiums against `base`, and their Gini."""
    if not tokens.get(base):
        raise ValueError(f"No tokens of the base language {base!r} to compare against.")
    return LanguageEffect(algorithm, dict(tokens), {code: count / tokens[base] for code, count in tokens.items()},
                          gini(list(tokens.values())))
