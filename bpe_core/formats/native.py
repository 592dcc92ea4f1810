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

A tokenizer trained by one of `bpe_core.algorithms` adds what it was
trained with and what encoding needs beyond the merges:

    "algorithm": "superbpe" | "picky" | "boundless", "settings": {"transition": 8000},
    "removals": [[after merge, token, [parts], IoS, corpus tokens], ...]   (Picky BPE)
    "supermerges": [ids the supermerges made, ...]                        (BoundlessBPE)

Anything unexpected in a file raises `TokenizerFileError` saying what is
wrong, so that an upload of the wrong file is a message, not a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..engine.merge_learning import MergeStep
from ..engine.patterns import PatternError
from ..engine.replay_tokenizer import RemovalStep, ReplayTokenizer
from ..engine.superwords import SuperwordTokenizer
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
    removed = set(tokenizer.removed_tokens) if isinstance(tokenizer, ReplayTokenizer) else set()
    base_in_order = tokenizer.units == "chars" or all(tokenizer.vocab[byte] == bytes([byte]) for byte in range(256))
    if (
        not base_in_order
        or merge_ids != list(range(tokenizer.first_merge_id, tokenizer.first_merge_id + len(merges)))
        or set(tokenizer.vocab) | removed != expected_ids
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
        "merges": [pair for pair, _ in tokenizer.merges],  # tuples: JSON arrays, without a copy of each
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
    if tokenizer.algorithm != "bpe":
        data["algorithm"] = tokenizer.algorithm
        data["settings"] = tokenizer.settings
    if isinstance(tokenizer, ReplayTokenizer):
        data["removals"] = [[step.after, step.token_id, list(step.parts), step.ios, step.corpus_tokens]
                            for step in tokenizer.removals]
    if isinstance(tokenizer, SuperwordTokenizer):
        data["supermerges"] = tokenizer.supermerges
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
    algorithm, settings, extras = _algorithm_of(data, len(vocab) - len(merges) - (unknown_id is not None), len(merges), vocab)
    kind = ReplayTokenizer if "removals" in extras else SuperwordTokenizer if "supermerges" in extras else Tokenizer
    try:
        return kind(
            **extras,
            algorithm=algorithm,
            settings=settings,
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


ALGORITHMS = ("bpe", "superbpe", "picky", "boundless")


def _algorithm_of(data: dict, first_merge_id: int, merges: int, vocab: dict) -> tuple[str, dict, dict]:
    """The algorithm that trained the file's tokenizer, its settings, and
    what its kind of tokenizer takes beyond merges: Picky BPE's removals
    ([after merge, token, parts, IoS, corpus tokens]) or BoundlessBPE's
    supermerges (the ids they made), each checked."""
    algorithm = data.get("algorithm", "bpe")
    if algorithm not in ALGORITHMS:
        raise TokenizerFileError(f'"algorithm" must be one of {", ".join(ALGORITHMS)}, not {algorithm!r}.')
    settings = data.get("settings", {})
    if not isinstance(settings, dict) or not all(
        isinstance(key, str) and type(value) in (int, float) for key, value in settings.items()
    ):
        raise TokenizerFileError('"settings" must map names to numbers.')
    extras: dict = {}
    if "removals" in data:
        extras["removals"] = _removals(data["removals"], first_merge_id, merges, vocab)
    if "supermerges" in data:
        supermerges = data["supermerges"]
        if not isinstance(supermerges, list) or not all(
            type(token_id) is int and first_merge_id <= token_id < len(vocab) for token_id in supermerges
        ) or len(set(supermerges)) != len(supermerges):
            raise TokenizerFileError('"supermerges" must list the ids of distinct merges.')
        extras["supermerges"] = supermerges
    if len(extras) > 1:
        raise TokenizerFileError('A file holds "removals" or "supermerges", not both.')
    return algorithm, settings, extras


def _removals(raw: object, first_merge_id: int, merges: int, vocab: dict) -> list[RemovalStep]:
    if not isinstance(raw, list):
        raise TokenizerFileError('"removals" must be a list.')
    removals, removed, after_last = [], set(), 0
    for index, entry in enumerate(raw):
        if not (isinstance(entry, list) and len(entry) == 5 and type(entry[0]) is int and type(entry[1]) is int
                and isinstance(entry[2], list) and all(type(part) is int for part in entry[2])
                and type(entry[3]) in (int, float) and type(entry[4]) is int):
            raise TokenizerFileError(f"Removal {index} is not [after merge, token, [parts], IoS, corpus tokens]: {entry!r}.")
        after, token_id, parts, ios, corpus_tokens = entry
        if not after_last <= after <= merges or not first_merge_id <= token_id < first_merge_id + after:
            raise TokenizerFileError(f"Removal {index} removes token {token_id} after merge {after}: out of order.")
        if token_id in removed or not all(0 <= part < len(vocab) and part not in removed for part in parts) \
                or vocab[token_id] != type(vocab[token_id])().join(vocab[part] for part in parts):
            raise TokenizerFileError(f"Removal {index}: its parts are not tokens that spell token {token_id}.")
        removals.append(RemovalStep(after, token_id, tuple(parts), float(ios), corpus_tokens))
        removed.add(token_id)
        after_last = after
    return removals
