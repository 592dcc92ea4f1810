"""Faster forms of shipped files, made once on this machine and checked on every read.

Gemma 3's tokenizer.json is 33 MB of JSON: Python's `json` alone takes over
a second to read it, longer than loading Llama 4 whole, and Hugging Face's
`tokenizers` two to three. What encoding needs from it (the pieces and the
merge list, as numbers) fits in a tenth of the space and reads in a fraction
of the time. So the first load makes that form from the maker's file (itself
checked against its pinned SHA-256) and keeps it in a cache folder; later
loads read the kept form.

A kept form is trusted only as far as it is checked: it names the SHA-256 of
the file it was made from and of its own contents, and both must match, or
it is made again. It is never shipped, never required: where the cache
folder cannot be written, the form is made in memory each time.

The cache folder is `$BPE_CORE_CACHE`, else `$XDG_CACHE_HOME/bpe_core`,
else `~/.cache/bpe_core`.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import tempfile
from collections.abc import Callable
from pathlib import Path

MAGIC = b"bpe_core derived file\n"
_HEADER_SIZE = struct.Struct("<I")


def cache_folder() -> Path:
    if os.environ.get("BPE_CORE_CACHE"):
        return Path(os.environ["BPE_CORE_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "bpe_core"


def derived(name: str, source_sha256: str, make: Callable[[], bytes]) -> bytes:
    """The derived form `make()` builds from a shipped file whose SHA-256 is
    `source_sha256`: read from the cache folder if a checked copy is there,
    else made now and kept there (when the folder can be written)."""
    path = cache_folder() / f"{name}.{source_sha256[:16]}.bin"
    kept = _read(path, source_sha256)
    if kept is not None:
        return kept
    contents = make()
    _write(path, source_sha256, contents)
    return contents


def _read(path: Path, source_sha256: str) -> bytes | None:
    """A kept form whose header names this source and its contents' digest; else None."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        if not data.startswith(MAGIC):
            return None
        start = len(MAGIC) + _HEADER_SIZE.size
        (size,) = _HEADER_SIZE.unpack_from(data, len(MAGIC))
        header = json.loads(data[start : start + size])
        contents = data[start + size :]
    except (struct.error, ValueError):
        return None
    if header.get("source_sha256") != source_sha256 or header.get("sha256") != hashlib.sha256(contents).hexdigest():
        return None
    return contents


def _write(path: Path, source_sha256: str, contents: bytes) -> None:
    """Keep the form, whole or not at all (written aside, then renamed)."""
    header = json.dumps({"source_sha256": source_sha256, "sha256": hashlib.sha256(contents).hexdigest()}).encode()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=path.name, delete=False) as file:
            file.write(MAGIC + _HEADER_SIZE.pack(len(header)) + header + contents)
        os.replace(file.name, path)
    except OSError:  # a read-only home, a full disk: made again next time
        try:
            os.unlink(file.name)
        except (OSError, NameError):
            pass
