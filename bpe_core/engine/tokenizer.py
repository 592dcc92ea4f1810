"""The Tokenizer: a BPE vocabulary that encodes and decodes text the tiktoken way.

A tokenizer is three things: a split pattern (see `patterns`), a vocabulary
of tokens (byte strings, or strings in the character-level variant) whose
ids are their merge ranks, and a few special tokens. Encoding splits the
text into pieces, and runs the merge loop (see `merge_loop`) on each piece.

Two ways to encode, on purpose:

- `encode` is tiktoken's algorithm: a piece that is itself a token maps to
  that token, otherwise adjacent parts merge whenever their *bytes* form a
  token, lowest rank first. Ids equal tiktoken's for the same ranks, which
  is what exports and comparisons need.
- `encode_with_offsets(..., step=k)` replays the *learned merges* (pairs of
  ids) up to step k: exactly the state training had reached after k merges,
  which is what the step-through view shows. With all merges it agrees with
  `encode` except in rare cases where a token's bytes can also be formed
  from a pair that training never merged.

Both run in the engine's C encoder (see `c_encoder`) where it is built;
the merge loop here is the readable reference the tests hold it to
(`reference=True`; see "encoding" below).
"""

from __future__ import annotations

import functools
import itertools
import threading
import types
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Literal, NamedTuple

from . import c_encoder, real_tiktoken
from .encoding_base import EncodingBase
from .merge_learning import MergeStep, Pair
from .merge_loop import OnMerge, merge_lowest_rank_first
from .patterns import check_pattern, pattern_name, pattern_source, piece_spans, split_pieces
from .piece_bpe import PieceBPE
from .specials import SpecialChoice, split_on_specials
from .utf8 import encodable

Units = Literal["bytes", "chars"]
Token = bytes | str

# In the character-level variant, a character never seen in training maps to
# this id's token; it decodes to U+FFFD like an undecodable byte does.
UNKNOWN_CHARACTER = "\N{REPLACEMENT CHARACTER}"

_PIECE_CACHE_LIMIT = 200_000  # pieces remembered (a tokenizer may be shared by many sessions) ...
_CACHED_PIECE_CHARS = 256  # ... and only short ones: a long piece (a whitespace run, a whole text) rarely repeats
_STEP_ENCODINGS_KEPT = 8  # encoders of the vocabulary at a step (a slider moves through a few)
# Up to this many characters, a text at a step is encoded by replaying the
# learned merges: building an encoder for a step copies the vocabulary's
# ranks, which a short text never earns back.
_REPLAYED_CHARS = 1_000


class TokenSpan(NamedTuple):
    """A token and the bytes of the UTF-8 text it covers: text.encode()[start:end]."""

    id: int
    start: int
    end: int


