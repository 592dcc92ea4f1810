"""This package's tokenizers for the real tiktoken: a `tiktoken_ext` plugin.

tiktoken finds encodings in plugins: each module of the `tiktoken_ext`
namespace package holds ENCODING_CONSTRUCTORS, name -> a function that
returns the arguments of tiktoken's `Encoding` (tiktoken/registry.py). The
wheel installs `tiktoken_ext/bpe_core.py`, which hands tiktoken this
module's, so that `tiktoken.get_encoding` also takes:

- the zoo's tokenizers whose makers encode with tiktoken's own `Encoding`
  (`ZOO_NAMES`: Meta's llama-models, mistral-common's Tekkenizer, openai-
  whisper): in tiktoken they give their makers' ids by construction. The
  others (SentencePiece; BPE after NFC or NFKC) would not, and are left out;
- a user's tokenizers: each `NAME.json` (saved by this playground, or a
  Hugging Face byte-level BPE tokenizer.json) in the folder the environment
  variable BPE_CORE_TIKTOKEN_DIR names is the encoding NAME, read when
  tiktoken first asks for it.

OpenAI's names stay tiktoken's own plugin's (`tiktoken_ext.openai_public`),
as tiktoken refuses a name two plugins define; their files come from
tiktoken's cache, which `cache` fills offline.
"""

from __future__ import annotations

import functools
import os
import warnings
from collections.abc import Callable
from pathlib import Path

from ..engine.tokenizer import Tokenizer
from ..formats import tokenizer_from_file
from ..vocabularies.catalogue import CATALOGUE, load_encoding
from ..vocabularies.openai import ENCODINGS

ZOO_NAMES = ("llama3", "llama4", "tekken", "whisper")
USER_TOKENIZERS_VARIABLE = "BPE_CORE_TIKTOKEN_DIR"


def encoding_arguments(name: str, tokenizer: Tokenizer) -> dict:
    """What tiktoken's `Encoding` named `name` is built from, for a
    byte-level tokenizer (ValueError for one over characters, which
    tiktoken cannot hold)."""
    if tokenizer.units != "bytes":
        raise ValueError(f"{name!r} was trained on characters; tiktoken's encodings are byte-level")
    return dict(name=name, pat_str=tokenizer.pattern, mergeable_ranks=dict(tokenizer.mergeable_ranks),
                special_tokens=dict(tokenizer.special_tokens))


def _zoo_encoding(name: str) -> dict:
    return encoding_arguments(name, load_encoding(name))


def _user_encoding(path: Path) -> dict:
    return encoding_arguments(path.stem, tokenizer_from_file(path.name, path.read_bytes()))


def user_tokenizer_files() -> dict[str, Path]:
    """The user's tokenizers by name: `NAME.json` in the folder
    BPE_CORE_TIKTOKEN_DIR names (none where it names none). A name that
    OpenAI's plugin or the zoo already defines is left out with a warning:
    tiktoken would refuse every encoding for it."""
    folder = os.environ.get(USER_TOKENIZERS_VARIABLE)
    if not folder:
        return {}
    files = {}
    for path in sorted(Path(folder).glob("*.json")):
        if path.stem in ENCODINGS or path.stem in ZOO_NAMES:
            warnings.warn(f"{path} is not offered to tiktoken: {path.stem!r} is already one of its encodings",
                          stacklevel=2)
        else:
            files[path.stem] = path
    return files


def encoding_constructors() -> dict[str, Callable[[], dict]]:
    """Name -> what tiktoken calls for the arguments of its `Encoding`."""
    zoo = {name: functools.partial(_zoo_encoding, name) for name in ZOO_NAMES if name in CATALOGUE}
    return zoo | {name: functools.partial(_user_encoding, path) for name, path in user_tokenizer_files().items()}


ENCODING_CONSTRUCTORS = encoding_constructors()  # read once, when tiktoken imports its plugins
