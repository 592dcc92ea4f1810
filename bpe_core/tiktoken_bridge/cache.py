"""tiktoken's download cache, filled from this package: the real tiktoken, offline.

tiktoken downloads each of OpenAI's files on first use into a cache folder
(`TIKTOKEN_CACHE_DIR`, else `DATA_GYM_CACHE_DIR`, else `data-gym-cache` in
the system's temporary folder), as a file named by the SHA-1 of its URL,
and reads it from there whenever its SHA-256 is the one it pins (see
tiktoken/load.py). Writing every file of `blobs` there, by the same name,
gives tiktoken all it would have downloaded: on an air-gapped machine
`tiktoken.get_encoding` then works for every OpenAI encoding.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from .blobs import BLOBS, blob


def tiktoken_cache_dir() -> Path:
    """The folder tiktoken's cache is in, by tiktoken's own rule."""
    for variable in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if variable in os.environ:
            if not os.environ[variable]:
                raise ValueError(f"{variable} is empty, which tells tiktoken to keep no cache: set it to a folder")
            return Path(os.environ[variable])
    return Path(tempfile.gettempdir()) / "data-gym-cache"


def cache_file_name(url: str) -> str:
    """What tiktoken names the file it downloads from `url`."""
    return hashlib.sha1(url.encode()).hexdigest()


def fill_tiktoken_cache(folder: Path | None = None) -> dict[str, Path]:
    """Every file tiktoken's OpenAI encodings download, written into
    `folder` (by default tiktoken's own cache folder) as tiktoken names it,
    each checked against tiktoken's pin first: file name -> where it went."""
    folder = Path(folder) if folder is not None else tiktoken_cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    written = {}
    for url, about in BLOBS.items():
        target = folder / cache_file_name(url)
        partial = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        partial.write_bytes(blob(url))
        partial.replace(target)  # whole or not at all, as tiktoken writes it
        written[about.file_name] = target
    return written
