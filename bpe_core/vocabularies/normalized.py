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
from typing import Literal, NamedTuple

from ..engine.specials import SpecialChoice, split_on_specials
from ..engine.tokenizer import Tokenizer, TokenSpan
from ..engine.utf8 import encodable

Form = Literal["NFC", "NFKC"]
Normalize = Callable[[str], str]  # text -> its normalized form (Python's, or a maker's own function)


class Chunk(NamedTuple):
    """A run of the typed text and what it normalizes to, as UTF-8 offsets."""

    start: int  # in the typed text
    end: int
    normalized_start: int  # in the normalized text
    normalized_end: int
    changed: bool


@functools.lru_cache(maxsize=4096)
def _may_start_chunk(form: Form, char: str) -> bool:
    """Whether `char` is a starter that normalizes to text beginning with a
    starter: after one, no later mark can be reordered into what came before."""
    if unicodedata.combining(char):
        return False
    normalized = unicodedata.normalize(form, char)
    return not normalized or not unicodedata.combining(normalized[0])


def _starts_chunk(form: Form, text: str, start: int, index: int) -> bool:
    """Whether `text[index]` can begin a new chunk after the one that began
    at `start`: it may start one (see above) and does not compose with what
    comes before. The cheap tests come first, so that a long run of marks is
    not sliced and normalized again for each of its marks."""
    char = text[index]
    if char < "\x80":
        return True  # ASCII neither composes backwards nor reorders
    if not _may_start_chunk(form, char):
        return False
    current = text[start:index]
    return unicodedata.normalize(form, current + char) == unicodedata.normalize(form, current) + unicodedata.normalize(
        form, char)


def chunks(text: str, form: Form, normalize: Normalize | None = None) -> list[Chunk]:
    """`text` cut into runs that normalize independently, so the normalized
    text is the runs' normalized texts laid end to end. Neighbouring runs
    the normalization leaves alone are joined into one.

    Where the runs end is found with Python's tables for `form`; `normalize`
    (by default Python's own) normalizes them. Unicode never changes how an
    assigned character normalizes, and an older table leaves a newer
    character alone, so a cut that Python's tables allow is a cut for an
    older table too; should the runs still not add up, the whole text is
    one run."""
    normalize = normalize or functools.partial(unicodedata.normalize, form)
    starts = [0] if text else []
    for index in range(1, len(text)):
        if _starts_chunk(form, text, starts[-1], index):
            starts.append(index)
    normalized_of: dict[str, str] = {}  # a text repeats its few changed pieces ("（", "…")
    result: list[Chunk] = []
    normalized_pieces: list[str] = []
    start = normalized_start = 0
    unchanged = None  # where the run of unchanged pieces so far began: (start, normalized start)
    for piece in map(text.__getitem__, map(slice, starts, [*starts[1:], len(text)])):
        if unicodedata.is_normalized(form, piece):
            normalized = piece
        else:
            normalized = normalized_of.get(piece) or normalized_of.setdefault(piece, normalize(piece))
        normalized_pieces.append(normalized)
        end = start + len(piece.encode("utf-8"))
        if normalized == piece:
            unchanged = unchanged or (start, normalized_start)
            normalized_end = normalized_start + end - start
        else:
            if unchanged:
                result.append(Chunk(unchanged[0], start, unchanged[1], normalized_start, changed=False))
                unchanged = None
            normalized_end = normalized_start + len(normalized.encode("utf-8"))
            result.append(Chunk(start, end, normalized_start, normalized_end, changed=True))
        start, normalized_start = end, normalized_end
    if unchanged:
        result.append(Chunk(unchanged[0], start, unchanged[1], normalized_start, changed=False))
    whole = normalize(text)
    if "".join(normalized_pieces) != whole:
        return [Chunk(0, len(text.encode("utf-8")), 0, len(whole.encode("utf-8")), changed=True)]
    return result


def typed_spans(typed: str, spans: Sequence[TokenSpan], form: Form, normalize: Normalize) -> list[TokenSpan]:
    """Spans over the normalized `typed` text, moved to the bytes of `typed`
    itself (see the module's note)."""
    runs = chunks(typed, form, normalize)
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
    """A `Tokenizer` that encodes the text in the Unicode form
    `normalization` ("NFC" or "NFKC") as the maker's `normalizer` makes it,
    finding special tokens after normalizing (Qwen) or before
    (`specials_first`, Hugging Face's order)."""

    def __init__(self, *, normalization: Form, normalizer: Normalize, specials_first: bool, **tokenizer):
        super().__init__(**tokenizer)
        self.normalization: Form = normalization
        self.normalizer = normalizer
        self.specials_first = specials_first

    def normalize(self, text: str) -> str:
        return self.normalizer(encodable(text))

    @functools.cached_property
    def fingerprint(self) -> str:
        """The vocabulary's fingerprint, and how text is normalized before it."""
        mode = f"{self.normalization}:{'specials first' if self.specials_first else 'normalize first'}"
        return hashlib.sha256(f"{Tokenizer.fingerprint.func(self)}:{mode}".encode("ascii")).hexdigest()

    def _arguments(self) -> dict:
        return dict(super()._arguments(), normalization=self.normalization, normalizer=self.normalizer,
                    specials_first=self.specials_first)

    def encode_with_unstable(self, text: str, **special_rules) -> tuple[list[int], list[list[int]]]:
        raise NotImplementedError(
            f"encode_with_unstable is not offered for {self.name!r}: it normalizes text ({self.normalization}) before "
            "BPE, and text that follows (a combining mark) can change how the text before it is normalized."
        )

    def _ids(self, text: str, allowed_special: SpecialChoice, disallowed_special: SpecialChoice, encode_part) -> list[int]:
        """Ids of `text`, normalized in this tokenizer's order; `encode_part`
        encodes normalized text with the special tokens allowed in it."""
        text = encodable(text)
        if not self.specials_first:
            text = self.normalize(text)
            return encode_part(text, self.allowed_specials(text, allowed_special, disallowed_special))
        allowed = self.allowed_specials(text, allowed_special, disallowed_special)
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
        text = encodable(text)

        def spans_of(part: str, allowed: frozenset[str]) -> Sequence[TokenSpan]:
            normalized = self.normalize(part)
            spans = Tokenizer.encode_with_offsets(self, normalized, allowed_special=allowed, disallowed_special=(),
                                                  step=step, reference=reference)
            return spans if normalized == part else typed_spans(part, spans, self.normalization, self.normalizer)

        if not self.specials_first:
            return spans_of(text, self.allowed_specials(self.normalize(text), allowed_special, disallowed_special))
        allowed = self.allowed_specials(text, allowed_special, disallowed_special)
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
