"""One interface for every kind of tokenizer: tiktoken's, plus what views need.

People who use the engine from a notebook or a script reach for tiktoken's
`Encoding` (`import bpe_core as tiktoken` works). Three kinds of tokenizer
live here: byte-level BPE (`Tokenizer`: trained here, OpenAI's, Llama's),
SentencePiece (`SentencePieceTokenizer`) and Hugging Face's trained models
(`HFTokenizer`). Each provides a few primitives, and this base class gives
all of tiktoken's surface from them, written once:

- what each kind provides: `name`, `special_tokens` (text -> id), `vocab`
  (id -> token, ordinary tokens only), `n_vocab`, `token_bytes(id)`,
  `encode(text, allowed_special=, disallowed_special=)`, `encode_ordinary`,
  `encode_with_offsets` (ids with the UTF-8 spans they cover, for views)
  and `decode_bytes`;
- what this class adds: `max_token_value`, `eot_token`,
  `special_tokens_set`, `encode_batch`, `encode_ordinary_batch`,
  `encode_single_token`, `decode`, `decode_batch`, `decode_bytes_batch`,
  `decode_single_token_bytes`, `decode_tokens_bytes`,
  `decode_with_offsets`, `token_byte_values`, and pickling;
- `allowed_specials(text, allowed_special, disallowed_special)`: tiktoken's
  special-token rules (see `specials`), the one place every kind and every
  view applies them.

Pickling: an encoding loaded by name (`get_encoding("o200k_base")`) pickles
as its name, so sending it to a worker process costs a few bytes, not
200,000 ranks; any other pickles as what it was made from (`_arguments`).
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor

from .specials import SpecialChoice, check_no_disallowed, resolve_specials

# The names makers give the token that ends a text.
END_OF_TEXT_NAMES = ("<|endoftext|>", "<|end_of_text|>", "</s>", "<EOT>")


class EncodingBase(ABC):
    name: str
    special_tokens: dict[str, int]
    vocab: Mapping[int, bytes | str]

    # Set by `get_encoding` on what it loads by name: the call that loads it
    # again, (function, arguments), which is how it pickles.
    loaded_by: tuple | None = None

    # ------------------------------------------------------------- primitives

    @property
    @abstractmethod
    def n_vocab(self) -> int:
        """One more than the largest id, special tokens included."""

    @abstractmethod
    def token_bytes(self, token_id: int) -> bytes:
        """The bytes a token stands for (a special token: its UTF-8 text);
        ValueError for an id that is no token."""

    @abstractmethod
    def encode(
        self, text: str, *, allowed_special: SpecialChoice = frozenset(), disallowed_special: SpecialChoice = "all"
    ) -> list[int]:
        """Token ids, with tiktoken's special-token rules."""

    @abstractmethod
    def encode_ordinary(self, text: str) -> list[int]:
        """Token ids, special-token text encoded as plain text."""

    @abstractmethod
    def encode_with_offsets(
        self, text: str, *, allowed_special: SpecialChoice = frozenset(), disallowed_special: SpecialChoice = "all"
    ) -> Sequence:
        """Every token with the UTF-8 bytes of `text` it covers (`TokenSpan`s)."""

    @abstractmethod
    def decode_bytes(self, tokens: Iterable[int]) -> bytes:
        """The bytes the tokens stand for, as the model's decoder joins them."""

    @abstractmethod
    def _arguments(self) -> dict:
        """What this tokenizer is made from: its constructor's keyword arguments."""

    # ------------------------------------------------------- special tokens

    @property
    def special_tokens_set(self) -> set[str]:
        return set(self.special_tokens)

    @property
    def max_token_value(self) -> int:
        return self.n_vocab - 1

    @property
    def eot_token(self) -> int:
        """The id of the token that ends a text ("<|endoftext|>", Llama's
        "<|end_of_text|>", SentencePiece's "</s>", Claude 1/2's "<EOT>")."""
        for special in END_OF_TEXT_NAMES:
            if special in self.special_tokens:
                return self.special_tokens[special]
        raise ValueError(f"{self.name!r} has no end-of-text token (none of {', '.join(END_OF_TEXT_NAMES)}).")

    def allowed_specials(
        self, text: str, allowed_special: SpecialChoice, disallowed_special: SpecialChoice
    ) -> frozenset[str]:
        """The special tokens to read as such in `text`, by tiktoken's rules:
        ValueError if the text holds one that is disallowed."""
        allowed, disallowed = resolve_specials(self.special_tokens, allowed_special, disallowed_special)
        check_no_disallowed(text, disallowed)
        return allowed

    # ------------------------------------------------------------ encoding

    def encode_batch(
        self,
        text: Sequence[str],
        *,
        num_threads: int = 8,
        allowed_special: SpecialChoice = frozenset(),
        disallowed_special: SpecialChoice = "all",
    ) -> list[list[int]]:
        """`encode` of each text, in threads (the C encoder, like Rust engines, releases the GIL)."""
        encode = functools.partial(self.encode, allowed_special=allowed_special, disallowed_special=disallowed_special)
        with ThreadPoolExecutor(num_threads) as pool:
            return list(pool.map(encode, text))

    def encode_ordinary_batch(self, text: Sequence[str], *, num_threads: int = 8) -> list[list[int]]:
        with ThreadPoolExecutor(num_threads) as pool:
            return list(pool.map(self.encode_ordinary, text))

    def encode_with_unstable(
        self, text: str, *, allowed_special: SpecialChoice = frozenset(), disallowed_special: SpecialChoice = "all"
    ) -> tuple[list[int], list[list[int]]]:
        """tiktoken's stable tokens and possible completions: a property of
        byte-level BPE, which tiktoken computes for a `Tokenizer` (see its
        method) and the other kinds do not have."""
        raise NotImplementedError(
            f"encode_with_unstable is for byte-level BPE; {self.name!r} is a {type(self).__name__}."
        )

    @functools.cached_property
    def _ids_by_bytes(self) -> dict[bytes, int]:
        """Token bytes -> id, ordinary tokens; of two ids with the same bytes,
        the lower (the one encoding produces)."""
        return {self.token_bytes(token_id): token_id for token_id in sorted(self.vocab, reverse=True)}

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        """The id of the one token whose text (or bytes) this is, special
        tokens included; KeyError if no single token is."""
        token = text_or_bytes.encode("utf-8") if isinstance(text_or_bytes, str) else bytes(text_or_bytes)
        token_id = self._ids_by_bytes.get(token)
        if token_id is not None:
            return token_id
        try:
            special = self.special_tokens.get(token.decode("utf-8"))
        except UnicodeDecodeError:
            special = None
        if special is None:
            raise KeyError(text_or_bytes)
        return special

    def token_byte_values(self) -> list[bytes]:
        """Every ordinary token's bytes, sorted."""
        return sorted(self._ids_by_bytes)

    # ------------------------------------------------------------ decoding

    def decode(self, tokens: Iterable[int], errors: str = "replace") -> str:
        """The text the tokens stand for; bytes that are not UTF-8 become U+FFFD."""
        return self.decode_bytes(tokens).decode("utf-8", errors=errors)

    def decode_batch(
        self, batch: Sequence[Sequence[int]], *, errors: str = "replace", num_threads: int = 8
    ) -> list[str]:
        decode = functools.partial(self.decode, errors=errors)
        with ThreadPoolExecutor(num_threads) as pool:
            return list(pool.map(decode, batch))

    def decode_bytes_batch(self, batch: Sequence[Sequence[int]], *, num_threads: int = 8) -> list[bytes]:
        with ThreadPoolExecutor(num_threads) as pool:
            return list(pool.map(self.decode_bytes, batch))

    def decode_single_token_bytes(self, token: int) -> bytes:
        """One token's bytes; KeyError for an id that is no token."""
        try:
            return self.token_bytes(token)
        except ValueError:
            raise KeyError(token) from None

    def decode_tokens_bytes(self, tokens: Iterable[int]) -> list[bytes]:
        return [self.decode_single_token_bytes(token) for token in tokens]

    def decode_with_offsets(self, tokens: Sequence[int]) -> tuple[str, list[int]]:
        """The text (strict UTF-8) and where each token starts in it, in
        characters. A token that starts inside a character (its first byte a
        UTF-8 continuation byte) starts where that character does."""
        token_bytes = self.decode_tokens_bytes(tokens)
        characters, offsets = 0, []
        for token in token_bytes:
            continues_a_character = bool(token) and 0x80 <= token[0] < 0xC0
            offsets.append(max(0, characters - continues_a_character))
            characters += sum(1 for byte in token if not 0x80 <= byte < 0xC0)
        return b"".join(token_bytes).decode("utf-8", errors="strict"), offsets

    # ------------------------------------------------------------ pickling

    def __reduce__(self) -> tuple:
        if self.loaded_by is not None:
            return self.loaded_by
        return _made_from, (type(self), self._arguments())


def _made_from(kind: type, arguments: dict) -> EncodingBase:
    """A pickled tokenizer, made again from its constructor's arguments."""
    return kind(**arguments)
