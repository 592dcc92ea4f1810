"""Any Hugging Face model folder's tokenizer, run by Hugging Face's `tokenizers`.

A folder a user brings may hold any kind of tokenizer.json: byte-level BPE,
SentencePiece-style BPE, WordPiece, Unigram, with normalizers and
pre-tokenizers of every sort. This engine reproduces only some of them, so
a folder's tokenizer runs in `tokenizers` itself, the library transformers
runs it in (its ids are transformers', which the tests check), and
`HuggingFaceTokenizer` gives it the interface every page uses. Its chat
template, if it has one, renders as transformers renders it (see
`chat_templates`), in a throwaway process: a folder is a visitor's.

A visitor's tokenizer.json is also code of a sort: regexes that
`tokenizers` compiles and runs in Rust, holding the interpreter lock, where
no deadline reaches. So it is never run in the server's process: it is
loaded, once, in a host process with a memory cap and a limit on processor
time (`sandbox.hosts`), and tried there on awkward text before it is kept
(`sandbox.untrusted_tokenizer`); since no sample shows what every text
costs (`\\s*x|\\S` splits the sample at once and a run of 20,000 spaces in
seconds), every encoding there has a deadline of its own processor time.
The server keeps only what pages read (its pieces, its special tokens).
Files the user trusts (a folder on the command line) load in place, as is;
anything in a capped process (a visitor's job, whose caps bound it) in
place and tried: `LoadedTokenizer`, called directly.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import re
import threading
from collections.abc import Iterable, Sequence

from ..engine.encoding_base import EncodingBase
from ..engine.patterns import PatternError
from ..engine.specials import SpecialChoice
from ..engine.tokenizer import TokenSpan, TokenSpans
from ..engine.utf8 import encodable
from ..formats.hf_folder import ModelFolder
from ..formats.hf_json import byte_to_unicode
from ..formats.reading import TokenizerFileError
from ..sandbox.hosts import HOSTS, HostProblem, HostUnavailable, Recipe
from ..sandbox.untrusted_tokenizer import (
    RefusedTokenizer,
    first_line,
    is_panic,
    refusal,
    remember_refusal,
    tried_tokenizer,
)
from ..sandbox.worker_processes import in_capped_process
from .chat import Template
from .chat_templates import jinja_chat, template_variables

_BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")


def _described(component) -> dict | None:
    """A normalizer, pre-tokenizer or decoder of `tokenizers` as the JSON it is saved as."""
    return None if component is None else json.loads(component.__getstate__())


def _steps(component: object) -> list[dict]:
    """A normalizer, pre-tokenizer or decoder as the list of its steps (a Sequence's, flattened)."""
    if not isinstance(component, dict):
        return []
    for key in ("normalizers", "pretokenizers", "decoders"):
        if isinstance(component.get(key), list):
            return [step for part in component[key] for step in _steps(part)]
    return [component]


class LoadedTokenizer:
    """A tokenizer.json loaded in `tokenizers`: what `HuggingFaceTokenizer`
    asks of the library, in whichever process holds it (the caller's, or a
    host's: see the module's note). A visitor's file (`tried`) is made to
    encode awkward text first (RefusedTokenizer if it cannot)."""

    def __init__(self, tokenizer_json: str, tried: bool = False):
        import tokenizers

        self.hf = tried_tokenizer(tokenizer_json) if tried else tokenizers.Tokenizer.from_str(tokenizer_json)
        self._reading = threading.Lock()  # `encoding` switches how special tokens are read, for one call

    def description(self) -> dict:
        """What the tokenizer is, as `HuggingFaceTokenizer` keeps it: its kind,
        how its pieces spell bytes, its special tokens and every piece."""
        model = self.hf.model
        steps = {part: _steps(_described(getattr(self.hf, part))) for part in ("normalizer", "pre_tokenizer", "decoder")}
        added = self.hf.get_added_tokens_decoder()
        unknown = getattr(model, "unk_token", None)
        return {
            "kind": type(model).__name__,  # BPE, WordPiece, Unigram, WordLevel
            "byte_level": any(step.get("type") == "ByteLevel" for step in steps["pre_tokenizer"] + steps["decoder"]),
            "byte_fallback": bool(getattr(model, "byte_fallback", False)),
            "normalizes": bool(steps["normalizer"]),
            "spaces": {step.get("replacement") or step.get("content") for part in steps.values() for step in part
                      if step.get("type") in ("Metaspace", "Replace")} - {None, " ", ""},
            "prefix": getattr(model, "continuing_subword_prefix", None) or "",
            "special_tokens": {token.content: token_id for token_id, token in added.items() if token.special},
            "pieces": {token_id: piece for piece, token_id in self.hf.get_vocab(with_added_tokens=True).items()},
            "unknown_id": self.hf.token_to_id(unknown) if isinstance(unknown, str) else None,
        }

    def encoding(self, text: str, specials_as_text: bool) -> tuple[list[int], list[tuple[int, int]]]:
        """The ids of `text` and the characters each covers; with
        `specials_as_text`, special-token text is read as text
        (`encode_special_tokens`, set on the one instance for the call: a
        second instance would parse the file again, Gemma 3's in 1.9 s).
        Other added tokens are found always, as Hugging Face finds them."""
        try:
            with self._reading:
                self.hf.encode_special_tokens = specials_as_text
                encoding = self.hf.encode(text, add_special_tokens=False)
        except BaseException as error:  # a Rust panic is a BaseException
            if not is_panic(error):
                raise
            raise PatternError(f"Hugging Face's tokenizers gave up encoding this text ({first_line(error)}): a regex "
                               "of the tokenizer.json backtracks too long on it.") from None
        return encoding.ids, encoding.offsets

    def decode(self, ids: list[int]) -> str:
        return self.hf.decode(ids, skip_special_tokens=False)


# What a visitor's tokenizer may take in its host: to be loaded and tried on
# awkward text (`untrusted_tokenizer`), 30 s of processor time, and 2 GB all
# its life (Gemma 3's 33 MB file loads in about 3 s and takes about 300 MB);
# each encoding, what a view may take (`jobs.budgeted_encoding.VIEW_SECONDS`),
# in the host's own processor time.
LOADING_SECONDS = 30
ENCODING_SECONDS = 3
HOST_MEMORY_BYTES = 2_000_000_000


class HostedTokenizer:
    """A `LoadedTokenizer` in a host process (`sandbox.hosts`): the same
    calls, each within its processor time there. Out of time or memory
    is a PatternError that says so, as a custom split pattern's is."""

    def __init__(self, tokenizer_json: str, fingerprint: str):
        self.recipe = Recipe(fingerprint, LoadedTokenizer, (tokenizer_json, True), LOADING_SECONDS, HOST_MEMORY_BYTES)

    def description(self) -> dict:
        return HOSTS.call(self.recipe, "description", seconds=LOADING_SECONDS)

    def encoding(self, text: str, specials_as_text: bool) -> tuple[list[int], list[tuple[int, int]]]:
        try:
            return HOSTS.call(self.recipe, "encoding", text, specials_as_text, seconds=ENCODING_SECONDS)
        except HostProblem as problem:
            raise PatternError(f"encoding this text with its tokenizer.json in Hugging Face's tokenizers {problem} "
                               "(its regexes run without a deadline of their own, so the server gives them one)"
                               ) from None

    def decode(self, ids: list[int]) -> str:
        try:
            return HOSTS.call(self.recipe, "decode", ids, seconds=ENCODING_SECONDS)
        except HostProblem as problem:
            raise ValueError(f"Decoding these ids with Hugging Face's tokenizers {problem}.") from None


class HuggingFaceTokenizer(EncodingBase):
    """A tokenizer.json run by `tokenizers`, with this engine's interface.
    `pieces[id]` is each token as the file spells it ("Ġthe", "▁the",
    "##ing", "<0xE3>"); `token_bytes(id)` the text it stands for. A
    visitor's (`untrusted`) runs in a host process, unless this is a
    capped process already (see the module's note)."""

    units = "bytes"
    trace = ()
    stop_reason = None
    chat: Template | None = None  # the folder's chat template, if it has one (set by `tokenizer_from_folder`)

    def __init__(self, *, name: str, tokenizer_json: str, untrusted: bool = False):
        self.name, self.tokenizer_json, self.untrusted = name, tokenizer_json, untrusted
        if untrusted and not in_capped_process():
            self._tokenizer = HostedTokenizer(tokenizer_json, self.fingerprint)
        else:
            self._tokenizer = LoadedTokenizer(tokenizer_json, tried=untrusted)
        description = self._tokenizer.description()
        self.kind, self.byte_level = description["kind"], description["byte_level"]
        self.byte_fallback, self.normalizes = description["byte_fallback"], description["normalizes"]
        self._spaces, self._prefix = description["spaces"], description["prefix"]
        self.special_tokens, self.pieces = description["special_tokens"], description["pieces"]
        self.unknown_id = description["unknown_id"]
        self._byte_of_char = {char: byte for byte, char in byte_to_unicode().items()}

    @property
    def n_vocab(self) -> int:
        return max(self.pieces) + 1

    @functools.cached_property
    def fingerprint(self) -> str:
        """A digest of the file, which decides everything this tokenizer does."""
        return hashlib.sha256(self.tokenizer_json.encode("utf-8")).hexdigest()

    @functools.cached_property
    def _special_by_id(self) -> dict[int, str]:
        return {token_id: special for special, token_id in self.special_tokens.items()}

    @functools.cached_property
    def vocab(self) -> dict[int, bytes]:
        """Id -> the bytes it stands for, ordinary tokens only."""
        return {token_id: self._bytes_of(piece) for token_id, piece in self.pieces.items()
                if token_id not in self._special_by_id}

    def _bytes_of(self, piece: str) -> bytes:
        """What a piece stands for: a byte-level piece its bytes, a byte
        piece ("<0xE3>") its byte, a "▁" a space, WordPiece's "##" nothing."""
        if self.byte_fallback and (match := _BYTE_PIECE.fullmatch(piece)):
            return bytes([int(match[1], 16)])
        if self.byte_level and all(char in self._byte_of_char for char in piece):
            return bytes(map(self._byte_of_char.__getitem__, piece))
        if self._prefix and piece.startswith(self._prefix):
            piece = piece[len(self._prefix):]
        for space in self._spaces:
            piece = piece.replace(space, " ")
        return piece.encode("utf-8")

    def token_bytes(self, token_id: int) -> bytes:
        if token_id in self._special_by_id:
            return self._special_by_id[token_id].encode("utf-8")
        token = self.vocab.get(token_id) if isinstance(token_id, int) and not isinstance(token_id, bool) else None
        if token is None:
            raise ValueError(f"{token_id!r} is not a token id of {self.name!r}: ids run from 0 to {self.n_vocab - 1}.")
        return token

    # --------------------------------------------------------------- encoding

    def _encoding(self, text: str, allowed_special: SpecialChoice, disallowed_special: SpecialChoice):
        """(`text` as encoded, its ids, the characters each covers). Special
        tokens are found in any text; where none is allowed, they are read
        as text."""
        text = encodable(text)
        allowed = self.allowed_specials(text, allowed_special, disallowed_special)
        found = allowed or not any(special in text for special in self.special_tokens)
        return (text, *self._tokenizer.encoding(text, specials_as_text=not found))

    def encode(self, text: str, *, allowed_special: SpecialChoice = frozenset(),
               disallowed_special: SpecialChoice = "all") -> list[int]:
        return list(self._encoding(text, allowed_special, disallowed_special)[1])

    def encode_ordinary(self, text: str) -> list[int]:
        return self.encode(text, disallowed_special=())

    def encode_with_offsets(self, text: str, *, allowed_special: SpecialChoice = frozenset(),
                            disallowed_special: SpecialChoice = "all", step: int | None = None) -> Sequence[TokenSpan]:
        """Every token with the UTF-8 bytes of `text` it covers. Byte-level
        BPE that changes nothing first tiles the text with its tokens' bytes;
        otherwise Hugging Face's character offsets say where each token came
        from, byte pieces of one character covering a byte each, and a
        token that repeats what the one before covered (a "▁" put in front)
        covering nothing."""
        if step is not None:
            raise ValueError(f"{self.name} is run by Hugging Face's tokenizers: it has no training steps to replay.")
        text, ids, offsets = self._encoding(text, allowed_special, disallowed_special)
        if self.byte_level and not self.normalizes:
            return TokenSpans(ids, list(itertools.accumulate(len(self.token_bytes(token_id)) for token_id in ids)))
        byte_at = list(itertools.accumulate((len(char.encode("utf-8")) for char in text), initial=0))
        spans, covered = [], 0  # bytes covered so far
        for token_id, (start, end) in zip(ids, offsets):
            start, end = byte_at[start], byte_at[end]
            if self.byte_fallback and _BYTE_PIECE.fullmatch(self.pieces.get(token_id, "")) and covered < end:
                start, end = max(start, covered), max(start, covered) + 1  # one byte of the character
            else:
                start = max(start, covered)
                end = max(start, end)
            spans.append(TokenSpan(token_id, start, end))
            covered = max(covered, end)
        return spans

    # --------------------------------------------------------------- decoding

    def decode(self, tokens: Iterable[int], errors: str = "replace") -> str:
        """Hugging Face's decoder (a WordPiece tokenizer's spaces between words, a "▁" a space)."""
        return self._tokenizer.decode(list(tokens))

    def decode_bytes(self, tokens: Iterable[int]) -> bytes:
        tokens = list(tokens)
        if self.byte_level or self.byte_fallback:
            return b"".join(map(self.token_bytes, tokens))
        return self.decode(tokens).encode("utf-8")

    def _arguments(self) -> dict:
        return {"name": self.name, "tokenizer_json": self.tokenizer_json, "untrusted": self.untrusted}

    def __repr__(self) -> str:
        return f"<HuggingFaceTokenizer {self.name!r}: {self.kind}, {self.n_vocab} ids, {len(self.special_tokens)} special>"


def tokenizer_from_folder(folder: ModelFolder, probe: bool = True) -> HuggingFaceTokenizer:
    """A folder's tokenizer, with its chat template (`chat`, None if it has
    none); with `probe` (a visitor's folder), loaded in a host process once
    it has encoded awkward text there within bounds (see the module's
    note). TokenizerFileError if it cannot be used; a file refused for what
    it did is refused at once if brought again."""
    fingerprint = hashlib.sha256(folder.tokenizer_json.encode("utf-8")).hexdigest()  # as `fingerprint` makes it
    problem = refusal(fingerprint) if probe else None
    if problem is None:
        try:
            tokenizer = HuggingFaceTokenizer(name=folder.name, tokenizer_json=folder.tokenizer_json, untrusted=probe)
            tokenizer.chat = folder_chat(folder)
            return tokenizer
        except HostUnavailable as busy:  # not the file's doing: tried again next time
            problem = f"loading it in Hugging Face's tokenizers {busy}"
        except HostProblem as host_problem:
            problem = remember_refusal(fingerprint, f"loading it and encoding a short text in Hugging Face's "
                                                    f"tokenizers {host_problem}")
        except RefusedTokenizer as refused:
            problem = remember_refusal(fingerprint, str(refused))
        except Exception as error:  # noqa: BLE001 - tokenizers refuses a file with its own exception types
            problem = f"Hugging Face's tokenizers cannot load it ({str(error).splitlines()[0][:300] if str(error) else error!r})"
    raise TokenizerFileError(f"{folder.name}'s tokenizer.json cannot be used: {problem}.")


def folder_chat(folder: ModelFolder) -> Template | None:
    """A folder's chat template, rendered as transformers does (a visitor's: in a throwaway process)."""
    if folder.chat_template is None:
        return None
    return jinja_chat(f"{folder.name} (its own chat template)", folder.chat_template, template_variables(folder.config))
