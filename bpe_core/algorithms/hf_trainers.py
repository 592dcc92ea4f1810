"""Hugging Face `tokenizers`' trainers behind one small interface.

This engine trains BPE itself (`training`); for the algorithms it does not
implement, and for parity-aware BPE, it uses Hugging Face's Rust trainers,
each set up the way it is usually used:

- WordPiece (BERT): words split at whitespace and punctuation (BERT's
  pre-tokenizer), a word's later pieces marked "##", and a word with any
  character the vocabulary lacks becomes "[UNK]" whole. Whitespace is not
  kept.
- Unigram (SentencePiece's other algorithm): a space is "▁" and starts a
  piece (the Metaspace pre-tokenizer); a character the vocabulary lacks is
  "<unk>".
- Byte-level BPE, plain (`BpeTrainer`) or parity-aware
  (`ParityBpeTrainer`, Foroutan et al. 2025: at each step it merges for the
  language that is compressed worst so far, on a parallel dev set), over
  GPT-2's byte-level split, so that only the training objective differs.

`HFTokenizer` gives each the interface the pages use (`encode`,
`encode_with_offsets` with UTF-8 byte spans, `decode`, `token_bytes`,
`special_tokens`, `n_vocab`, `name`) and saves as tokenizer.json.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
from collections.abc import Iterable, Mapping, Sequence

from ..engine.encoding_base import EncodingBase
from ..engine.specials import SpecialChoice
from ..engine.tokenizer import TokenSpan, TokenSpans
from ..engine.utf8 import encodable
from ..formats.hf_json import byte_to_unicode

WORDPIECE_UNKNOWN = "[UNK]"
UNIGRAM_UNKNOWN = "<unk>"
CONTINUATION = "##"  # WordPiece's mark of a piece inside a word
SPACE = "\N{LOWER ONE EIGHTH BLOCK}"  # "▁", Metaspace's space

KINDS = {"wordpiece": "WordPiece", "unigram": "Unigram", "byte_bpe": "byte-level BPE"}


class HFTokenizer(EncodingBase):
    """A trained Hugging Face tokenizer with this engine's interface.

    `kind` is "wordpiece", "unigram" or "byte_bpe"; `pieces[id]` is each
    token as Hugging Face spells it ("##ing", "▁the", "Ġthe"), and
    `token_bytes(id)` the text it stands for ("ing", " the", " the")."""

    def __init__(self, name: str, tokenizer, kind: str):
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}.")
        self.name, self.kind, self.hf = name, kind, tokenizer
        vocab = tokenizer.get_vocab(with_added_tokens=True)
        self.pieces = {token_id: piece for piece, token_id in vocab.items()}
        self.special_tokens = {
            added.content: token_id for token_id, added in tokenizer.get_added_tokens_decoder().items() if added.special
        }
        self.unknown_id = self.special_tokens.get(WORDPIECE_UNKNOWN if kind == "wordpiece" else UNIGRAM_UNKNOWN)

    @property
    def n_vocab(self) -> int:
        return self.hf.get_vocab_size(with_added_tokens=True)

    @functools.cached_property
    def fingerprint(self) -> str:
        return hashlib.sha256(self.to_json().encode("utf-8")).hexdigest()

    @functools.cached_property
    def vocab(self) -> dict[int, bytes]:
        """Id -> the bytes it stands for, ordinary tokens only."""
        return {token_id: self._bytes_of(piece) for token_id, piece in self.pieces.items()
                if token_id not in self.special_tokens.values()}

    def _bytes_of(self, piece: str) -> bytes:
        if self.kind == "byte_bpe":
            return bytes(_BYTE_OF[char] for char in piece)
        if self.kind == "wordpiece":
            return piece.removeprefix(CONTINUATION).encode("utf-8")
        return piece.replace(SPACE, " ").encode("utf-8")

    def token_bytes(self, token_id: int) -> bytes:
        if token_id in self.vocab:
            return self.vocab[token_id]
        if token_id in self.pieces:  # a special token: its text
            return self.pieces[token_id].encode("utf-8")
        raise ValueError(f"{token_id!r} is not a token id of {self.name!r}: ids run from 0 to {self.n_vocab - 1}.")

    # --------------------------------------------------------------- encoding

    def encode(self, text: str, *, allowed_special: SpecialChoice = frozenset(),
               disallowed_special: SpecialChoice = "all") -> list[int]:
        """Token ids. Hugging Face matches its special tokens ("[UNK]") in
        text wherever they appear; tiktoken's rule refuses such text unless
        told otherwise, and that rule is kept."""
        self.allowed_specials(text, allowed_special, disallowed_special)
        return self.hf.encode(encodable(text), add_special_tokens=False).ids

    def encode_ordinary(self, text: str) -> list[int]:
        return self.encode(text, disallowed_special=())

    def encode_with_offsets(self, text: str, *, allowed_special: SpecialChoice = frozenset(),
                            disallowed_special: SpecialChoice = "all", step: int | None = None) -> Sequence[TokenSpan]:
        """Every token with the UTF-8 bytes of `text` it covers. Byte-level
        BPE tiles the text; WordPiece leaves the whitespace it drops
        uncovered, and its "[UNK]" covers the whole word it replaced; the
        "▁" Unigram puts before a text covers nothing (Hugging Face gives it
        the first character, which the next token covers too)."""
        if step is not None:
            raise ValueError(f"{self.name} was trained by Hugging Face: it has no training steps to replay.")
        text = encodable(text)
        self.allowed_specials(text, allowed_special, disallowed_special)
        encoding = self.hf.encode(text, add_special_tokens=False)
        if self.kind == "byte_bpe":  # bytes end to end: a token may hold part of a character
            lengths = (len(self.token_bytes(token_id)) for token_id in encoding.ids)
            return TokenSpans(list(encoding.ids), list(itertools.accumulate(lengths)))
        byte_at = list(itertools.accumulate((len(char.encode("utf-8")) for char in text), initial=0))
        spans, covered = [], 0
        for token_id, (start, end) in zip(encoding.ids, encoding.offsets):
            if self.pieces[token_id] == SPACE and text[start:end] != " ":
                end = start  # the "▁" Metaspace puts before a text: it stands for no text of it
            start = max(start, covered)
            spans.append(TokenSpan(token_id, byte_at[start], byte_at[max(start, end)]))
            covered = max(covered, end)
        return spans

    # --------------------------------------------------------------- decoding

    def decode(self, ids: Iterable[int], errors: str = "replace") -> str:
        """Hugging Face's decoder: WordPiece rejoins pieces with spaces
        between words; Unigram turns "▁" back into spaces."""
        return self.hf.decode(list(ids), skip_special_tokens=False)

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """Byte-level BPE: the tokens' bytes, joined (they may split a
        character); the others: `decode`'s text."""
        if self.kind == "byte_bpe":
            return b"".join(map(self.token_bytes, ids))
        return self.decode(ids).encode("utf-8")

    def _arguments(self) -> dict:
        return dict(name=self.name, tokenizer=self.hf, kind=self.kind)

    def to_json(self) -> str:
        """The tokenizer.json Hugging Face reads back with `Tokenizer.from_str`."""
        return self.hf.to_str()

    def __repr__(self) -> str:
        return f"<HFTokenizer {self.name!r}: {KINDS[self.kind]}, {self.n_vocab} tokens>"


