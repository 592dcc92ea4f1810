"""The Compression page's default chart and every reference point, measured once.

A first visit to the Compression page shows three bundled corpora, each
trained on at one vocabulary size and split pattern, with OpenAI's
vocabularies as reference points: three trainings and three vocabularies
loaded, the same for every visitor of every server. So those curves, and
every bundled encoding's point on every corpus's held-out text, are
measured at build time (`sample_corpora/build_compression.py`) and shipped
in `compression.json`, each under what it was measured from:

- a curve under the SHA-256 of its training and held-out texts and the
  training settings (training is deterministic);
- a reference point under the SHA-256 of the held-out text and the
  encoding's source (`catalogue.encoding_source`).

The page uses them while these match what it would measure now, and
measures anything else itself; the tests compare the file with a new
measurement.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

from ..corpora.samples import SAMPLES_DIR
from ..vocabularies.catalogue import encoding_source
from .compression import Curves, Point, ReferencePoint

SHIPPED_FILE = SAMPLES_DIR / "compression.json"
DEFAULT_CORPORA = ("english_prose", "japanese", "python_code")  # the chart a first visit shows ...
DEFAULT_SETTINGS = dict(vocab_size=3_000, pattern="cl100k")  # ... trained with these settings


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def curves_key(training_text: str, held_out_text: str, vocab_size: int, pattern: str) -> str:
    """What names a corpus's curves: both texts and the training settings."""
    return f"{text_sha256(training_text)}/{text_sha256(held_out_text)}/{vocab_size}/{pattern}"


def reference_key(held_out_text: str, encoding: str) -> str:
    """What names a reference point: the text, and what the encoding is read from."""
    return f"{text_sha256(held_out_text)}/{encoding}/{encoding_source(encoding)}"


def read_shipped(path: Path = SHIPPED_FILE) -> tuple[dict[str, Curves], dict[str, ReferencePoint]]:
    """The shipped curves and reference points by key; none when the file is missing."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}, {}
    curves = {key: Curves([Point(*point) for point in training], [Point(*point) for point in held_out])
              for key, (training, held_out) in stored["curves"].items()}
    references = {key: ReferencePoint(*point) for key, point in stored["references"].items()}
    return curves, references


def write_shipped(curves: dict[str, Curves], references: dict[str, ReferencePoint], path: Path = SHIPPED_FILE) -> None:
    stored = {"curves": curves, "references": references}  # named tuples are written as lists
    path.write_text(json.dumps(stored, separators=(",", ":")) + "\n", encoding="utf-8")


@functools.cache
def shipped() -> tuple[dict[str, Curves], dict[str, ReferencePoint]]:
    """The shipped `compression.json`, read once."""
    return read_shipped()


def shipped_curves(training_text: str, held_out_text: str, vocab_size: int, pattern: str) -> Curves | None:
    """A corpus's curves at these settings, if they were shipped."""
    return shipped()[0].get(curves_key(training_text, held_out_text, vocab_size, pattern))


def shipped_reference(held_out_text: str, encoding: str) -> ReferencePoint | None:
    """An encoding's point on a held-out text, if it was shipped for what it is read from here."""
    if encoding_source(encoding) is None:  # its package is not installed
        return None
    return shipped()[1].get(reference_key(held_out_text, encoding))
