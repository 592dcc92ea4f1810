"""Hugging Face `tokenizer.json`, read and written, with the same ids as tiktoken.

Hugging Face's BPE applies *merges* (pairs of token strings) in list order,
where tiktoken (and this engine) merges any two parts whose bytes form a
token, lowest rank first. The two meet in the middle:

- Writing: every way of splitting a token into two tokens is listed as a
  merge, at that token's rank, and `ignore_merges` gives tiktoken's
  shortcut for a piece that is itself a token (`transformers` converts
  tiktoken vocabularies the same way). Bytes become GPT-2's printable
  stand-in characters, as in every byte-level tokenizer.json.
- Reading: a byte-level BPE file whose ids grow with its merges becomes an
  ordinary `Tokenizer`; anything this engine cannot reproduce faithfully
  is refused with a `TokenizerFileError` saying what and where, rather
  than loaded into a tokenizer that quietly gives other ids.

Duplicate tokens. Two merges can produce the same bytes ("ab"+"c" and
"a"+"bc"). A tokenizer.json maps each byte string to one id, so the export
lists the first id and leaves the later duplicate out, as an unused gap.
"""

from __future__ import annotations

import functools
import json

import regex

from ..engine.patterns import CL100K_PATTERN, PRESETS, PatternError, compile_pattern
from ..engine.tokenizer import Tokenizer
from .native import FORMAT
from .reading import (
    MAX_VOCABULARY_TOKENS,
    TokenizerFileError,
    check_all_single_bytes,
    check_token_id,
    parse_json,
    tokenizer_or_file_error,
)

# Hugging Face compiles patterns with Oniguruma, which reads "{1,3}+" as
# "one or more runs of one to three" instead of tiktoken's possessive
# "{1,3}". At the very end of a top-level alternative nothing can make the
# engine backtrack into the repetition, so the plain greedy form is the same.
ONIGURUMA_EQUIVALENTS = {CL100K_PATTERN: CL100K_PATTERN.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}")}
POSSESSIVE_INTERVAL = regex.compile(r"\{\d+(?:,\d*)?\}\+")


@functools.cache
def byte_to_unicode() -> dict[int, str]:
    """GPT-2's map from each byte to a printable character (space -> "Ġ"),
    so that byte-level tokens can be written as JSON strings."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    mapping, extra = {}, 0
    for byte in range(256):
        if byte in printable:
            mapping[byte] = chr(byte)
        else:
            mapping[byte] = chr(256 + extra)
            extra += 1
    return mapping


def oniguruma_pattern(pattern: str) -> str:
    """`pattern` written so that Hugging Face's regex engine splits the same."""
    pattern = ONIGURUMA_EQUIVALENTS.get(pattern, pattern)
    if POSSESSIVE_INTERVAL.search(pattern):
        raise ValueError(
            "Hugging Face's regex engine reads a possessive repetition such as {1,3}+ "
            "differently from tiktoken; write it as an atomic group, (?>x{1,3})."
        )
    return pattern


# ------------------------------------------------------------------ write


def hf_export_problem(tokenizer: Tokenizer) -> str | None:
    """Why `hf_tokenizer_json` cannot export this tokenizer, or None if it can:
    its split pattern must compile in Hugging Face's regex engine (Oniguruma).

    Compiling is not meaning the same: Oniguruma reads some syntax of Python's
    `regex` as literal text (fuzzy matching such as {e<=1}). The presets are
    tested to split identically; a custom pattern is exact only as far as
    both engines read it alike."""
    from tokenizers import Regex

    try:
        Regex(oniguruma_pattern(tokenizer.pattern))
    except ValueError as error:
        return str(error)
    except Exception as error:  # tokenizers raises its own type for a pattern Oniguruma refuses
        return f"Hugging Face's regex engine cannot compile this split pattern ({error})."
    return None


