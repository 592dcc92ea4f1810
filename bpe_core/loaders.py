"""Load your own: a `.tiktoken` rank file or a byte-level BPE `tokenizer.json`.

Both become an ordinary `Tokenizer`, so an uploaded vocabulary works on
every page like the built-in ones. The engine ranks tokens by id, as
tiktoken does (see `tokenizer`), so what a file must provide is: every
token's bytes, its id, the split pattern and the special tokens.

- A `.tiktoken` file holds only "base64(token) rank" lines (gzip-compressed
  or not); the pattern and special tokens come from the user, as they do
  for `tiktoken.Encoding`. The result encodes exactly like that Encoding.
- A Hugging Face `tokenizer.json` holds its vocabulary as GPT-2's printable
  stand-in characters (see `exports.byte_to_unicode`), its split regex in
  the pre-tokenizer and its special tokens in `added_tokens`.

Anything in a file that the engine cannot reproduce faithfully is refused
with a `TokenizerFileError` saying what and where, rather than loaded into
a tokenizer that quietly gives other ids than its original.
"""

from __future__ import annotations

import base64
import functools
import zlib
from collections.abc import Iterable, Mapping

from .encodings import parse_tiktoken_ranks
from .exports import POSSESSIVE_INTERVAL, byte_to_unicode, oniguruma_pattern
from .patterns import PRESETS, PatternError, compile_pattern
from .serialization import FORMAT, TokenizerFileError, parse_json, tokenizer_from_dict
from .tokenizer import Tokenizer

_GZIP_MAGIC = b"\x1f\x8b"

# ---------------------------------------------------------------- .tiktoken


def tokenizer_from_tiktoken_file(
    data: bytes, pattern: str, name: str, special_tokens: Mapping[str, int] | None = None
) -> Tokenizer:
    """A tokenizer from the contents of a `.tiktoken` rank file.

    `pattern` is a preset name ("cl100k", ...) or a regex: the file does not
    say how text was split, so the user must. The result gives the same ids
    as `tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=<the file>,
    special_tokens=special_tokens)`.
    """
    contents = _decompressed(data)
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
    _check_all_single_bytes(vocab.values())
    return _tokenizer(name, pattern, vocab, special_tokens or {})


MAX_UNPACKED_BYTES = 50_000_000  # o200k's rank file is 3.6 MB unpacked


def _decompressed(data: bytes) -> bytes:
    """The file's text; a gzip-compressed file (the way the bundled ones
    are shipped) is recognised by its first two bytes and unpacked, up to a
    limit: a small upload must not unpack into gigabytes."""
    if not data.startswith(_GZIP_MAGIC):
        return data
    unpacker = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)  # the gzip format
    try:
        contents = unpacker.decompress(data, MAX_UNPACKED_BYTES)
    except zlib.error as error:
        raise TokenizerFileError(f"The file is gzip-compressed but cannot be unpacked: {error}.") from None
    if unpacker.unconsumed_tail:
        raise TokenizerFileError(f"The file unpacks to more than {MAX_UNPACKED_BYTES // 1_000_000} MB; no rank file is that large.")
    if not unpacker.eof:
        raise TokenizerFileError("The file is gzip-compressed but cannot be unpacked: it ends too early.")
    return contents


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
    """Id -> token, refusing negative ranks and a rank given to two tokens
    (tiktoken refuses both too, with a less helpful message)."""
    vocab: dict[int, bytes] = {}
    for token, rank in ranks.items():
        if rank < 0:
            raise TokenizerFileError(f"The token {token!r} has the negative rank {rank}; ranks start at 0.")
        if rank in vocab:
            raise TokenizerFileError(
                f"Rank {rank} is given to two tokens, {vocab[rank]!r} and {token!r}; each rank must name one token."
            )
        vocab[rank] = token
    return vocab


# ---------------------------------------------------------- tokenizer.json


def tokenizer_from_hf_json(text: str | bytes | dict, name: str) -> Tokenizer:
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
    _check_all_single_bytes(vocab.values())
    return _tokenizer(name, pattern, vocab, special_tokens)


def _json_object(text: str | bytes | dict) -> dict:
    document = text if isinstance(text, dict) else parse_json(text, "a tokenizer.json")
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
    strings_by_id: dict[int, str] = {}
    for string, token_id in vocab.items():
        if not string:
            raise TokenizerFileError(
                f"The vocab lists an empty token (id {token_id!r}); every token holds at least one byte."
            )
        if type(token_id) is not int or token_id < 0:
            raise TokenizerFileError(
                f'The vocab gives the token "{string}" the id {token_id!r}; ids are integers from 0.'
            )
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
        if not (
            isinstance(added, dict)
            and isinstance(added.get("content"), str)
            and added["content"]
            and type(added.get("id")) is int
            and added["id"] >= 0
        ):
            raise TokenizerFileError(f'added_tokens[{index}] needs a non-empty "content" and an integer "id" from 0.')
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


# ------------------------------------------------------------------ shared


def _check_all_single_bytes(tokens: Iterable[bytes]) -> None:
    """Every byte must be a token, or some text could not be encoded at all."""
    present = {token[0] for token in tokens if len(token) == 1}
    missing = [byte for byte in range(256) if byte not in present]
    if missing:
        examples = ", ".join(f"0x{byte:02X}" for byte in missing[:8]) + (", ..." if len(missing) > 8 else "")
        raise TokenizerFileError(
            f"The vocabulary lacks {len(missing)} of the 256 single bytes ({examples}); a byte-level "
            "vocabulary needs all of them so that any text can be encoded."
        )


def _tokenizer(name: str, pattern: str, vocab: dict[int, bytes], special_tokens: Mapping[str, int]) -> Tokenizer:
    """The Tokenizer, with its own refusals (a bad pattern, a special id
    that is also an ordinary id) turned into file errors."""
    try:
        return Tokenizer(name=name, pattern=pattern, vocab=vocab, special_tokens=special_tokens)
    except ValueError as error:  # PatternError is a ValueError too
        raise TokenizerFileError(str(error)) from None


def tokenizer_from_file(file_name: str, data: bytes, pattern: str = "cl100k") -> Tokenizer:
    """Any tokenizer file a user may bring, told apart by its content:

    - JSON saved by this playground (`Tokenizer.save`);
    - a Hugging Face byte-level BPE tokenizer.json;
    - a tiktoken rank file, plain or gzip-compressed, split with `pattern`
      (rank files hold no pattern and no special tokens).
    """
    data = _decompressed(data)  # a gzip-compressed file of either kind
    if data.lstrip(b" \t\r\n\xef\xbb\xbf")[:1] in (b"{", b"["):
        document = parse_json(data, f"“{file_name}”")
        if isinstance(document, dict) and document.get("format") == FORMAT:
            return tokenizer_from_dict(document)
        return tokenizer_from_hf_json(document, file_name)
    return tokenizer_from_tiktoken_file(data, pattern, file_name)