_BYTE_OF = {char: byte for byte, char in byte_to_unicode().items()}


# ------------------------------------------------------------------ training

MAX_VOCAB_SIZE = 1_000_000  # as for this engine's BPE


def _train(tokenizer, lines: Iterable[str], trainer, algorithm: str) -> None:
    """`tokenizer.train_from_iterator`, with Hugging Face's refusals (its
    Rust errors arrive as plain Exception) as a ValueError saying why."""
    try:
        tokenizer.train_from_iterator(lines, trainer)
    except Exception as error:  # noqa: BLE001 - tokenizers raises Exception itself for bad settings
        raise ValueError(f"Hugging Face's {algorithm} trainer refused: {error}.") from None


def _check_size(vocab_size: int) -> None:
    """Refuse a size Hugging Face would take badly (0 gives an empty model,
    a negative one an OverflowError from Rust)."""
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or not 1 <= vocab_size <= MAX_VOCAB_SIZE:
        raise ValueError(f"The vocabulary size must be a whole number from 1 to {MAX_VOCAB_SIZE:,}, not {vocab_size!r}.")


def train_wordpiece(lines: Iterable[str], vocab_size: int, *, show_progress: bool = False) -> HFTokenizer:
    """WordPiece as BERT sets it up (no lower-casing, so that case costs
    the same as in byte-level BPE)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    _check_size(vocab_size)
    tokenizer = Tokenizer(models.WordPiece(unk_token=WORDPIECE_UNKNOWN))
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece(prefix=CONTINUATION)
    trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=[WORDPIECE_UNKNOWN],
                                        continuing_subword_prefix=CONTINUATION, show_progress=show_progress)
    _train(tokenizer, lines, trainer, "WordPiece")
    return HFTokenizer(f"WordPiece ({vocab_size:,})", tokenizer, "wordpiece")


def train_unigram(lines: Iterable[str], vocab_size: int, *, show_progress: bool = False) -> HFTokenizer:
    """Unigram as SentencePiece sets it up: "▁" for a space, starting a piece.
    It may stop below `vocab_size` on a small corpus (its seed vocabulary
    of frequent substrings is smaller than asked for)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    _check_size(vocab_size)
    tokenizer = Tokenizer(models.Unigram())
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Metaspace()
    trainer = trainers.UnigramTrainer(vocab_size=vocab_size, special_tokens=[UNIGRAM_UNKNOWN],
                                      unk_token=UNIGRAM_UNKNOWN, show_progress=show_progress)
    _train(tokenizer, lines, trainer, "Unigram")
    return HFTokenizer(f"Unigram ({vocab_size:,})", tokenizer, "unigram")