def hf_tokenizer_json(tokenizer: Tokenizer) -> str:
    """A Hugging Face tokenizer.json (text) that gives the same ids.

    Exact whenever the split pattern covers all text (every preset does):
    Hugging Face keeps text between pattern matches, tiktoken drops it.
    """
    if tokenizer.units == "bytes":
        to_text = lambda token: "".join(byte_to_unicode()[byte] for byte in token)
    else:
        to_text = lambda token: token
    ids_by_token = tokenizer.mergeable_ranks
    vocab = {to_text(token): token_id for token, token_id in ids_by_token.items()}
    merges = []
    for token, token_id in sorted(ids_by_token.items(), key=lambda item: item[1]):
        splits = [
            (token[:cut], token[cut:])
            for cut in range(1, len(token))
            if token[:cut] in ids_by_token and token[cut:] in ids_by_token
        ]
        splits.sort(key=lambda split: (ids_by_token[split[0]], ids_by_token[split[1]]))
        merges.extend([to_text(left), to_text(right)] for left, right in splits)

    model = {
        "type": "BPE",
        "dropout": None,
        "unk_token": None,
        "continuing_subword_prefix": None,
        "end_of_word_suffix": None,
        "fuse_unk": False,
        "byte_fallback": False,
        "ignore_merges": True,
        "vocab": vocab,
        "merges": merges,
    }
    split = {"type": "Split", "pattern": {"Regex": oniguruma_pattern(tokenizer.pattern)}, "behavior": "Isolated", "invert": False}
    if tokenizer.units == "bytes":
        pre_tokenizer = {
            "type": "Sequence",
            "pretokenizers": [
                split,
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
            ],
        }
        decoder = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}
    else:  # the unknown token needs a name no character of the alphabet has
        unknown = next(name for name in ("\N{REPLACEMENT CHARACTER}", "<unk>", "[UNK]", "<|unk|>") if name not in vocab)
        vocab[unknown] = tokenizer.unknown_id
        model["unk_token"] = unknown
        pre_tokenizer = split
        decoder = {"type": "Fuse"}
    added_tokens = [
        {
            "id": token_id,
            "content": special,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
        for special, token_id in sorted(tokenizer.special_tokens.items(), key=lambda item: item[1])
    ]
    document = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added_tokens,
        "normalizer": None,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": decoder,
        "model": model,
    }
    return json.dumps(document, ensure_ascii=False)


# ------------------------------------------------------------------- read


def tokenizer_from_hf_json(text: str | bytes | object, name: str) -> Tokenizer:
    """A tokenizer from a Hugging Face byte-level BPE `tokenizer.json`, such
    as GPT-2's, one trained with the `tokenizers` ByteLevel BPE trainer, or
    one exported by `to_hf_json` (the tests load all three).

    What is read, and what must hold:

    - `model` is BPE; its `vocab` maps byte-level strings to ids.
    - The pre-tokenizer is `ByteLevel(use_regex=true)` alone (GPT-2's split)
      or a `Split` regex followed by `ByteLevel(use_regex=false)`.
    - No normalizer: this engine tokenizes text as typed.
    - Ids grow with the merges. Hugging Face applies the merges in list
      order, this engine the lowest id first (tiktoken's rule); the two
      agree when the list is in id order, so any other file is refused.
    - `added_tokens` marked special become special tokens. Other added
      tokens stay ordinary tokens if the vocab has them, else are left out:
      Hugging Face matches them before BPE, this engine encodes their text
      by BPE like any other.

    One difference stays, by design. With `ignore_merges` false, Hugging
    Face builds every token from the listed merges only, while this engine
    (like tiktoken) merges any two parts whose bytes form a token and takes
    a word that is itself a token whole. For vocabularies trained by BPE
    the two agree (the tests check GPT-2's); a hand-edited merge list may
    not. Post-processing (a BOS token added in front) is not tokenizing
    text and is left out, as tiktoken leaves it out; so is BPE `dropout`,
    which skips merges at random and is meant for training only.
    """
    document = _json_object(text)
    model = _bpe_model(document)
    pattern = _split_pattern(document.get("pre_tokenizer"))
    _check_no_normalizer(document.get("normalizer"))
    ids_by_string = _string_vocab(model)
    _check_merge_order(model.get("merges"), ids_by_string)
    special_tokens = _special_tokens(document.get("added_tokens", []))
    vocab = _ordinary_vocab(ids_by_string, special_tokens)
    check_all_single_bytes(vocab.values())
    return tokenizer_or_file_error(name, pattern, vocab, special_tokens)


def _json_object(text: str | bytes | object) -> dict:
    """The file's JSON object: `text` read, or, when the caller has read
    the file already (see `tokenizer_from_file`), whatever JSON it holds."""
    document = parse_json(text, "a tokenizer.json") if isinstance(text, (str, bytes)) else text
    if not isinstance(document, dict):
        raise TokenizerFileError(
            f"Not a tokenizer.json: the file holds a JSON {type(document).__name__}, not an object."
        )
    if document.get("format") == FORMAT:
        raise TokenizerFileError(
            "This is a tokenizer saved by this playground, not a tokenizer.json; load it as a saved tokenizer."
        )
    return document