class TokenSpans(Sequence[TokenSpan]):
    """Token spans kept as lists, ids and offsets, each `TokenSpan` made only
    when asked for: a page counts every token of a long text but colours only
    the first few thousand. Where the tokens tile the text, as they do under
    every preset pattern, a token starts where the one before ends, and the
    offsets are added up from the tokens' sizes only as far as they are asked
    for (`tiling`); under a pattern that drops text, starts and ends are
    given."""

    __slots__ = ("_ends", "_ids", "_sizes", "_starts")

    def __init__(self, ids: list[int], ends: list[int], starts: list[int] | None = None):
        self._ids, self._ends, self._starts = ids, ends, starts
        self._sizes: Sequence[int] | None = None  # bytes per token id, where ends are still to be added up

    @classmethod
    def tiling(cls, ids: list[int], sizes: Sequence[int]) -> TokenSpans:
        """Spans of tokens laid end to end from offset 0; `sizes[id]` is a
        token's length in bytes."""
        spans = cls(ids, [])
        spans._sizes = sizes
        return spans

    def __len__(self) -> int:
        return len(self._ids)

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1 or start >= stop:
                return [self[position] for position in range(start, stop, step)]
            ends = self._ends_through(stop - 1)
            if self._starts is not None:
                starts = self._starts[start:stop]
            else:
                starts = [ends[start - 1] if start else 0, *ends[start : stop - 1]]
            return list(map(TokenSpan, self._ids[start:stop], starts, ends[start:stop]))
        position = range(len(self._ids))[index]  # negative indices count from the end; IndexError past it
        ends = self._ends_through(position)
        if self._starts is not None:
            start = self._starts[position]
        else:
            start = ends[position - 1] if position else 0  # where the token before ends
        return TokenSpan(self._ids[position], start, ends[position])

    def __iter__(self) -> Iterator[TokenSpan]:
        ends = self._ends_through(len(self._ids) - 1)
        starts = self._starts if self._starts is not None else itertools.chain((0,), ends)
        return map(TokenSpan, self._ids, starts, ends)

    def offsets(self) -> tuple[Sequence[int], list[int]]:
        """(starts, ends): every token's start and end offsets, with no
        `TokenSpan` made, for work over every token of a long text."""
        ends = self._ends_through(len(self._ids) - 1)
        if self._starts is not None:
            return self._starts, ends
        return ([0, *ends[:-1]] if ends else []), ends

    def _ends_through(self, position: int) -> list[int]:
        """The end offsets, added up at least through `position` (at least
        doubling those known, so that reading every span costs linear time).
        A longer list replaces the old one whole: spans that two threads
        read stay consistent."""
        ends = self._ends
        if position >= len(ends) and self._sizes is not None:
            stop = min(len(self._ids), max(position + 1, 2 * len(ends)))
            more = itertools.accumulate(map(self._sizes.__getitem__, self._ids[len(ends) : stop]), initial=ends[-1] if ends else 0)
            next(more)  # the offset it started from
            ends = self._ends = ends + list(more)
        return ends

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    def __repr__(self) -> str:
        return f"TokenSpans({list(self)!r})"


