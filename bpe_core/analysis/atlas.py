"""The atlas of the tokenization tax: the premium of every declaration of
the UDHR corpus (`bpe_core.corpora.udhr`, 527 languages and variants) under every
tokenizer, with the fairness lab's other measures (`tax`).

The premium is the tax's (Petrov et al. 2023): the tokens of a whole
declaration (preamble, articles, their headings) divided by the tokens of
the base declaration (`eng` by default) under the same tokenizer. Two
things are new here:

- Normalization. The declarations are kept as written, and some are not in
  NFC: Vietnamese writes many tones as combining marks, and a byte-level
  tokenizer trained on NFC text pays for every mark. `nfc_premium` is the
  premium after NFC normalization, beside the as-written one.
- Scale. Counting 527 declarations under one tokenizer takes seconds, the
  same seconds for every visitor, so the counts of the bundled tokenizers
  are made once (`sample_corpora/udhr/build_counts.py`) and kept in
  `token_counts.json`, each under the tokenizer's fingerprint and its
  source (`catalogue.encoding_source`: the pinned SHA-256 of the file it is
  read from, or its maker's package and version). A page finds a bundled
  tokenizer's counts by its source, without loading it (`shipped_counts`);
  one that is missing there, or changed since, is counted again.

Words are counted where ICU can find them (`Declaration.words_known`);
tokens per word and words split are None elsewhere.
"""

from __future__ import annotations

import functools
import json
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..corpora.udhr import UDHR_DIR, declaration_texts, declarations, source
from ..vocabularies.catalogue import encoding_source
from .tax import Cost, TaxRow, gini, measure

COUNTS_FILE = UDHR_DIR / "token_counts.json"
DEFAULT_BASE = "eng"


@dataclass(frozen=True)
class TokenizerCounts:
    """What one tokenizer makes of every declaration: tokens as written,
    tokens after NFC (for the texts not in NFC), and words split (where
    words are known). `fingerprint` names the tokenizer that was counted."""

    fingerprint: str
    tokens: dict[str, int]
    nfc_tokens: dict[str, int] = field(default_factory=dict)
    split_words: dict[str, int] = field(default_factory=dict)


def token_count(tokenizer, text: str) -> int:
    """Tokens of `text`; special-token strings in it are plain text."""
    return len(tokenizer.encode(text, disallowed_special=()))


def count_tokenizer(tokenizer, texts: Mapping[str, str] | None = None,
                    progress: Callable[[int, int], None] | None = None) -> TokenizerCounts:
    """Count every declaration (or `texts`, a subset by code) under `tokenizer`;
    `progress(done, total)` hears after each one."""
    texts = declaration_texts() if texts is None else texts
    about = declarations()
    tokens, nfc_tokens, split = {}, {}, {}
    for done, (code, text) in enumerate(texts.items(), start=1):
        declaration = about[code]
        if declaration.words_known:
            cost = measure(tokenizer, text, declaration.bcp47)
            tokens[code], split[code] = cost.tokens, cost.split_words
        else:
            tokens[code] = token_count(tokenizer, text)
        if not declaration.nfc:
            nfc_tokens[code] = token_count(tokenizer, unicodedata.normalize("NFC", text))
        if progress is not None:
            progress(done, len(texts))
    return TokenizerCounts(tokenizer.fingerprint, tokens, nfc_tokens, split)


def word_counts(texts: Mapping[str, str] | None = None) -> dict[str, int]:
    """Words per declaration, for those whose words ICU can find."""
    from .words import count_words

    texts = declaration_texts() if texts is None else texts
    about = declarations()
    return {code: count_words(text, about[code].bcp47) for code, text in texts.items() if about[code].words_known}


# ------------------------------------------------------ the precomputed file


@dataclass(frozen=True)
class Precomputed:
    """`token_counts.json`: words per declaration and each bundled
    tokenizer's counts, for the declarations whose SHA-256 it names, with
    what each tokenizer was read from (its `encoding_source`)."""

    declarations_sha256: str
    words: dict[str, int]
    tokenizers: dict[str, TokenizerCounts]
    sources: dict[str, str] = field(default_factory=dict)

    def counts(self, name: str, fingerprint: str) -> TokenizerCounts | None:
        """The stored counts of `name`, if they are of this very tokenizer."""
        counts = self.tokenizers.get(name)
        return counts if counts is not None and counts.fingerprint == fingerprint else None

    def counts_from(self, name: str, read_from: str | None) -> TokenizerCounts | None:
        """The stored counts of `name`, if they were counted on the tokenizer
        read from `read_from` (its `encoding_source`; None: it cannot be read here)."""
        found = read_from is not None and self.sources.get(name) == read_from
        return self.tokenizers.get(name) if found else None


