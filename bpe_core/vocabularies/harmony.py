"""gpt-oss's chat prompts, rendered by OpenAI's own `openai-harmony`, offline.

gpt-oss reads its conversations in the harmony format, and OpenAI publishes
the renderer as the `openai-harmony` package (a Rust extension, no torch).
Left to itself it downloads o200k_base's rank file on first use, which fails
offline; told a folder through the `TIKTOKEN_ENCODINGS_BASE` environment
variable, it reads `o200k_base.tiktoken` from there instead and checks the
file's SHA-256 against the one it pins. This module hands it the rank file
shipped in `files/` (already checked against tiktoken's SHA-256, the same
digest), so nothing is fetched.
"""

from __future__ import annotations

import functools
import os
import tempfile
import threading
from pathlib import Path

from .bundled_files import BUNDLED_DIR, read_checked
from .openai import ENCODINGS
from .zoo import ModelPackageMissing

ENCODINGS_BASE_VARIABLE = "TIKTOKEN_ENCODINGS_BASE"  # openai-harmony's src/tiktoken_ext/public_encodings.rs
RANK_FILE_NAME = "o200k_base.tiktoken"  # the name it looks for in that folder

_loading = threading.Lock()  # the variable is the whole process's: one loader at a time sets it


@functools.cache
def harmony_encoding():
    """openai-harmony's encoding for gpt-oss, read from the bundled o200k_base
    rank file. Loaded once per process (a few seconds)."""
    try:
        from openai_harmony import HarmonyEncodingName, load_harmony_encoding
    except ImportError as error:
        raise ModelPackageMissing(
            f"gpt-oss's chat prompts are rendered by OpenAI's openai-harmony, which cannot be imported here ({error}). "
            "Add it with: pip install openai-harmony"
        ) from None
    spec = ENCODINGS["o200k_base"]
    ranks = read_checked(BUNDLED_DIR / spec.rank_file, spec.sha256, "Restore it from the project's repository.")
    with _loading, tempfile.TemporaryDirectory() as folder:
        (Path(folder) / RANK_FILE_NAME).write_bytes(ranks)
        earlier = os.environ.get(ENCODINGS_BASE_VARIABLE)
        os.environ[ENCODINGS_BASE_VARIABLE] = folder
        try:
            return load_harmony_encoding(HarmonyEncodingName.HARMONY_GPT_OSS)
        finally:  # leave the environment as it was found
            if earlier is None:
                del os.environ[ENCODINGS_BASE_VARIABLE]
            else:
                os.environ[ENCODINGS_BASE_VARIABLE] = earlier