class Tokenizer(EncodingBase):
    """Byte-level (or character-level) BPE with tiktoken's interface (see
    `encoding_base`).

    Attributes: `name`; `pattern` (the split regex); `units` ("bytes" or
    "chars"); `vocab` (id -> token, ordinary tokens only); `special_tokens`
    (string -> id); `merges` (((left, right), new_id) in learned order);
    `trace` (one `MergeStep` per merge, for tokenizers trained here) and
    `stop_reason` (why training stopped early, or None); `algorithm` and
    `settings` (what trained it, see `__init__`). For files and caches: `mergeable_ranks` (token -> id, what tiktoken is built from) and
    `fingerprint` (a digest of all of the above).

    Saving and exporting are functions of `bpe_core.formats`, which build on
    these public facts; the tokenizer knows no file format.
    """

    def __init__(
        self,
        *,
        name: str,
        pattern: str,
        vocab: Mapping[int, Token],
        units: Units = "bytes",
        special_tokens: Mapping[str, int] | None = None,
        merges: Sequence[tuple[Pair, int]] | None = None,
        trace: Sequence[MergeStep] = (),
        stop_reason: str | None = None,
        unknown_id: int | None = None,
        ranks: dict[Token, int] | None = None,
        algorithm: str = "bpe",
        settings: Mapping[str, int | float] | None = None,
    ):
        """`ranks`, when the caller has it (a rank file read: token -> id,
        `vocab` the other way round), becomes the table encoding looks tokens
        up in, instead of a second copy of 100,000s of entries. `algorithm` names what
        trained it ("bpe", or one of `bpe_core.algorithms`: "superbpe",
        "picky", "boundless"), and `settings` what it was trained with
        beyond the vocabulary size (SuperBPE's "transition")."""
        if units not in ("bytes", "chars"):
            raise ValueError(f'units must be "bytes" or "chars", not {units!r}.')
        check_pattern(pattern)  # refuse a broken pattern now, not at first use
        self.name = name
        self.pattern = pattern_source(pattern)
        self.units: Units = units
        self.vocab: dict[int, Token] = dict(vocab)
        self.special_tokens: dict[str, int] = dict(special_tokens or {})
        self.trace: list[MergeStep] = list(trace)
        self.stop_reason = stop_reason
        self.unknown_id = unknown_id
        self.algorithm = algorithm
        self.settings: dict[str, int | float] = dict(settings or {})
        # Ids below this are the base units: the 256 bytes, or the alphabet.
        self.first_merge_id = 256 if units == "bytes" else sum(
            1 for token_id, token in self.vocab.items() if len(token) == 1 and token_id != unknown_id
        )
        # Merges given (learned, or read from a file) are part of the
        # tokenizer; for ranks alone they are recovered on first use.
        self._learned_merges = None if merges is None else list(merges)
        self._merges = self._learned_merges
        self._merge_ids: dict[Pair, int] | None = None
        self._parts_by_id: dict[int, Pair] | None = None
        self._special_by_id = {token_id: special for special, token_id in self.special_tokens.items()}

        # token -> id. Two merges can build the same bytes ("ab"+"c", "a"+"bc");
        # only the first (lowest id) is reachable by encoding, as in tiktoken.
        # Ranks hold each token once, with its one id: they are that table.
        if ranks is not None and unknown_id is None and len(ranks) == len(self.vocab):
            self._ids_by_token: dict[Token, int] = ranks
        else:
            self._ids_by_token = {}
            for token_id in sorted(self.vocab):
                if token_id != unknown_id:
                    self._ids_by_token.setdefault(self.vocab[token_id], token_id)
        if units == "bytes":
            missing = [byte for byte in range(256) if bytes([byte]) not in self._ids_by_token]
            if missing:
                raise ValueError(f"A byte-level vocabulary needs all 256 single bytes; {len(missing)} are missing.")
            self._byte_ids = [self._ids_by_token[bytes([byte])] for byte in range(256)]
        clashes = set(self._special_by_id) & set(self.vocab)
        if clashes:
            raise ValueError(f"Special token ids clash with ordinary token ids: {sorted(clashes)[:5]}.")
        self._cache: dict[str, tuple[int, ...]] = {}
        # Ready to encode once made, as tiktoken's Encoding is (see "encoding" below).
        self._text_encoder = self._c_text_encoder(self._ids_by_token)
        self._pieces_bpe = None if self._text_encoder is not None else PieceBPE(self._ids_by_token, unknown_id=unknown_id)
        self._encoders_by_step: dict[int, object] = {}
        self._token_lengths = self._lengths_of_tokens()
        self._step_lock = threading.Lock()

    # ------------------------------------------------------------------ facts

    @property
    def pattern_name(self) -> str:
        """"none", "gpt2", "cl100k", "o200k", a loaded model's name ("llama3",
        "tekken") or "custom"."""
        return pattern_name(self.pattern)

    @functools.cached_property
    def n_vocab(self) -> int:
        """One more than the largest id, special tokens included (tiktoken's
        n_vocab); counted once, as the vocabulary never changes."""
        return max([*self.vocab, *self._special_by_id], default=-1) + 1

    @property
    def mergeable_ranks(self) -> Mapping[Token, int]:
        """Token -> id for every token encoding can produce (tiktoken's name:
        ids are ranks). Bytes, or strings in the character-level variant; of
        two ids with the same bytes, only the first is here."""
        return types.MappingProxyType(self._ids_by_token)

    @functools.cached_property
    def _ids_by_bytes(self) -> Mapping[bytes, int]:
        """Token bytes -> id (see `EncodingBase`): for a byte-level vocabulary,
        the table encoding already keeps, not a second copy of it."""
        if self.units == "bytes":
            return self._ids_by_token
        return EncodingBase._ids_by_bytes.func(self)

    @functools.cached_property
    def fingerprint(self) -> str:
        """A digest of everything that decides this tokenizer's output: units,
        split pattern, vocabulary, special tokens, learned merges and the
        training numbers. Caches key on it: two tokenizers with the same
        fingerprint show the same everywhere, and a cache never needs to
        hash 200,000 tokens at every rerun."""
        import hashlib  # not at the top: OpenSSL takes 4 MB, which training from the command line never needs

        digest = hashlib.sha256()
        trained_by = (self.algorithm, repr(sorted(self.settings.items())))
        if trained_by == ("bpe", "[]"):  # plain BPE keeps the digests that shipped data is keyed by
            trained_by = ()
        for part in (self.units, self.pattern, repr(sorted(self.special_tokens.items())), repr(self.unknown_id), *trained_by):
            digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
        for token_id in sorted(self.vocab):
            token = self.vocab[token_id]
            digest.update(b"%d:%s\0" % (token_id, token if isinstance(token, bytes) else token.encode("utf-8", "surrogatepass")))
        if self._learned_merges is not None:
            digest.update(repr(self._learned_merges).encode("ascii"))
        digest.update(repr([(step.count, step.corpus_tokens) for step in self.trace]).encode("ascii"))
        return digest.hexdigest()

    @property
    def merges(self) -> list[tuple[Pair, int]]:
        """The merges in rank order; for ranks alone, recovered from them (all
        of them: seconds for 200,000 tokens, so `merge_parts` asks for one)."""
        if self._merges is None:
            self._merges = self._recover_merges()
        return self._merges

    @property
    def merges_recorded(self) -> bool:
        """Whether the merges were given (learned, or read from a file), so
        `merges` costs nothing; False for ranks alone, whose merges `merges`
        recovers (seconds) and `merge_parts` recovers one at a time."""
        return self._learned_merges is not None

    def clear_cache(self) -> None:
        """Forget the pieces encoded so far (the next encode starts cold)."""
        self._cache.clear()

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes a token stands for (special tokens: their UTF-8 text)."""
        token = self.vocab.get(token_id)
        if token is None:
            special = self._special_by_id.get(token_id)
            if special is None:
                raise ValueError(self._unknown_id_message(token_id))
            return special.encode("utf-8")
        return token if isinstance(token, bytes) else token.encode("utf-8")

    def _unknown_id_message(self, token_id: object) -> str:
        return (
            f"{token_id!r} is not a token id of {self.name!r}: ids run from 0 to "
            f"{self.n_vocab - 1}."
        )

    # --------------------------------------------------------------- encoding
    #
    # Two engines give the same ids. The readable one is this module's own:
    # split the text with the pattern, then run the merge loop on each piece
    # (`merge_piece`); pass `reference=True` for it. The fast one is the
    # engine's C encoder (see `c_encoder`) over this tokenizer's own ranks.
    # For a byte-level tokenizer whose split pattern it implements (every
    # preset, and the zoo's models' patterns) it takes whole texts
    # (`_text_encoder`). Any other pattern (a custom regex, SuperBPE's) is
    # Python `regex` syntax: the text is split here and each new piece goes
    # to C (`_pieces_bpe`, which also serves the character-level variant;
    # see `piece_bpe`). Where the C encoder is not built, both of these are
    # the readable engine's merge loop, remembered per piece. The tests hold
    # the engines equal on awkward text; Encode replay shows the readable
    # one's steps.

    def encode(
        self,
        text: str,
        *,
        allowed_special: SpecialChoice = frozenset(),
        disallowed_special: SpecialChoice = "all",
        reference: bool = False,
    ) -> list[int]:
        """Encode like tiktoken, special-token rules included (see `specials`)."""
        allowed = self.allowed_specials(text, allowed_special, disallowed_special)
        text_encoder = self._whole_text_engine(None, reference)
        if text_encoder is not None:
            return c_encoder.encode(text_encoder, text, allowed)
        return self._encode_here(encodable(text), allowed, self._piece_encoder(None, reference))

    def encode_ordinary(self, text: str, *, reference: bool = False) -> list[int]:
        """Encode, treating special-token strings as ordinary text."""
        text_encoder = self._whole_text_engine(None, reference)
        if text_encoder is not None:
            return c_encoder.encode(text_encoder, text)
        return self._encode_here(encodable(text), frozenset(), self._piece_encoder(None, reference))

    def _encode_here(self, text: str, allowed: frozenset[str], piece_ids, step: int | None = None) -> list[int]:
        """Split here (at special tokens, then with the pattern), and encode
        the pieces with `piece_ids` (see `_piece_encoder`, `_pieces_ids`)."""
        ids: list[int] = []
        for segment, is_special in split_on_specials(text, allowed):
            if is_special:
                ids.append(self.special_tokens[segment])
            else:
                ids += self._pieces_ids(split_pieces(segment, self.pattern), piece_ids, step)
        return ids

    def _pieces_ids(self, pieces: list[str], piece_ids, step: int | None) -> list[int]:
        """The ids of a segment's consecutive pieces (at `step`): each distinct
        piece encoded once, since a text repeats most of its pieces, and
        looking them up in C costs less than a call in Python each. (A
        tokenizer whose tokens may join pieces, `superwords`, changes this.)"""
        ids_of_piece = {piece: piece_ids(piece) for piece in dict.fromkeys(pieces)}
        return list(itertools.chain.from_iterable(map(ids_of_piece.__getitem__, pieces)))

    def _piece_encoder(self, step: int | None, reference: bool):
        """What encodes one piece: a new piece in C and a known one from the
        cache; or the merge loop, for the reference; at a step, C over that
        step's ranks or the replay of the learned pairs, remembered for one
        call (the tokenizer's cache holds full encodings)."""
        if step is None:
            return self._reference_piece_ids if reference else self._piece_ids
        pieces_bpe = None if reference else self._encoder_at_step(step)
        return functools.cache(pieces_bpe or functools.partial(self.piece_at_step, step=step))

    def _c_text_encoder(self, ranks: Mapping[bytes, int]):
        """The C encoder of whole texts over `ranks`, or None where the text
        is split here (see the note above)."""
        if self.units != "bytes":
            return None
        return c_encoder.text_encoder(ranks, self.pattern, self.special_tokens)

    def _encoder_at_step(self, step: int):
        """The encoder over the first `step` merges' ranks, of the same kind
        as this tokenizer's own (for whole texts, or for pieces), or None.

        The fast engines merge any two parts whose bytes form a token of the
        lowest rank; replaying training merges exactly the learned pairs.
        For a vocabulary that BPE trained (each token made once) the two
        give the same ids after every step: that is why `encode_at_step` may
        take the fast road, and the tests hold it to the replay
        (`reference=True`) on many corpora, patterns and steps. A vocabulary
        with a token made twice takes the replay."""
        if len(self._ids_by_token) != len(self.vocab) - (self.unknown_id is not None):
            return None
        with self._step_lock:  # sessions share a tokenizer
            encoder = self._encoders_by_step.pop(step, None)
            if encoder is None:
                limit = self.first_merge_id + step
                ranks = {token: rank for token, rank in self._ids_by_token.items() if rank < limit}
                if self._text_encoder is not None:
                    encoder = self._c_text_encoder(ranks)
                else:
                    encoder = PieceBPE(ranks, unknown_id=self.unknown_id)
            self._encoders_by_step[step] = encoder  # the most recently used last
            while len(self._encoders_by_step) > _STEP_ENCODINGS_KEPT:
                del self._encoders_by_step[next(iter(self._encoders_by_step))]
        return encoder

    def _lengths_of_tokens(self) -> list[int]:
        """UTF-8 bytes per token id, special tokens included (0 for an id that
        is no token, and for the unknown character, which stands for any one):
        tokens laid end to end give their offsets in the text."""
        lengths = [0] * self.n_vocab
        for token_id, token in self.vocab.items():
            lengths[token_id] = len(token) if isinstance(token, bytes) else len(token.encode("utf-8"))
        for special, token_id in self.special_tokens.items():
            lengths[token_id] = len(special.encode("utf-8"))
        if self.unknown_id is not None:
            lengths[self.unknown_id] = 0
        return lengths

    def encode_at_step(
        self,
        text: str,
        step: int,
        *,
        allowed_special: SpecialChoice = frozenset(),
        disallowed_special: SpecialChoice = "all",
        reference: bool = False,
    ) -> list[int]:
        """Encode with only the first `step` merges, exactly as training had it
        (special tokens follow `encode`'s rules)."""
        self.check_step(step)
        allowed = self.allowed_specials(text, allowed_special, disallowed_special)
        text = encodable(text)
        reference = reference or self._replays(text, step)
        text_encoder = self._whole_text_engine(step, reference)
        if text_encoder is not None:
            return c_encoder.encode(text_encoder, text, allowed)
        return self._encode_here(text, allowed, self._piece_encoder(step, reference), step)

    def encode_with_offsets(
        self,
        text: str,
        *,
        allowed_special: SpecialChoice = frozenset(),
        disallowed_special: SpecialChoice = "all",
        step: int | None = None,
        reference: bool = False,
    ) -> Sequence[TokenSpan]:
        """Every token with the UTF-8 byte span it covers, for colouring text.

        Spans are byte offsets because a token may hold part of a character
        (one byte of "é"); text the split pattern drops gets no span. With
        `step`, only the first `step` merges apply (training's own state).
        """
        text = encodable(text)
        allowed = self.allowed_specials(text, allowed_special, disallowed_special)
        if step is not None:
            self.check_step(step)
        reference = reference or self._replays(text, step)
        text_encoder = self._whole_text_engine(step, reference)
        if text_encoder is not None:  # a preset pattern drops no text: the tokens tile it
            return TokenSpans.tiling(c_encoder.encode(text_encoder, text, allowed), self._token_lengths)
        piece_ids = self._piece_encoder(step, reference)
        segments = split_on_specials(text, allowed)
        return self._tiling_spans(segments, piece_ids, step) or self._spans_piece_by_piece(segments, piece_ids)

    def _replays(self, text: str, step: int | None) -> bool:
        """Whether `text` at `step` is encoded by replaying the learned merges
        (the reference, which gives the same ids) rather than by an encoder
        built for that step: so for a short text (see _REPLAYED_CHARS).
        Stepping through training redraws a short try-it text at every step."""
        return step is not None and self._learned_merges is not None and len(text) <= _REPLAYED_CHARS

    def _whole_text_engine(self, step: int | None, reference: bool):
        """The C encoder of whole texts (at `step`), or None where the text
        is split here (a custom pattern, characters, the reference, or no C
        encoder built)."""
        if reference or self._text_encoder is None:
            return None
        return self._text_encoder if step is None else self._encoder_at_step(step)


    def _tiling_spans(self, segments: list[tuple[str, bool]], piece_ids, step: int | None = None) -> TokenSpans | None:
        """The spans, when the pieces tile the text (as under every preset);
        else None."""
        ids: list[int] = []
        tokens_of: list[list[int]] = []  # each segment's
        for segment, is_special in segments:
            if is_special:
                tokens_of.append([self.special_tokens[segment]])
            else:
                pieces = split_pieces(segment, self.pattern)
                if sum(map(len, pieces)) != len(segment):  # the pattern dropped some text
                    return None
                tokens_of.append(self._pieces_ids(pieces, piece_ids, step))
            ids += tokens_of[-1]
        if self.unknown_id is None or self.unknown_id not in ids:
            return TokenSpans.tiling(ids, self._token_lengths)
        sizes: list[int] = []  # the unknown id stands for one character of any size: sizes from the text
        for (segment, is_special), segment_ids in zip(segments, tokens_of):
            sizes += [len(segment.encode("utf-8"))] if is_special else self._character_token_sizes(segment, segment_ids)
        return TokenSpans(ids, list(itertools.accumulate(sizes)))

    def _spans_piece_by_piece(self, segments: list[tuple[str, bool]], piece_ids) -> TokenSpans:
        """The spans, piece by piece: text the pattern dropped gets no token."""
        ids: list[int] = []
        starts: list[int] = []
        ends: list[int] = []
        lengths = self._token_lengths
        offset = 0  # byte offset in the whole text
        for segment, is_special in segments:
            if is_special:
                ids.append(self.special_tokens[segment])
                starts.append(offset)
                offset += len(segment.encode())
                ends.append(offset)
                continue
            position = 0  # character position in the segment
            for start, end in piece_spans(segment, self.pattern):
                offset += len(segment[position:start].encode())  # text the pattern dropped
                piece = segment[start:end]
                piece_token_ids = piece_ids(piece)
                if self.unknown_id in piece_token_ids:
                    sizes = self._character_token_sizes(piece, piece_token_ids)
                else:
                    sizes = [lengths[token_id] for token_id in piece_token_ids]
                edges = list(itertools.accumulate(sizes, initial=offset))
                ids += piece_token_ids
                starts += edges[:-1]
                ends += edges[1:]
                offset = edges[-1]
                position = end
            offset += len(segment[position:].encode())
        return TokenSpans(ids, ends, starts)

    def _character_token_sizes(self, text: str, token_ids: Sequence[int]) -> list[int]:
        """UTF-8 bytes of each of the tokens that tile `text`, in the
        character-level variant (the unknown id stands for one character of
        any size)."""
        sizes, unit = [], 0
        for token_id in token_ids:
            length = 1 if token_id == self.unknown_id else len(self.vocab[token_id])
            sizes.append(len(text[unit : unit + length].encode("utf-8")))
            unit += length
        return sizes

    def _piece_ids(self, piece: str) -> tuple[int, ...]:
        piece_ids = self._cache.get(piece)
        return self._encode_new_piece(piece) if piece_ids is None else piece_ids

    def _reference_piece_ids(self, piece: str) -> tuple[int, ...]:
        """The readable engine on one piece: tiktoken's whole-piece shortcut,
        else the merge loop (no cache, so nothing the fast engine did is read)."""
        whole = self._ids_by_token.get(self.units_of(piece))
        if whole is not None:
            return (whole,)
        return tuple(token_id for token_id, _, _ in self.merge_piece(piece))

    def units_of(self, piece: str) -> Token:
        """What BPE starts a piece from: its UTF-8 bytes, or its characters."""
        return piece.encode("utf-8") if self.units == "bytes" else piece

    def unit_ids(self, units: Token) -> list[int]:
        """The ids of single units (`units_of` a piece), before any merge;
        in the character variant, an unseen character is the unknown id."""
        if self.units == "bytes":
            return [self._byte_ids[byte] for byte in units]
        return [self._ids_by_token.get(char, self.unknown_id) for char in units]

    def merge_piece(self, piece: str, on_merge: OnMerge | None = None) -> list[tuple[int, int, int]]:
        """BPE on one pre-token piece by tiktoken's rule (two adjacent parts
        merge when their bytes form a token), without the cache and without
        the whole-piece shortcut: its tokens as (id, start, end) unit spans.
        `on_merge` hears every merge, for replaying it (see `merge_loop`)."""
        units = self.units_of(piece)
        ids_by_token = self._ids_by_token
        return merge_lowest_rank_first(
            self.unit_ids(units), lambda left, right, start, end: ids_by_token.get(units[start:end]), on_merge
        )

    def _encode_new_piece(self, piece: str) -> tuple[int, ...]:
        piece_ids = tuple(self._pieces_bpe(piece))
        if len(piece) <= _CACHED_PIECE_CHARS:
            if len(self._cache) >= _PIECE_CACHE_LIMIT:
                self._cache.clear()
            self._cache[piece] = piece_ids
        return piece_ids

    def check_step(self, step: int) -> None:
        """Refuse a step that cannot be replayed: it must be a number of
        merges, and the ids a merge order (base units first, as training
        numbers them)."""
        if isinstance(step, bool) or not isinstance(step, int) or step < 0:
            raise ValueError(f"A step is a number of merges, 0 or more; got {step!r}.")
        if self.units == "bytes" and sorted(self._byte_ids) != list(range(256)):
            raise ValueError(
                f"{self.name!r} does not give its single bytes the ids 0-255, so its ids are not a merge order to replay."
            )

    def piece_at_step(self, piece: str, step: int) -> tuple[int, ...]:
        """One pre-token piece encoded with only the first `step` learned
        merges (pairs of ids), exactly as training had it then; call
        `check_step` first."""
        if self._merge_ids is None:
            self._merge_ids = {pair: new_id for pair, new_id in self.merges}
        merge_ids, limit = self._merge_ids, self.first_merge_id + step

        def rank_of(left: int, right: int, start: int, end: int) -> int | None:
            new_id = merge_ids.get((left, right))
            return new_id if new_id is not None and new_id < limit else None

        parts = merge_lowest_rank_first(self.unit_ids(self.units_of(piece)), rank_of)
        return tuple(token_id for token_id, _, _ in parts)

    def merge_parts(self, token_id: int) -> Pair | None:
        """The two tokens whose merge made `token_id`, or None when no merge
        did (a base unit, a special token, ranks that are no merge history).

        Learned merges say it directly. Ranks alone (tiktoken files store no
        merges) tell it too: encode the token's bytes with the lower ranks
        only, and what is left is the two parts it was merged from."""
        if self._learned_merges is not None:
            if self._parts_by_id is None:
                self._parts_by_id = {new_id: pair for pair, new_id in self._learned_merges}
            return self._parts_by_id.get(token_id)
        units = self.vocab.get(token_id)
        if units is None or len(units) < 2 or self._ids_by_token.get(units) != token_id:
            return None
        ids_by_token = self._ids_by_token

        def rank_of(left: int, right: int, start: int, end: int) -> int | None:
            rank = ids_by_token.get(units[start:end])
            return rank if rank is not None and rank < token_id else None

        parts = merge_lowest_rank_first(self.unit_ids(units), rank_of)
        return (parts[0][0], parts[1][0]) if len(parts) == 2 else None

    def _recover_merges(self) -> list[tuple[Pair, int]]:
        """Every merge, from the ranks (see `merge_parts`), in rank order."""
        merges = []
        for token_id in sorted(self._ids_by_token.values()):
            pair = self.merge_parts(token_id)
            if pair is not None:
                merges.append((pair, token_id))
        return merges

    # --------------------------------------------------------------- decoding

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The bytes the tokens stand for, concatenated."""
        return b"".join(self.token_bytes(_as_token_id(token_id, self)) for token_id in ids)

    # --------------------------------------------------- tiktoken's extras

    def encode_with_unstable(
        self, text: str, *, allowed_special: SpecialChoice = frozenset(), disallowed_special: SpecialChoice = "all"
    ) -> tuple[list[int], list[list[int]]]:
        """tiktoken's `encode_with_unstable`: the tokens of `text` that more
        text cannot change, and every token sequence that may follow them
        once the text goes on. It is tiktoken's own algorithm, so tiktoken
        computes it (`real_tiktoken`), not the C encoder: for byte-level
        tokenizers with a preset or model's split pattern, which tiktoken's
        regex engine reads as `regex` does (a custom one it might not)."""
        allowed = self.allowed_specials(text, allowed_special, disallowed_special)
        if self.units != "bytes" or self.pattern_name == "custom":
            raise NotImplementedError(
                f"encode_with_unstable needs a byte-level tokenizer with a preset split pattern; {self.name!r} "
                f"is {self.units}-level with the {self.pattern_name} pattern."
            )
        return self._tiktoken_encoding.encode_with_unstable(encodable(text), allowed_special=allowed,
                                                            disallowed_special=())

    @functools.cached_property
    def _tiktoken_encoding(self):
        """tiktoken's `Encoding` over these ranks, made on first use: only
        `encode_with_unstable` needs it."""
        return real_tiktoken.TiktokenEncoding(self.name, pat_str=self.pattern, mergeable_ranks=self._ids_by_token,
                                              special_tokens=self.special_tokens)

    def _arguments(self) -> dict:
        return {
            "name": self.name, "pattern": self.pattern, "vocab": self.vocab, "units": self.units,
            "special_tokens": self.special_tokens, "merges": self._learned_merges, "trace": self.trace,
            "stop_reason": self.stop_reason, "unknown_id": self.unknown_id, "algorithm": self.algorithm,
            "settings": self.settings,
        }

    def __reduce__(self) -> tuple:
        """Pickled as its constructor's arguments (see `EncodingBase`), the
        trace as five columns: a tokenizer trained for a visitor comes back
        pickled from its worker process, and 10,000 steps pickled one by one
        took three times as long as the rest of it (24 ms of 31)."""
        if self.loaded_by is not None or not self.trace:
            return super().__reduce__()
        arguments = self._arguments()
        return _made_with_trace, (type(self), arguments, tuple(zip(*arguments.pop("trace"))))

    def __repr__(self) -> str:
        return (
            f"<Tokenizer {self.name!r}: {len(self.vocab)} tokens, {self.units}, "
            f"pattern {self.pattern_name}, {len(self.special_tokens)} special>"
        )


def _made_with_trace(kind: type, arguments: dict, trace_columns: tuple) -> Tokenizer:
    """A pickled tokenizer with a trace, made again (see `Tokenizer.__reduce__`)."""
    return kind(**arguments, trace=list(map(MergeStep, *trace_columns)))


def _as_token_id(token_id: object, tokenizer: Tokenizer) -> int:
    """`token_id`, if it is a whole number (`token_bytes` says whether it
    is one of `tokenizer`'s); anything else (a string, a float, True) is a
    TypeError, as tiktoken's decode makes it."""
    if isinstance(token_id, bool) or not isinstance(token_id, int):
        raise TypeError(tokenizer._unknown_id_message(token_id))
    return token_id