def _bpe_model(document: dict) -> dict:
    model = document.get("model")
    if not isinstance(model, dict):
        raise TokenizerFileError('Not a Hugging Face tokenizer.json: it has no "model" object.')
    kind = model.get("type")
    if kind != "BPE":
        described = f"is {kind!r}" if kind is not None else 'has no "type"'
        raise TokenizerFileError(
            f"The model {described}, not 'BPE': only byte-level BPE tokenizer.json files can be loaded "
            "(WordPiece and Unigram tokenize by other rules)."
        )
    for option in ("continuing_subword_prefix", "end_of_word_suffix"):
        if model.get(option):
            raise TokenizerFileError(
                f"The model sets {option} = {model[option]!r}: its tokens mark word positions, "
                "which byte-level BPE (and this engine) does not do."
            )
    return model


def _split_pattern(pre_tokenizer: object) -> str:
    """The split regex (or preset name) that the pre-tokenizer describes."""
    steps = _pre_tokenizer_steps(pre_tokenizer)
    kinds = [step.get("type") for step in steps]
    if kinds == ["ByteLevel"] and _byte_level_uses_regex(steps[0]):
        return "gpt2"  # ByteLevel's built-in regex is GPT-2's
    if kinds == ["Split", "ByteLevel"] and not _byte_level_uses_regex(steps[1]):
        return _split_regex(steps[0])
    raise TokenizerFileError(
        f"The pre_tokenizer is {' + '.join(map(str, kinds)) or 'empty'}; a byte-level BPE tokenizer.json has "
        "ByteLevel alone with use_regex true (GPT-2's split), or a Split regex followed by ByteLevel with "
        "use_regex false."
    )


def _pre_tokenizer_steps(pre_tokenizer: object) -> list[dict]:
    if pre_tokenizer is None:
        raise TokenizerFileError(
            'The tokenizer.json has no "pre_tokenizer"; a byte-level BPE one has a ByteLevel pre-tokenizer.'
        )
    steps = [pre_tokenizer]
    if isinstance(pre_tokenizer, dict) and pre_tokenizer.get("type") == "Sequence":
        steps = pre_tokenizer.get("pretokenizers")
    if not isinstance(steps, list) or not all(isinstance(step, dict) for step in steps):
        raise TokenizerFileError('"pre_tokenizer" must be an object, or a Sequence of objects in "pretokenizers".')
    return steps


def _byte_level_uses_regex(byte_level: dict) -> bool:
    """Whether a ByteLevel step also splits text (with GPT-2's regex);
    refuses the one option that changes the text itself."""
    if byte_level.get("add_prefix_space"):
        raise TokenizerFileError(
            "The ByteLevel pre-tokenizer has add_prefix_space true: it puts a space before the text, "
            "which this engine does not do, so the first word's ids would differ."
        )
    return byte_level.get("use_regex", True)  # Hugging Face's default


def _split_regex(split: dict) -> str:
    """The Split step's regex, checked to split here as it does in Hugging Face."""
    pattern = split.get("pattern")
    source = pattern.get("Regex") if isinstance(pattern, dict) else None
    if not isinstance(source, str):
        raise TokenizerFileError(
            'The Split pre-tokenizer needs a "pattern" {"Regex": "..."}; a literal String split is not supported.'
        )
    if split.get("behavior") != "Isolated" or split.get("invert"):
        raise TokenizerFileError(
            f"The Split pre-tokenizer has behavior {split.get('behavior')!r} and invert {split.get('invert')!r}; "
            "only 'Isolated' without invert keeps every match as its own piece, as tiktoken does."
        )
    if POSSESSIVE_INTERVAL.search(source):
        raise TokenizerFileError(
            "The Split regex repeats an interval possessively, e.g. {1,3}+: Hugging Face reads that as "
            '"one or more runs of one to three", Python as possessive, so the pieces would differ.'
        )
    source = _presets_as_written_for_hugging_face().get(source, source)
    try:
        compile_pattern(source)
    except PatternError as error:
        raise TokenizerFileError(f"The Split regex of the pre_tokenizer is unusable: {error}") from None
    return source


@functools.cache
def _presets_as_written_for_hugging_face() -> dict[str, str]:
    """Preset name by the regex our own export writes for it (GPT-4's is
    rewritten for Oniguruma), so a file we wrote loads with its preset."""
    return {oniguruma_pattern(source): name for name, source in PRESETS.items()}


def _check_no_normalizer(normalizer: object) -> None:
    if normalizer is not None:
        kind = normalizer.get("type") if isinstance(normalizer, dict) else normalizer
        raise TokenizerFileError(
            f"The tokenizer.json has a normalizer ({kind}), which changes text before tokenizing; this engine "
            'tokenizes text as typed, so ids would differ. Set "normalizer" to null to load it anyway.'
        )


