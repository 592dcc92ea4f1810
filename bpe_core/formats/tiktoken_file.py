"""tiktoken's rank files, read and written, and tiktoken's own `Encoding`.

A `.tiktoken` file is one line per token, "base64(token bytes) rank", and
nothing else: no split pattern, no special tokens. Whoever loads it must
say how text is split, as `tiktoken.Encoding(pat_str=...)` must be told.
OpenAI's vocabularies ship this way (see `vocabularies.openai`), and any byte-level
tokenizer can be written this way, because this engine's encoder is
tiktoken's algorithm: the ranks are all it needs to give the same ids.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping

from ..engine import real_tiktoken
from ..engine.tokenizer import Tokenizer
from .reading import TokenizerFileError, check_all_single_bytes, token_id_from_text, tokenizer_or_file_error, unpacked

# ------------------------------------------------------------------- read


def parse_tiktoken_ranks(contents: bytes) -> dict[bytes, int]:
    """Parse the `.tiktoken` format: one "base64(token) rank" per line."""
    ranks = {}
    for number, line in enumerate(contents.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            token, rank = line.split()
            token = base64.b64decode(token, validate=True)
        except ValueError:
            raise ValueError(f"Line {number} is not 'base64-token rank': {line[:60]!r}") from None
        if rank.startswith(b"-") and rank[1:].isdigit():
            raise ValueError(
                f"Line {number}: the token {token!r} has the negative rank {rank.decode()}; ranks start at 0."
            )
        try:
            ranks[token] = token_id_from_text(rank)
        except ValueError as error:
            raise ValueError(f"Line {number}: {error}") from None
    return ranks


def parse_pinned_ranks(contents: bytes) -> dict[bytes, int]:
    """The ranks of a `.tiktoken` file already known to be well formed
    (its SHA-256 is pinned, see `bundled_files`), read as tiktoken's own
    loader reads them: the same ranks as `parse_tiktoken_ranks`, without
    its line-by-line checks, in about half the time."""
    return {binascii.a2b_base64(token): int(rank) for token, rank in (line.split() for line in contents.splitlines() if line)}


def tokenizer_from_tiktoken_file(
    data: bytes, pattern: str, name: str, special_tokens: Mapping[str, int] | None = None
) -> Tokenizer:
    """A tokenizer from the contents of a `.tiktoken` rank file.

    `pattern` is a preset name ("cl100k", ...) or a regex: the file does not
    say how text was split, so the user must. The result gives the same ids
    as `tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=<the file>,
    special_tokens=special_tokens)`.
    """
    contents = unpacked(data)
    if not contents.strip():
        raise TokenizerFileError("The file is empty: a .tiktoken file has one 'base64-token rank' line per token.")
    if contents.lstrip().startswith(b"{"):
        raise TokenizerFileError(
            "This looks like a JSON file, not a .tiktoken rank file; load a tokenizer.json as a Hugging Face tokenizer."
        )
    try:
        ranks = parse_tiktoken_ranks(contents)
    except ValueError as error:
        raise TokenizerFileError(f"Not a .tiktoken rank file: {error}") from None
    _check_each_token_listed_once(contents, ranks)
    vocab = _vocab_from_ranks(ranks)
    check_all_single_bytes(vocab.values())
    return tokenizer_or_file_error(name, pattern, vocab, special_tokens or {})


def _check_each_token_listed_once(contents: bytes, ranks: dict[bytes, int]) -> None:
    """`parse_tiktoken_ranks` keeps the last rank of a token listed twice
    (as tiktoken does); refuse such a file instead, naming the line."""
    lines = [(number, line) for number, line in enumerate(contents.splitlines(), start=1) if line.strip()]
    if len(lines) == len(ranks):
        return
    seen: set[bytes] = set()
    for number, line in lines:  # every line parsed already, so this decode succeeds
        token = base64.b64decode(line.split()[0])
        if token in seen:
            raise TokenizerFileError(f"Line {number} lists the token {token!r} again; each token must have one rank.")
        seen.add(token)


def _vocab_from_ranks(ranks: dict[bytes, int]) -> dict[int, bytes]:
    """Id -> token, refusing a rank given to two tokens (tiktoken refuses
    it too, with a less helpful message)."""
    vocab: dict[int, bytes] = {}
    for token, rank in ranks.items():
        if rank in vocab:
            raise TokenizerFileError(
                f"Rank {rank} is given to two tokens, {vocab[rank]!r} and {token!r}; each rank must name one token."
            )
        vocab[rank] = token
    return vocab


# ------------------------------------------------------------------ write


def tiktoken_file_text(tokenizer: Tokenizer) -> str:
    """The ranks in tiktoken's file format, one "base64(token) id" per line.

    Like OpenAI's own files it holds no pattern and no special tokens; load
    it with `tiktoken.load.load_tiktoken_bpe` and pass those yourself.
    """
    _require_bytes(tokenizer, "tiktoken")
    ranks = tokenizer.mergeable_ranks
    return "".join(
        f"{base64.b64encode(token).decode('ascii')} {rank}\n"
        for token, rank in sorted(ranks.items(), key=lambda item: item[1])
    )


def to_tiktoken(tokenizer: Tokenizer):
    """A `tiktoken.Encoding` with the same ranks, pattern and special tokens."""
    _require_bytes(tokenizer, "tiktoken")
    try:
        return real_tiktoken.TiktokenEncoding(
            tokenizer.name,
            pat_str=tokenizer.pattern,
            mergeable_ranks=dict(tokenizer.mergeable_ranks),
            special_tokens=tokenizer.special_tokens,
        )
    except ValueError as error:  # tiktoken's Rust regex refused the pattern
        raise ValueError(f"tiktoken cannot use this split pattern: {error}") from None


def _require_bytes(tokenizer: Tokenizer, target: str) -> None:
    if tokenizer.units != "bytes":
        raise ValueError(f"{target} vocabularies are byte-level; this tokenizer was trained on characters.")
