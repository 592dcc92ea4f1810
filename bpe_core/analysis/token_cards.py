"""What a token's card says about where it came from.

A token view's card shows, for each token, how the tokenizer made it: a
single byte (or character) it started with, or the merge that made it, with
the two tokens merged. For a tokenizer trained here that is its merge step;
for a vocabulary given as ranks (tiktoken's files) it is the rank, and the
two parts are recovered from the ranks (see `Tokenizer.merge_parts`). A
SentencePiece model merges by score instead, a Hugging Face merge list
(Gemma 3) by where a pair is listed, and a WordPiece or Unigram vocabulary
is no merge history at all: their cards say so.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..algorithms.hf_trainers import KINDS, HFTokenizer
from ..engine.tokenizer import Tokenizer
from ..vocabularies.merge_list_bpe import MergeListTokenizer
from ..vocabularies.model_folders import HuggingFaceTokenizer
from ..vocabularies.sentencepiece_model import SentencePieceTokenizer
from .labels import label_text


def token_origins(tokenizer, ids: Iterable[int]) -> dict[int, str]:
    """One line per distinct id: what it is and what it was merged from."""
    return {token_id: token_origin(tokenizer, token_id) for token_id in set(ids)}


def token_origin(tokenizer: Tokenizer | SentencePieceTokenizer | HFTokenizer, token_id: int) -> str:
    if token_id in tokenizer.special_tokens.values():
        return "special token: never merged, never split"
    if token_id == tokenizer.unknown_id:
        return "unknown: stands for any character (or word) the vocabulary lacks"
    if isinstance(tokenizer, SentencePieceTokenizer):
        return _sentencepiece_origin(tokenizer, token_id)
    if isinstance(tokenizer, MergeListTokenizer):
        return _merge_list_origin(tokenizer, token_id)
    if isinstance(tokenizer, HFTokenizer):
        return f"{KINDS[tokenizer.kind]} piece '{tokenizer.pieces[token_id]}'"
    if isinstance(tokenizer, HuggingFaceTokenizer):
        return f"{tokenizer.kind} piece '{tokenizer.pieces[token_id]}' (run by Hugging Face's tokenizers)"
    if token_id < tokenizer.first_merge_id:
        return "a single byte: where byte-level BPE starts" if tokenizer.units == "bytes" else "a single character of the alphabet"
    parts = tokenizer.merge_parts(token_id)
    if tokenizer.trace:
        step = token_id - tokenizer.first_merge_id + 1
        made = f"merge {step:,} of {len(tokenizer.trace):,}"
    else:
        made = f"rank {token_id:,}"
    if parts is None:
        return made
    left, right = parts
    return f"{made}: {_named(tokenizer, left)} + {_named(tokenizer, right)}"


def _sentencepiece_origin(tokenizer: SentencePieceTokenizer, token_id: int) -> str:
    if tokenizer.is_byte_fallback(token_id):
        return "byte fallback: one UTF-8 byte of a character the vocabulary lacks; never merged"
    piece = f"piece '{tokenizer.pieces[token_id]}', score {tokenizer.scores[token_id]:,.1f}"
    parts = tokenizer.merge_parts(token_id)
    return piece if parts is None else f"{piece}: {_named(tokenizer, parts[0])} + {_named(tokenizer, parts[1])}"


def _merge_list_origin(tokenizer: MergeListTokenizer, token_id: int) -> str:
    if tokenizer.is_byte_fallback(token_id):
        return "byte fallback: one UTF-8 byte of a character the vocabulary lacks; never merged"
    piece = f"piece '{tokenizer.pieces[token_id]}'"
    parts = tokenizer.merge_parts(token_id)
    if parts is None:
        return piece
    rank = tokenizer.rank_of_pair(*parts)
    return f"{piece}, first made by merge {rank:,} of the list: {_named(tokenizer, parts[0])} + {_named(tokenizer, parts[1])}"


def _named(tokenizer, token_id: int) -> str:
    return f"'{label_text(tokenizer.token_bytes(token_id))}' ({token_id})"
