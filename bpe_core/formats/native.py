"""The playground's own file format: a trained tokenizer as JSON, read back with clear errors.

The file holds what cannot be recomputed, and nothing else: the split
pattern, the merges in order (merge i makes id first_merge_id + i, and its
bytes are its two parts joined), the alphabet for character-level
tokenizers, the special tokens, and the training trace's numbers so the
step-through view can be reopened without the corpus.

    {"format": "bpe-playground-tokenizer", "version": 1, "name": "...",
     "units": "bytes", "pattern": "<regex>", "merges": [[97, 97], ...],
     "special_tokens": {"<|endoftext|>": 1000},
     "training": {"counts": [...], "corpus_tokens": [...], "stop_reason": null}}

Anything unexpected in a file raises `TokenizerFileError` saying what is
wrong, so that an upload of the wrong file is a message, not a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..engine.merge_learning import MergeStep
from ..engine.patterns import PatternError
from ..engine.tokenizer import UNKNOWN_CHARACTER, Tokenizer
from .reading import MAX_VOCABULARY_BYTES, MAX_VOCABULARY_TOKENS, TokenizerFileError, check_special_tokens, parse_json

FORMAT = "bpe-playground-tokenizer"
VERSION = 1


def tokenizer_to_dict(tokenizer: Tokenizer) -> dict:
    """The JSON-ready form of a tokenizer trained here (or loaded from such a file).

    The format stores merges only, so it can only hold a tokenizer whose ids
    are exactly the base units and then merge i at first_merge_id + i; any
    other (a rank file with gaps, tokens no merge builds) is refused rather
    than saved with different ids."""
    merges = tokenizer.merges
    merge_ids = [new_id for _, new_id in merges]
    expected_ids = set(range(tokenizer.first_merge_id + len(merges))) | (
        {tokenizer.unknown_id} if tokenizer.unknown_id is not None else set()
    )
    base_in_order = tokenizer.units == "chars" or all(tokenizer.vocab[byte] == bytes([byte]) for byte in range(256))
    if (
        not base_in_order
        or merge_ids != list(range(tokenizer.first_merge_id, tokenizer.first_merge_id + len(merges)))
        or set(tokenizer.vocab) != expected_ids
    ):
        raise ValueError(
            f"{tokenizer.name!r} is not a merge history in this format's order (its ids are ranks of another "
            "vocabulary); save it with to_tiktoken_file() or to_hf_json() instead."
        )
    data = {
        "format": FORMAT,
        "version": VERSION,
        "name": tokenizer.name,
        "units": tokenizer.units,
        "pattern": tokenizer.pattern,
        "merges": [list(pair) for pair, _ in tokenizer.merges],
        "special_tokens": tokenizer.special_tokens,
    }
    if tokenizer.units == "chars":
        data["alphabet"] = [tokenizer.vocab[i] for i in range(tokenizer.first_merge_id)]
    if tokenizer.trace or tokenizer.stop_reason:
        data["training"] = {
            "counts": [step.count for step in tokenizer.trace],
            "corpus_tokens": [step.corpus_tokens for step in tokenizer.trace],
            "stop_reason": tokenizer.stop_reason,
        }
    return data


def tokenizer_to_json(tokenizer: Tokenizer) -> str:
    return json.dumps(tokenizer_to_dict(tokenizer), ensure_ascii=False)


def save_tokenizer(tokenizer: Tokenizer, path) -> None:
    Path(path).write_text(tokenizer_to_json(tokenizer), encoding="utf-8")


def load_tokenizer(path) -> Tokenizer:
    try:
        text = Path(path).read_bytes()
    except OSError as error:
        raise TokenizerFileError(f"Cannot read {path}: {error.strerror or error}") from None
    return tokenizer_from_json(text)


def tokenizer_from_json(text: str | bytes) -> Tokenizer:
    """Rebuild a tokenizer from the text of a saved file."""
    return tokenizer_from_dict(parse_json(text))


def tokenizer_from_dict(data: object) -> Tokenizer:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        hint = ""
        if isinstance(data, dict) and "model" in data:
            hint = " It looks like a Hugging Face tokenizer.json."
        raise TokenizerFileError(f"Not a BPE playground tokenizer file (no \"format\": \"{FORMAT}\").{hint}")
    version = data.get("version")
    if type(version) is not int or version != VERSION:
        raise TokenizerFileError(f"Unsupported file version {version!r}; this version reads version {VERSION}.")
    units = data.get("units")
    if units not in ("bytes", "chars"):
        raise TokenizerFileError(f'"units" must be "bytes" or "chars", not {units!r}.')

    if units == "bytes":
        vocab: dict[int, bytes | str] = {byte: bytes([byte]) for byte in range(256)}
    else:
        alphabet = data.get("alphabet")
        if not isinstance(alphabet, list) or not all(isinstance(c, str) and len(c) == 1 for c in alphabet):
            raise TokenizerFileError('"alphabet" must be a list of single characters.')
        if len(alphabet) > MAX_VOCABULARY_TOKENS:
            raise TokenizerFileError(
                f'"alphabet" lists {len(alphabet):,} characters; the limit is {MAX_VOCABULARY_TOKENS:,}.'
            )
        if len(set(alphabet)) != len(alphabet):
            raise TokenizerFileError('"alphabet" lists a character twice.')
        vocab = dict(enumerate(alphabet))

    raw_merges = data.get("merges")
    if not isinstance(raw_merges, list):
        raise TokenizerFileError('"merges" must be a list of [left, right] id pairs.')
    _check_size(raw_merges, len(vocab))
    merges = []
    for index, pair in enumerate(raw_merges):
        new_id = len(vocab)
        vocab[new_id] = vocab[pair[0]] + vocab[pair[1]]
        merges.append(((pair[0], pair[1]), new_id))

    unknown_id = None
    if units == "chars":
        unknown_id = len(vocab)
        vocab[unknown_id] = UNKNOWN_CHARACTER

    specials = data.get("special_tokens", {})
    check_special_tokens(specials, '"special_tokens"')

    trace, stop_reason = [], None
    training = data.get("training")
    if training is not None:
        counts, lengths = _training_numbers(training, len(merges))
        trace = [
            MergeStep(pair, new_id, count, vocab[new_id], corpus_tokens)
            for (pair, new_id), count, corpus_tokens in zip(merges, counts, lengths)
        ]
        stop_reason = training.get("stop_reason")
    try:
        return Tokenizer(
            name=str(data.get("name", "loaded tokenizer")),
            pattern=data.get("pattern") if isinstance(data.get("pattern"), str) else "",
            vocab=vocab,
            units=units,
            special_tokens=specials,
            merges=merges,
            trace=trace,
            stop_reason=stop_reason if isinstance(stop_reason, str) else None,
            unknown_id=unknown_id,
        )
    except PatternError as error:
        raise TokenizerFileError(f"The file's split pattern is unusable: {error}") from None
    except ValueError as error:
        raise TokenizerFileError(str(error)) from None


def _check_size(raw_merges: list, base_size: int) -> None:
    """Refuse a merge list whose tokens would not fit in memory, before
    building one. Each merge makes a token of its parts' lengths added up,
    so a chain ([97, 97], [256, 97], [257, 97], ...) makes tokens one byte
    longer each time: 40,000 merges in a 0.4 MB file ask for 800 MB. The
    lengths are added up first, as numbers."""
    if base_size + len(raw_merges) > MAX_VOCABULARY_TOKENS:
        raise TokenizerFileError(
            f"The file lists {len(raw_merges):,} merges; a vocabulary here holds at most {MAX_VOCABULARY_TOKENS:,} tokens."
        )
    lengths = [1] * base_size
    total = base_size
    for index, pair in enumerate(raw_merges):
        if not (isinstance(pair, list) and len(pair) == 2 and all(type(part) is int and 0 <= part < len(lengths) for part in pair)):
            raise TokenizerFileError(f"Merge {index} is not a pair of earlier ids: {pair!r}.")
        length = lengths[pair[0]] + lengths[pair[1]]
        lengths.append(length)
        total += length
        if total > MAX_VOCABULARY_BYTES:
            raise TokenizerFileError(
                f"Its tokens would hold more than {MAX_VOCABULARY_BYTES // 1_000_000} MB of text by merge {index:,} "
                f"(token {len(lengths) - 1:,} alone is {length:,} bytes long): no real vocabulary is that large "
                "(o200k_base's 200,000 tokens hold 1.4 MB)."
            )


def _training_numbers(training: object, merges: int) -> tuple[list[int], list[int]]:
    if not isinstance(training, dict):
        raise TokenizerFileError('"training" must be an object.')
    counts, lengths = training.get("counts"), training.get("corpus_tokens")
    for name, values in (("counts", counts), ("corpus_tokens", lengths)):
        if not isinstance(values, list) or len(values) != merges or not all(type(v) is int and v >= 0 for v in values):
            raise TokenizerFileError(f'"training.{name}" must list one integer per merge, each 0 or more.')
    return counts, lengths