def read_precomputed(path: Path = COUNTS_FILE) -> Precomputed | None:
    """The precomputed counts, or None when there are none for the
    declarations shipped now (missing file, or texts rebuilt since)."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if stored.get("declarations_sha256") != source()["declarations_sha256"]:
        return None
    tokenizers, sources = {}, {}
    for name, entry in stored["tokenizers"].items():
        if "source" in entry:
            sources[name] = entry.pop("source")
        tokenizers[name] = TokenizerCounts(**entry)
    return Precomputed(stored["declarations_sha256"], stored["words"], tokenizers, sources)


def write_precomputed(words: dict[str, int], tokenizers: Mapping[str, TokenizerCounts],
                      sources: Mapping[str, str], path: Path = COUNTS_FILE) -> None:
    stored = {"declarations_sha256": source()["declarations_sha256"], "words": words,
              "tokenizers": {name: {"source": sources[name], **asdict(counts)} for name, counts in tokenizers.items()}}
    path.write_text(json.dumps(stored, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")


@functools.cache
def precomputed() -> Precomputed | None:
    """The shipped `token_counts.json`, read once."""
    return read_precomputed()


def shipped_counts(name: str) -> TokenizerCounts | None:
    """A bundled tokenizer's shipped counts, when they were counted on what
    it is read from here: found without loading it (a vocabulary of 200,000
    tokens takes a second and tens of MB). None when it must be counted."""
    stored = precomputed()
    return stored.counts_from(name, encoding_source(name)) if stored is not None else None


def counts_for(name: str, tokenizer, progress: Callable[[int, int], None] | None = None) -> TokenizerCounts:
    """`name`'s counts: the shipped ones when they are of this very
    tokenizer, else counted now (seconds; `progress` hears how far)."""
    stored = precomputed()
    found = stored.counts(name, tokenizer.fingerprint) if stored is not None else None
    return found if found is not None else count_tokenizer(tokenizer, progress=progress)


def words_per_declaration() -> dict[str, int]:
    """Words per declaration (where known): shipped, else counted now (seconds)."""
    stored = precomputed()
    return stored.words if stored is not None else word_counts()


# -------------------------------------------------------------- premiums


DECLARATIONS_GINI_COST = "tokens per complete declaration (incomplete ones left out), every declaration weighted equally"


def declarations_gini(counts: TokenizerCounts) -> float:
    """The Gini coefficient of per-language token cost over the UDHR (see
    `tax.cost_gini`): each complete declaration is one parallel unit, its
    tokens its cost, every declaration weighted equally. Incomplete ones are
    left out: they would look cheap for saying less."""
    return gini([counts.tokens[code] for code, declaration in declarations().items() if declaration.whole])


@dataclass(frozen=True)
class AtlasRow:
    """One declaration under one tokenizer: the tax's row (`TaxRow`: its
    cost and premium as written) and the premium after NFC."""

    tax: TaxRow
    nfc_premium: float  # equal to the premium where the text is in NFC

    @property
    def code(self) -> str:
        return self.tax.code

    @property
    def premium(self) -> float:
        return self.tax.premium


def atlas_rows(counts: Mapping[str, TokenizerCounts], words: Mapping[str, int], base: str = DEFAULT_BASE,
               codes: Iterable[str] | None = None) -> list[AtlasRow]:
    """Every (tokenizer, declaration) pair with its premiums against `base`."""
    about = declarations()
    if base not in about:
        raise ValueError(f"There is no declaration {base!r}; codes are the udhr package's, such as eng or cmn_hans.")
    texts = declaration_texts()
    codes = list(about) if codes is None else list(codes)
    sizes = {code: (len(texts[code].encode("utf-8")), len(texts[code])) for code in {*codes, base}}
    rows = []
    for name, counted in counts.items():
        base_tokens = counted.tokens[base]
        base_nfc_tokens = counted.nfc_tokens.get(base, base_tokens)
        for code in codes:
            size, chars = sizes[code]
            cost = Cost(counted.tokens[code], size, chars, words.get(code, 0), counted.split_words.get(code, 0))
            premium = cost.tokens / base_tokens
            tax = TaxRow(name, code, cost, premium, size / sizes[base][0])
            rows.append(AtlasRow(tax, counted.nfc_tokens.get(code, cost.tokens) / base_nfc_tokens))
    return rows
