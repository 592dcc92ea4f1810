"""The bundled sample corpora (`sample_corpora/`), listed by `catalog.json`.

They ship with the project so that every page opens on real text with no
set-up and no network. The repository keeps them at its top; an installed
package holds them beside this module (pyproject.toml maps the folder into
the wheel there), and `SAMPLES_DIR` is wherever they are.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

_INSTALLED = Path(__file__).resolve().with_name("sample_corpora")
SAMPLES_DIR = _INSTALLED if _INSTALLED.is_dir() else Path(__file__).resolve().parents[2] / "sample_corpora"


@dataclass(frozen=True)
class Sample:
    id: str
    file: str
    title: str
    kind: str  # "text", or "word_counts" (a JSON object word -> count)
    language: str
    description: str
    source: str
    licence: str
    opening: str | None = None  # where a view of the text starts: after a book's title pages

    def opening_offset(self, text: str) -> int:
        """Where the text proper starts (0, or the first `opening`)."""
        return max(text.find(self.opening), 0) if self.opening else 0

    def load(self) -> str | dict[str, int]:
        """The text, or the word counts (a fresh dict each time; the text is
        one string, shared by every caller: a server's sessions all hold it)."""
        if self.kind == "word_counts":
            return json.loads(_read(self.file))
        return _read(self.file)


@functools.cache
def _read(file: str) -> str:
    return (SAMPLES_DIR / file).read_text(encoding="utf-8")


@functools.cache
def catalog() -> dict[str, Sample]:
    """Every bundled sample by id, in the catalog's order."""
    entries = json.loads((SAMPLES_DIR / "catalog.json").read_text(encoding="utf-8"))
    return {entry["id"]: Sample(**entry) for entry in entries}
