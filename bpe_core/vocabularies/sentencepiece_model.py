"""SentencePiece BPE (Mistral's v3 tokenizer) with the `Tokenizer`'s interface.

SentencePiece's BPE differs from tiktoken's in three ways a reader sees:

1. It works on characters, and has no split pattern. A space becomes "▁"
   (U+2581), and one "▁" goes in front of the text, the "dummy prefix", so
   that the first word looks like every other word: "Hello world" is
   "▁Hello▁world", two tokens "▁Hello" and "▁world".
2. Which neighbours merge first is decided by each piece's *score*, not by
   its id: the pair whose piece has the highest score merges (the leftmost
   on a tie), until no neighbouring pair is a piece. Scores mostly follow
   the order training learned the pieces, but not always (Mistral gave its
   whitespace runs "▁▁", "▁▁▁▁" the lowest score of all).
3. A character the vocabulary lacks falls back to its UTF-8 bytes, one
   piece each: "ሰ" becomes "<0xE1>", "<0x88>", "<0xB0>". (User-defined
   symbols such as "[REFERENCE_DOC_1]" are matched whole wherever they
   appear, before any merge.)

Encoding runs in the `sentencepiece` package itself. This module adds what
the playground needs on top: the bytes each token stands for (a "▁" stands
for a space, "<0xE3>" for the byte E3), spans for colouring, and the merge
loop above written out (`merge_symbols`), so that Encode replay can show it;
the tests hold it to the package's own ids.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import re
from collections.abc import Iterable, Sequence

from ..engine.encoding_base import EncodingBase
from ..engine.merge_loop import OnMerge, merge_lowest_rank_first
from ..engine.specials import SpecialChoice, split_on_specials
from ..engine.tokenizer import TokenSpan
from ..engine.utf8 import encodable

SPACE = "\N{LOWER ONE EIGHTH BLOCK}"  # "▁", SentencePiece's stand-in for a space
_BYTE_PIECE = re.compile(r"<0x([0-9A-F]{2})>")


class SentencePieceTokenizer(EncodingBase):
    """A SentencePiece BPE model with the `Tokenizer`'s interface: `encode`,
    `encode_ordinary`, `encode_with_offsets`, `decode`, `decode_bytes`,
    `token_bytes`, `special_tokens`, `vocab`, `n_vocab`, `name`.

    `pieces[id]` and `scores[id]` are SentencePiece's own: the piece as it
    spells it ("▁Hello", "<0xE3>") and its merge score. Control pieces and
    the unknown piece ("<s>", "[INST]", "<unk>") are the special tokens.
    """

    units = "characters"  # what merging starts from
    trace = ()  # no training history: pieces and scores are all the model ships
    stop_reason = None

    def __init__(self, *, name: str, model_proto: bytes):
        import sentencepiece
        from sentencepiece import sentencepiece_model_pb2

        self.name = name
        self._model_proto = model_proto
        self._processor = sentencepiece.SentencePieceProcessor(model_proto=model_proto)
        self.fingerprint = hashlib.sha256(model_proto).hexdigest()
        model = sentencepiece_model_pb2.ModelProto()
        model.ParseFromString(model_proto)
        kinds = model.SentencePiece.Type
        self.pieces = [piece.piece for piece in model.pieces]
        self.scores = [piece.score for piece in model.pieces]
        types = [piece.type for piece in model.pieces]
        self.special_tokens = {
            piece: token_id for token_id, (piece, kind) in enumerate(zip(self.pieces, types))
            if kind in (kinds.CONTROL, kinds.UNKNOWN)
        }
        self.unknown_id = self._processor.unk_id()
        self.byte_pieces = {
            int(_BYTE_PIECE.fullmatch(piece)[1], 16): token_id
            for token_id, (piece, kind) in enumerate(zip(self.pieces, types)) if kind == kinds.BYTE
        }
        self._byte_of = {token_id: byte for byte, token_id in self.byte_pieces.items()}
        # Pieces that merging can make (unused ones are switched off).
        self._mergeable = {
            piece: token_id for token_id, (piece, kind) in enumerate(zip(self.pieces, types))
            if kind in (kinds.NORMAL, kinds.USER_DEFINED)
        }
        user_defined = sorted((piece for piece, kind in zip(self.pieces, types) if kind == kinds.USER_DEFINED),
                              key=lambda piece: (-len(piece), piece))
        self._user_defined = re.compile("|".join(map(re.escape, user_defined))) if user_defined else None
        self.vocab = {
            token_id: self._piece_bytes(token_id) for token_id in range(len(self.pieces))
            if token_id not in self._special_by_id
        }

    # ------------------------------------------------------------------ facts

    @functools.cached_property
    def _special_by_id(self) -> dict[int, str]:
        return {token_id: piece for piece, token_id in self.special_tokens.items()}

    @property
    def n_vocab(self) -> int:
        return len(self.pieces)

    def _piece_bytes(self, token_id: int) -> bytes:
        if token_id in self._byte_of:
            return bytes([self._byte_of[token_id]])
        return self.pieces[token_id].replace(SPACE, " ").encode("utf-8")

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes a token stands for: "▁Hello" is b" Hello", "<0xE3>" is
        b"\\xe3"; a special token, its UTF-8 text. (At the start of a text
        the "▁" is the dummy prefix and stands for nothing: see `decode`.)"""
        token = self.vocab.get(token_id) if isinstance(token_id, int) and not isinstance(token_id, bool) else None
        if token is not None:
            return token
        if token_id in self._special_by_id:
            return self._special_by_id[token_id].encode("utf-8")
        raise ValueError(
            f"{token_id!r} is not a token id of {self.name!r}: ids run from 0 to {self.n_vocab - 1}."
        )

    def is_byte_fallback(self, token_id: int) -> bool:
        return token_id in self._byte_of

    def spelled(self, token_id: int) -> bytes:
        """A token as SentencePiece spells it, for drawing: "▁Hello" keeps
        its "▁"; a byte-fallback piece is its one byte."""
        if token_id in self._byte_of or token_id in self._special_by_id:
            return self.token_bytes(token_id)
        return self.pieces[token_id].encode("utf-8")

    # --------------------------------------------------------------- encoding

    def encode_ordinary(self, text: str, *, reference: bool = False) -> list[int]:
        """SentencePiece's own ids for `text` (special-token text is plain text);
        with `reference`, the same ids from `merge_symbols` written out here."""
        text = encodable(text)
        if reference:
            return self._reference_ids(text)
        return self._processor.encode(text)

    def encode(
        self,
        text: str,
        *,
        allowed_special: SpecialChoice = frozenset(),
        disallowed_special: SpecialChoice = "all",
        reference: bool = False,
    ) -> list[int]:
        """Encode with tiktoken's special-token rules (see `specials`). The
        text between two allowed special tokens is encoded as a text of its
        own, dummy prefix included, as Mistral's prompts are built."""
        return [span.id for span in self._spans(text, allowed_special, disallowed_special, reference)]

    def encode_with_offsets(
        self,
        text: str,
        *,
        allowed_special: SpecialChoice = frozenset(),
        disallowed_special: SpecialChoice = "all",
        step: int | None = None,
        reference: bool = False,
    ) -> list[TokenSpan]:
        """Every token with the UTF-8 bytes of `text` it covers. The dummy
        prefix covers nothing: a lone "▁" token at the start has an empty
        span. Byte-fallback tokens cover one byte each."""
        if step is not None:
            raise ValueError(f"{self.name} ships pieces and scores, not training steps: there is no step to replay.")
        return self._spans(text, allowed_special, disallowed_special, reference)

    def _spans(self, text: str, allowed_special, disallowed_special, reference: bool) -> list[TokenSpan]:
        text = encodable(text)
        allowed = self.allowed_specials(text, allowed_special, disallowed_special)
        spans, offset = [], 0
        for segment, is_special in split_on_specials(text, allowed):
            size = len(segment.encode("utf-8"))
            if is_special:
                spans.append(TokenSpan(self.special_tokens[segment], offset, offset + size))
            else:
                ids = self._reference_ids(segment) if reference else self._processor.encode(segment)
                spans.extend(self._segment_spans(segment, ids, offset))
            offset += size
        return spans

    def _segment_spans(self, segment: str, ids: Sequence[int], offset: int) -> Iterable[TokenSpan]:
        """Spans of one encoded text. SentencePiece's normalizer says where
        each character of its normalized text ("▁Hello▁world") came from in
        the original (a character offset, here made a byte offset); a piece
        covers len(piece) normalized characters, a byte-fallback piece one
        byte of one."""
        normalized, char_origins = self._processor.normalize(segment, with_offsets=True)
        byte_at = list(itertools.accumulate((len(char.encode("utf-8")) for char in segment), initial=0))
        origins = [byte_at[origin] for origin in char_origins]
        position = 0  # in the normalized text
        byte_in_char = 0  # byte-fallback pieces already spent on normalized[position]
        for token_id in ids:
            start = origins[position]
            if token_id in self._byte_of:
                width = len(normalized[position].encode("utf-8"))
                end = origins[position + 1]
                if end - start == width:  # the character is as it was: one byte each
                    start, end = start + byte_in_char, start + byte_in_char + 1
                elif byte_in_char + 1 < width:  # changed by normalization: the last byte covers it
                    end = start
                byte_in_char += 1
                if byte_in_char == width:
                    position, byte_in_char = position + 1, 0
            else:
                position += len(self.pieces[token_id])
                end = origins[position]
            yield TokenSpan(token_id, offset + start, offset + end)

    # ------------------------------------------------------- the merge loop

    def symbols(self, text: str) -> tuple[str, list[tuple[int, int, int]]]:
        """Where merging starts: the normalized text, and its symbols as
        (id, start, end) character spans of it: one per character, a
        user-defined symbol whole, and a character that is no piece as its
        byte-fallback pieces (all spanning that character)."""
        normalized = self._processor.normalize(encodable(text))
        symbols, position = [], 0
        while position < len(normalized):
            match = self._user_defined.match(normalized, position) if self._user_defined else None
            end = match.end() if match else position + 1
            token_id = self._mergeable.get(normalized[position:end])
            if token_id is not None:
                symbols.append((token_id, position, end))
            else:  # no such piece: its bytes
                for byte in normalized[position:end].encode("utf-8"):
                    symbols.append((self.byte_pieces.get(byte, self.unknown_id), position, end))
            position = end
        return normalized, symbols

    def merge_symbols(self, symbol_ids: Sequence[int], on_merge: OnMerge | None = None) -> list[tuple[int, int, int]]:
        """SentencePiece's BPE over symbols (see `symbols`): while two
        neighbours together are a piece, merge the pair whose piece has the
        highest score, the leftmost on a tie. Returns the tokens as (id,
        start, end) spans of symbol indices; `on_merge` hears every merge."""
        pieces, mergeable, byte_of = self.pieces, self._mergeable, self._byte_of

        def made_by(left: int, right: int, start: int, end: int) -> int | None:
            if left in byte_of or right in byte_of or left == self.unknown_id or right == self.unknown_id:
                return None  # a fallback never merges
            return mergeable.get(pieces[left] + pieces[right])

        scores = self.scores
        return merge_lowest_rank_first(symbol_ids, made_by, on_merge, priority=lambda token_id: -scores[token_id])

    def _reference_ids(self, text: str) -> list[int]:
        _, symbols = self.symbols(text)
        return [token_id for token_id, _, _ in self.merge_symbols([token_id for token_id, _, _ in symbols])]

    def merge_parts(self, token_id: int) -> tuple[int, int] | None:
        """The two pieces whose merge makes `token_id`: run the merge loop on
        its characters with only the pieces that merge before it (a higher
        score, or an equal score and a lower id); the two parts left are its
        parts. None for a single character, a byte or a special token."""
        if token_id not in self.vocab or token_id in self._byte_of or len(self.pieces[token_id]) < 2:
            return None
        key = (-self.scores[token_id], token_id)
        ids = [self._mergeable.get(char) for char in self.pieces[token_id]]
        if None in ids:
            return None
        pieces, mergeable, scores = self.pieces, self._mergeable, self.scores

        def made_before(left: int, right: int, start: int, end: int) -> int | None:
            made = mergeable.get(pieces[left] + pieces[right])
            return made if made is not None and (-scores[made], made) < key else None

        parts = merge_lowest_rank_first(ids, made_before, priority=lambda made: (-scores[made], made))
        return (parts[0][0], parts[1][0]) if len(parts) == 2 else None

    # --------------------------------------------------------------- decoding

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The bytes the tokens stand for. The "▁" that a text's dummy prefix
        put in front of it (at the start, and after a special token, where
        `encode` starts a new text) stands for nothing and is dropped, as
        SentencePiece drops it."""
        parts, starts_text = [], True
        for token_id in ids:
            token = self.token_bytes(token_id)
            if token_id in self._special_by_id:
                starts_text = True
            else:
                if starts_text and self.pieces[token_id].startswith(SPACE):
                    token = token[1:]
                starts_text = False
            parts.append(token)
        return b"".join(parts)

    def _arguments(self) -> dict:
        return dict(name=self.name, model_proto=self._model_proto)

    def __repr__(self) -> str:
        return f"<SentencePieceTokenizer {self.name!r}: {self.n_vocab} pieces, {len(self.special_tokens)} special>"
