"""Three ways to learn a subword vocabulary, side by side: BPE, WordPiece, Unigram.

All three start from small units and end with a vocabulary of a chosen
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

Each is trained on the same text to the same vocabulary size, then measured
on text held out from training: tokens, bytes and characters per token,
tokens per word (`words`), words split, and what is lost as unknown.
"""

from __future__ import annotations

import collections
from collections.abc import Mapping
from dataclasses import dataclass

from ..algorithms.hf_trainers import HFTokenizer, train_unigram, train_wordpiece
from ..corpora.samples import SAMPLES_DIR, catalog
from ..engine.tokenizer import Tokenizer
from .compression import HELD_OUT_FRACTION, split_held_out
from .tax import HELD_OUT_LINES, TRAINING_LINES, Cost, cost_of_spans, languages, parallel_text

ALGORITHMS = {
    "bpe": "BPE (this engine)",
    "wordpiece": "WordPiece (Hugging Face)",
    "unigram": "Unigram (Hugging Face)",
}
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


def corpus_parts(corpus_id: str) -> tuple[str, str]:
    """(training text, held-out text) of a corpus from `algorithm_corpora`:
    a sample's last tenth is held out; the parallel corpus holds out the
    same sentences in every language."""
    if corpus_id == ALL_LANGUAGES:
        codes = list(languages())
        return ("".join(parallel_text(code, TRAINING_LINES) for code in codes),
                "".join(parallel_text(code, HELD_OUT_LINES) for code in codes))
    if corpus_id not in algorithm_corpora():
        raise ValueError(f"No bundled corpus {corpus_id!r} to train the three algorithms on.")
    return split_held_out(catalog()[corpus_id].load(), HELD_OUT_FRACTION)


def word_language(corpus_id: str) -> str:
    """The ICU locale words are found with (ICU's dictionaries go by script,
    so mixed text is found right with any)."""
    sample = catalog().get(corpus_id)
    return sample.language if sample is not None and len(sample.language) == 2 else "en"


# ----------------------------------------------------------------- training


RIVALS = {"wordpiece": train_wordpiece, "unigram": train_unigram}  # trained by Hugging Face


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
        n_vocab=tokenizer.n_vocab,
        cost=cost_of_spans(text, spans, language),
        unknown_tokens=len(unknown),
        unknown_chars=sum(len(data[span.start:span.end].decode("utf-8", "replace")) for span in unknown),
        round_trip=tokenizer.decode([span.id for span in spans]) == text,
    )


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
    """A piece one algorithm learned and neither other did, and how often its
    tokenizer used it on the text."""

    token_id: int
    text: bytes  # its surface (see `surface`)
    uses: int


def only_in_each(tokenizers: Mapping[str, Tokenizer | HFTokenizer], text: str) -> dict[str, list[OnlyHere]]:
    """For each algorithm, the pieces (by surface) in its vocabulary and in
    neither other's, the ones its encoding of `text` uses most first (then
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
    """For each algorithm, the share of its pieces (by surface) that both
    others learned too."""
    surfaces = {name: {surface(tok, token_id) for token_id in tok.vocab} - {b""} for name, tok in tokenizers.items()}
    shares = {}
    for name, pieces in surfaces.items():
        others = [other for key, other in surfaces.items() if key != name]
        shares[name] = len(pieces.intersection(*others)) / len(pieces) if pieces else 0.0
    return shares