def _string_vocab(model: dict) -> dict[str, int]:
    """The model's vocab (byte-level string -> id), each id used once."""
    vocab = model.get("vocab")
    if not isinstance(vocab, dict) or not vocab:
        raise TokenizerFileError('The model has no "vocab" object mapping token strings to ids.')
    if len(vocab) > MAX_VOCABULARY_TOKENS:
        raise TokenizerFileError(f"The vocab lists {len(vocab):,} tokens; a vocabulary here holds at most {MAX_VOCABULARY_TOKENS:,}.")
    strings_by_id: dict[int, str] = {}
    for string, token_id in vocab.items():
        if not string:
            raise TokenizerFileError(
                f"The vocab lists an empty token (id {token_id!r}); every token holds at least one byte."
            )
        check_token_id(token_id, f'The vocab token "{string[:40]}"')
        if token_id in strings_by_id:
            raise TokenizerFileError(
                f'The vocab gives id {token_id} to two tokens, "{strings_by_id[token_id]}" and "{string}".'
            )
        strings_by_id[token_id] = string
    return vocab


def _check_merge_order(merges: object, ids_by_string: dict[str, int]) -> None:
    """Refuse merges that are not in id order (see `tokenizer_from_hf_json`).

    A token can be listed by several merges (our export lists every
    two-part split at the token's id), so ids may repeat but never fall.
    """
    if not isinstance(merges, list):
        raise TokenizerFileError('The model has no "merges" list.')
    previous_id, previous_index = -1, None
    for index, merge in enumerate(merges):
        left, right = _merge_parts(index, merge)
        for part in (left, right, left + right):
            if part not in ids_by_string:
                raise TokenizerFileError(
                    f'merges[{index}] ("{left}" + "{right}") uses "{part}", which is not in the vocab.'
                )
        new_id = ids_by_string[left + right]
        if new_id < previous_id:
            raise TokenizerFileError(
                f'The ids are not in merge order: merges[{index}] ("{left}" + "{right}") makes id {new_id}, '
                f"after merges[{previous_index}] made id {previous_id}. This engine ranks tokens by id, as tiktoken "
                "does, so it can only load a tokenizer.json whose ids grow with its merges."
            )
        previous_id, previous_index = new_id, index


def _merge_parts(index: int, merge: object) -> tuple[str, str]:
    """A merge is "left right" (older files) or ["left", "right"]; byte-level
    strings hold no space (a space is "Ġ"), so the first form is unambiguous."""
    parts = merge.split(" ") if isinstance(merge, str) else merge
    if not (isinstance(parts, list) and len(parts) == 2 and all(isinstance(p, str) and p for p in parts)):
        raise TokenizerFileError(f"merges[{index}] is not a pair of tokens: {merge!r}.")
    return parts[0], parts[1]


def _special_tokens(added_tokens: object) -> dict[str, int]:
    """Special token -> id, from the added tokens marked special."""
    if not isinstance(added_tokens, list):
        raise TokenizerFileError('"added_tokens" must be a list.')
    specials = {}
    for index, added in enumerate(added_tokens):
        if not (isinstance(added, dict) and isinstance(added.get("content"), str) and added["content"]):
            raise TokenizerFileError(f'added_tokens[{index}] needs a non-empty "content" and an "id".')
        check_token_id(added.get("id"), f"added_tokens[{index}]")
        if added.get("special"):
            specials[added["content"]] = added["id"]
    return specials


def _ordinary_vocab(ids_by_string: dict[str, int], special_tokens: dict[str, int]) -> dict[int, bytes]:
    """Id -> bytes of every token that is not special. A special token may
    be in the vocab too (GPT-2 lists <|endoftext|> in both), as itself."""
    strings_by_id = {token_id: string for string, token_id in ids_by_string.items()}
    for special, token_id in special_tokens.items():
        listed = strings_by_id.get(token_id, special)
        if listed != special:
            raise TokenizerFileError(
                f'The special token "{special}" has id {token_id}, which the vocab gives to "{listed}".'
            )
    special_ids = set(special_tokens.values())
    return {
        token_id: _token_bytes(string) for string, token_id in ids_by_string.items() if token_id not in special_ids
    }


@functools.cache
def _unicode_to_byte() -> dict[str, int]:
    return {char: byte for byte, char in byte_to_unicode().items()}


def _token_bytes(string: str) -> bytes:
    """The bytes a byte-level vocab string stands for."""
    table = _unicode_to_byte()
    for char in string:
        if char not in table:
            raise TokenizerFileError(
                f'The vocab token "{string}" contains {char!r} (U+{ord(char):04X}), which is not one of the '
                "256 byte characters of a byte-level vocabulary; is this a SentencePiece or character-level tokenizer?"
            )
    return bytes(table[char] for char in string)
