"""Tokenizers that normalize text before BPE (Unicode NFC or NFKC).

Some makers change the text before it reaches the merges: Qwen's tokenizer
composes it (NFC: "e" + U+0301 becomes "é"), Anthropic's Claude 1/2
tokenizer folds compatibility forms too (NFKC: "ﬁ" becomes "fi", "…"
becomes "..."). Their ids are BPE's ids of the *normalized* text, so a
`NormalizingTokenizer` normalizes, then encodes as `Tokenizer` does. It
normalizes with the maker's own function: Python's `unicodedata` for Qwen,
whose code calls it; Hugging Face's normalizer for Claude 1/2, whose Unicode
tables are older than Python's (a few dozen newer characters, such as
U+32FF "㋿", it leaves alone).

Two orders exist, and the ids differ on text such as "<|im_end|>" followed
by a combining mark, or a full-width "＜EOT＞":

- normalize the whole text, then find special tokens in it (Qwen's
  tiktoken-based code);
- find special tokens in the text as typed, then normalize what lies
  between them (Hugging Face's `tokenizers`, for added tokens marked not
  normalized).

A page colours the text the user typed, so spans are given in *its* bytes.
The text is cut into chunks that normalize independently (`chunks`). A
token boundary inside a chunk the normalization changed ("ﬁ" became "f"
and "i", two tokens) falls at the same share of the typed chunk's bytes, so
the spans still tile the text and tokens that share a typed character are
drawn as tokens sharing its bytes are.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import unicodedata
from collections.abc import Callable, Sequence
from typing import NamedTuple

from .specials import SpecialChoice, check_no_disallowed, resolve_specials, split_on_specials
from .tokenizer import Tokenizer, TokenSpan
from .utf8 import encodable

Normalize = Callable[[str], str]  # text -> its normalized form, e.g. functools.partial(unicodedata.normalize, "NFC")


class Chunk(NamedTuple):
    """A run of the typed text and what it normalizes to, as UTF-8 offsets."""

    start: int  # in the typed text
    end: int
    normalized_start: int  # in the normalized text
    normalized_end: int
    changed: bool


def _starts_chunk(normalize: Normalize, text: str, start: int, index: int) -> bool:
    """Whether `text[index]` can begin a new chunk after the one that began
    at `start`: it is a starter, normalizes to text that begins with a
    starter (so no later mark is reordered across it), and does not compose
    with what comes before. The cheap tests come first, so that a long run
    of marks is not normalized again for each of its marks."""
    char = text[index]
    if char < "\x80":
        return True  # ASCII neither composes backwards nor reorders
    if unicodedata.combining(char):
        return False
    normalized = normalize(char)
    if normalized and unicodedata.combining(normalized[0]):
        return False
    current = text[start:index]
    return normalize(current + char) == normalize(current) + normalized


def chunks(text: str, normalize: Normalize) -> list[Chunk]:
    """`text` cut into runs that normalize independently, so the normalized
    text is the runs' normalized texts laid end to end. Neighbouring runs
    the normalization leaves alone are joined into one."""
    starts = [0] if text else []
    for index in range(1, len(text)):
        if _starts_chunk(normalize, text, starts[-1], index):
            starts.append(index)
    result: list[Chunk] = []
    start = normalized_start = 0
    for piece in map(text.__getitem__, map(slice, starts, [*starts[1:], len(text)])):
        normalized = normalize(piece)
        end = start + len(piece.encode("utf-8"))
        normalized_end = normalized_start + len(normalized.encode("utf-8"))
        changed = normalized != piece
        if result and not changed and not result[-1].changed:
            result[-1] = result[-1]._replace(end=end, normalized_end=normalized_end)
        else:
            result.append(Chunk(start, end, normalized_start, normalized_end, changed))
        start, normalized_start = end, normalized_end
    return result


def typed_spans(typed: str, spans: Sequence[TokenSpan], normalize: Normalize) -> list[TokenSpan]:
    """Spans over the normalized `typed` text, moved to the bytes of `typed`
    itself (see the module's note)."""
    runs = chunks(typed, normalize)
    starts = [run.normalized_start for run in runs]

    def typed_offset(offset: int) -> int:
        run = runs[bisect.bisect_right(starts, offset) - 1]
        if offset == run.normalized_start:
            return run.start
        if not run.changed:
            return run.start + offset - run.normalized_start
        share = (offset - run.normalized_start) / (run.normalized_end - run.normalized_start)
        return run.start + int(share * (run.end - run.start))

    return [TokenSpan(span.id, typed_offset(span.start), typed_offset(span.end)) for span in spans]


class NormalizingTokenizer(Tokenizer):
    """A `Tokenizer` that encodes the text as `normalizer` normalizes it
    (`normalization` names it: "NFC", "NFKC"), finding special tokens after
    normalizing (Qwen) or before (`specials_first`, Hugging Face's order)."""

    def __init__(self, *, normalizer: Normalize, normalization: str, specials_first: bool, **tokenizer):
        super().__init__(**tokenizer)
        self.normalizer = normalizer
        self.normalization = normalization
        self.specials_first = specials_first

    def normalize(self, text: str) -> str:
        return self.normalizer(encodable(text))

    @functools.cached_property
    def fingerprint(self) -> str:
        """The vocabulary's fingerprint, and how text is normalized before it."""
        mode = f"{self.normalization}:{'specials first' if self.specials_first else 'normalize first'}"
        return hashlib.sha256(f"{Tokenizer.fingerprint.func(self)}:{mode}".encode("ascii")).hexdigest()

    def _ids(self, text: str, allowed_special: SpecialChoice, disallowed_special: SpecialChoice, encode_part) -> list[int]:
        """Ids of `text`, normalized in this tokenizer's order; `encode_part`
        encodes normalized text with the special tokens allowed in it."""
        allowed, disallowed = resolve_specials(self.special_tokens, allowed_special, disallowed_special)
        text = encodable(text)
        if not self.specials_first:
            text = self.normalize(text)
            check_no_disallowed(text, disallowed)
            return encode_part(text, allowed)
        check_no_disallowed(text, disallowed)
        ids: list[int] = []
        for segment, is_special in split_on_specials(text, allowed):
            ids += [self.special_tokens[segment]] if is_special else encode_part(self.normalize(segment), frozenset())
        return ids

    def encode(self, text: str, *, allowed_special: SpecialChoice = frozenset(),
               disallowed_special: SpecialChoice = "all", reference: bool = False) -> list[int]:
        return self._ids(text, allowed_special, disallowed_special, lambda part, allowed: Tokenizer.encode(
            self, part, allowed_special=allowed, disallowed_special=(), reference=reference))

    def encode_ordinary(self, text: str, *, reference: bool = False) -> list[int]:
        return super().encode_ordinary(self.normalize(text), reference=reference)

    def encode_at_step(self, text: str, step: int, *, allowed_special: SpecialChoice = frozenset(),
                       disallowed_special: SpecialChoice = "all", reference: bool = False) -> list[int]:
        return self._ids(text, allowed_special, disallowed_special, lambda part, allowed: Tokenizer.encode_at_step(
            self, part, step, allowed_special=allowed, disallowed_special=(), reference=reference))

    def encode_with_offsets(self, text: str, *, allowed_special: SpecialChoice = frozenset(),
                            disallowed_special: SpecialChoice = "all", step: int | None = None,
                            reference: bool = False) -> Sequence[TokenSpan]:
        """Spans in the bytes of the text as typed (see the module's note)."""
        allowed, disallowed = resolve_specials(self.special_tokens, allowed_special, disallowed_special)
        text = encodable(text)

        def spans_of(part: str, allowed: frozenset[str]) -> Sequence[TokenSpan]:
            normalized = self.normalize(part)
            spans = Tokenizer.encode_with_offsets(self, normalized, allowed_special=allowed, disallowed_special=(),
                                                  step=step, reference=reference)
            return spans if normalized == part else typed_spans(part, spans, self.normalizer)

        if not self.specials_first:
            check_no_disallowed(self.normalize(text), disallowed)
            return spans_of(text, allowed)
        check_no_disallowed(text, disallowed)
        spans: list[TokenSpan] = []
        offset = 0
        for segment, is_special in split_on_specials(text, allowed):
            size = len(segment.encode("utf-8"))
            if is_special:
                spans.append(TokenSpan(self.special_tokens[segment], offset, offset + size))
            else:
                spans += [TokenSpan(span.id, span.start + offset, span.end + offset)
                          for span in spans_of(segment, frozenset())]
            offset += size
        return spans
