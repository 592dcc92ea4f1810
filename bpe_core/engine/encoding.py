"""tiktoken's `Encoding` constructor, over this engine.

`tiktoken.Encoding(name, pat_str=..., mergeable_ranks=..., special_tokens=...)`
is how people build a tokenizer from ranks of their own; the same call here
gives this engine's `Tokenizer` over those ranks, with the same ids.
"""

from __future__ import annotations

from collections.abc import Mapping

from .tokenizer import Tokenizer


class Encoding(Tokenizer):
    """tiktoken's `Encoding`, by its constructor, in this engine: byte-level
    BPE over the ranks given (token bytes -> rank, which is the token's id),
    split by `pat_str`, with `special_tokens` (text -> id). With
    `explicit_n_vocab`, the ranks and special tokens must number exactly
    that many ids, as tiktoken checks."""

    def __init__(
        self,
        name: str,
        *,
        pat_str: str,
        mergeable_ranks: Mapping[bytes, int],
        special_tokens: Mapping[str, int],
        explicit_n_vocab: int | None = None,
    ):
        if explicit_n_vocab is not None:
            ids = len(mergeable_ranks) + len(special_tokens)
            largest = max([*mergeable_ranks.values(), *special_tokens.values()], default=-1)
            if ids != explicit_n_vocab or largest != explicit_n_vocab - 1:
                raise ValueError(
                    f"explicit_n_vocab is {explicit_n_vocab:,}, but the ranks and special tokens hold "
                    f"{ids:,} ids, the largest {largest:,}."
                )
        super().__init__(
            name=name,
            pattern=pat_str,
            vocab={rank: token for token, rank in mergeable_ranks.items()},
            special_tokens=special_tokens,
            ranks=mergeable_ranks if isinstance(mergeable_ranks, dict) else None,  # a bundled file's: shared
        )
        self.explicit_n_vocab = explicit_n_vocab

    # tiktoken's own names for what an Encoding is built from, private there but read by code written for
    # tiktoken: a maker's loader (Meta's, Mistral's) that built its Encoding while bpe_core stood in for tiktoken.
    @property
    def _pat_str(self) -> str:
        return self.pattern

    @property
    def _mergeable_ranks(self) -> dict[bytes, int]:
        return self._ids_by_token

    @property
    def _special_tokens(self) -> dict[str, int]:
        return self.special_tokens

    def _arguments(self) -> dict:
        return dict(
            name=self.name, pat_str=self.pattern, mergeable_ranks=dict(self.mergeable_ranks),
            special_tokens=self.special_tokens, explicit_n_vocab=self.explicit_n_vocab,
        )