def _every_byte_known(tokenizer):
    """The tokenizer with a token for every byte: a trainer starts from the
    bytes its text holds, and Hugging Face drops a byte it has no token
    for (the first byte of an emoji never seen). Byte-level BPE promises
    that no text is lost, so the missing bytes join at the end."""
    import json

    from tokenizers import Tokenizer

    document = json.loads(tokenizer.to_str())
    vocab = document["model"]["vocab"]
    for char in byte_to_unicode().values():
        vocab.setdefault(char, len(vocab))
    return Tokenizer.from_str(json.dumps(document))


def _byte_level_bpe():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    return tokenizer


def train_parity_bpe(
    lines_by_language: Mapping[str, Sequence[str]], dev_by_language: Mapping[str, Sequence[str]],
    num_merges: int, *, min_frequency: int = 2,
) -> HFTokenizer:
    """Parity-aware byte-level BPE: one training stream per language, and
    merges chosen for the language whose parallel dev text is compressed
    worst so far."""
    from tokenizers.trainers import ParityBpeTrainer

    _check_size(num_merges)
    if list(lines_by_language) != list(dev_by_language):
        raise ValueError("Parity-aware training needs a dev text for every training language, in the same order.")
    tokenizer = _byte_level_bpe()
    trainer = ParityBpeTrainer(num_merges=num_merges, min_frequency=min_frequency)
    trainer.train_from_iterator(tokenizer, train_iterators=[list(lines) for lines in lines_by_language.values()],
                                dev_iterators=[list(lines) for lines in dev_by_language.values()])
    tokenizer = _every_byte_known(tokenizer)
    return HFTokenizer(f"parity-aware BPE ({tokenizer.get_vocab_size():,})", tokenizer, "byte_bpe")


def train_byte_bpe(lines: Iterable[str], num_merges: int, *, min_frequency: int = 2) -> HFTokenizer:
    """Plain byte-level BPE by the same library, split and alphabet as
    `train_parity_bpe` (the bytes the text holds, then every other byte)."""
    from tokenizers.trainers import BpeTrainer

    _check_size(num_merges)
    lines = list(lines)
    tokenizer = _byte_level_bpe()
    alphabet = {char for line in lines for piece, _ in tokenizer.pre_tokenizer.pre_tokenize_str(line) for char in piece}
    trainer = BpeTrainer(vocab_size=len(alphabet) + num_merges, min_frequency=min_frequency, show_progress=False)
    tokenizer.train_from_iterator(lines, trainer)
    tokenizer = _every_byte_known(tokenizer)
    return HFTokenizer(f"plain BPE ({tokenizer.get_vocab_size():,})", tokenizer, "byte_bpe")
