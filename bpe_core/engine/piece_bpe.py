"""BPE for one pre-token piece at a time, over any vocabulary here.

A tokenizer whose split pattern the C encoder does not implement (a custom
one) splits in Python (the very split training used) and hands each new
piece to this: the C encoder's merging (see `c_encoder`) where it is
built, else the merge loop itself (see `merge_loop`), which merges by the
same rule, lowest rank first and leftmost on a tie. So does the
character-level variant.

A character-level vocabulary has no byte ranks, so it is given some, and
its ids are looked up from them: first every unfinished character of the
alphabet (the first two bytes of "あ"), then the characters, then the longer
tokens in the order of their ids. A piece's bytes then always come together
into its characters first (no two characters together form an unfinished
one, and every character ranks below every longer token), and from there
the characters merge as character-level BPE merges them. A character the
vocabulary does not know merges with nothing: it becomes the unknown id,
and the piece is encoded around it.
"""

from __future__ import annotations

from collections.abc import Mapping

from . import c_encoder
from .merge_loop import merge_lowest_rank_first

Token = bytes | str


class PieceBPE:
    """Encode one piece at a time over `ids_by_token` (token -> id)."""

    def __init__(self, ids_by_token: Mapping[Token, int], *, unknown_id: int | None = None):
        characters = any(isinstance(token, str) for token in ids_by_token)
        ranks, self._id_of_rank = character_ranks(ids_by_token) if characters else (ids_by_token, None)
        self._alphabet = {token for token in ids_by_token if len(token) == 1} if characters else None
        self._unknown_id = unknown_id
        self._ranks = ranks
        self._c_encoder = c_encoder.piece_encoder(ranks)

    def _encode(self, piece: str) -> list[int]:
        """The ranks of a piece: tiktoken's shortcut (a piece that is a token
        is that token), else its bytes merged lowest rank first."""
        if self._c_encoder is not None:
            return c_encoder.encode_pieces(self._c_encoder, [piece])
        units, ranks = piece.encode("utf-8"), self._ranks
        whole = ranks.get(units)
        if whole is not None:
            return [whole]
        parts = merge_lowest_rank_first([ranks.get(units[unit:unit + 1]) for unit in range(len(units))],
                                        lambda left, right, start, end: ranks.get(units[start:end]))
        return [rank for rank, _, _ in parts]

    def __call__(self, piece: str) -> list[int]:
        if self._alphabet is None:
            return self._encode(piece)
        ids: list[int] = []
        known_from = 0  # where the current run of known characters starts
        for position, char in enumerate(piece):
            if char not in self._alphabet:
                ids += self._known_run_ids(piece[known_from:position])
                ids.append(self._unknown_id)
                known_from = position + 1
        return ids + self._known_run_ids(piece[known_from:])

    def _known_run_ids(self, run: str) -> list[int]:
        if not run:
            return []
        id_of_rank = self._id_of_rank
        return [id_of_rank[rank] for rank in self._encode(run)]


def character_ranks(ids_by_token: Mapping[str, int]) -> tuple[dict[bytes, int], list[int | None]]:
    """Byte ranks for a character-level vocabulary, and the token id of each
    rank (None for an unfinished character); see the module's note."""
    characters = sorted((token for token in ids_by_token if len(token) == 1), key=ids_by_token.get)
    unfinished = dict.fromkeys(
        encoded[:end] for char in characters for encoded in [char.encode("utf-8")] for end in range(2, len(encoded))
    )
    longer = sorted((token for token in ids_by_token if len(token) > 1), key=ids_by_token.get)
    in_rank_order = [*unfinished, *(token.encode("utf-8") for token in characters + longer)]
    id_of_rank = [None] * len(unfinished) + [ids_by_token[token] for token in characters + longer]
    return {token: rank for rank, token in enumerate(in_rank_order)}, id_of_rank
