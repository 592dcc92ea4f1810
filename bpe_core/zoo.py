"""Other makers' tokenizers, read offline from the makers' own packages.

Meta and Mistral publish their tokenizers inside their PyPI packages, so
they work without a download from a model hub and without copying anyone's
files into this project. Each model here names the package that ships it;
its vocabulary, split pattern and special tokens are read from that package
when the model is first asked for (never before: mistral-common brings
pydantic, numpy and pillow along), with the package's own loader, so they
are exactly what the maker encodes with.

- `llama3`, `llama4`, `tekken`: byte-level BPE over tiktoken-style ranks
  (token bytes and their ranks, as OpenAI's vocabularies ship).
  They become ordinary `Tokenizer`s, so every page and the fast engine work
  on them as on the OpenAI encodings. Tekken numbers its ordinary tokens
  after its 1,000 special ones; ranks shifted by a constant merge in the
  same order, so the shifted ranks are the ids.
- `mistral_v3`: SentencePiece BPE with byte fallback, a different algorithm
  (see `sentencepiece_model`), through the `sentencepiece` package.

A model whose package is missing raises `ModelPackageMissing`, a message
naming the pip command that adds it.
"""

from __future__ import annotations

import functools
import importlib
import importlib.resources
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .patterns import register_model_pattern
from .sentencepiece_model import SentencePieceTokenizer
from .tokenizer import Tokenizer

TEKKEN_FILE = "tekken_240911.json"  # Mistral NeMo and later
MISTRAL_V3_FILE = "mistral_instruct_tokenizer_240323.model.v3"  # Mistral 7B v0.3, Mixtral 8x22B, Codestral


class ModelPackageMissing(ValueError):
    """A model's tokenizer ships in a package that is not installed here."""


@dataclass(frozen=True)
class ZooModel:
    """A model in the zoo: what it is, and which package ships its tokenizer."""

    maker: str
    models: str  # the model family, in a few words
    n_vocab: int  # ids, special tokens included (checked against the loaded tokenizer by the tests)
    kind: str
    package: str  # as pip names it
    source: str  # the file in that package
    licence: str  # what covers the file (see README)
    load: Callable[[str], Tokenizer | SentencePieceTokenizer]


def _import(module: str, name: str, package: str | None = None):
    """Import a module model `name` needs (by default from the package that
    ships its tokenizer), or say which pip command adds it."""
    package = package or ZOO[name].package
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ModelPackageMissing(
            f"{name} ({ZOO[name].maker} {ZOO[name].models}) needs the package {package}, "
            f"which cannot be imported here ({error}). Add it with: pip install {package}"
        ) from None


def _from_tiktoken(name: str, encoding, special_tokens: dict[str, int], id_offset: int = 0) -> Tokenizer:
    """Our Tokenizer over a maker's tiktoken `Encoding`: its ranks (shifted
    by `id_offset`), its split pattern, and the maker's special tokens.
    tiktoken keeps what an Encoding was built from in `_mergeable_ranks`
    and `_pat_str`."""
    register_model_pattern(name, encoding._pat_str)
    return Tokenizer(
        name=name,
        pattern=encoding._pat_str,
        vocab={rank + id_offset: token for token, rank in encoding._mergeable_ranks.items()},
        special_tokens=special_tokens,
    )


def _llama(name: str) -> Tokenizer:
    """llama-models' Tokenizer for Llama 3 or 4, built as its `get_instance`
    builds it, from the tokenizer.model beside its module."""
    module = _import(f"llama_models.{name}.tokenizer", name)
    maker = module.Tokenizer(Path(module.__file__).with_name("tokenizer.model"))
    return _from_tiktoken(name, maker.model, maker.special_tokens)


def tekkenizer(name: str = "tekken"):
    """mistral-common's own Tekkenizer for the bundled Tekken file."""
    tekken = _import("mistral_common.tokens.tokenizers.tekken", name)
    files = importlib.resources.files("mistral_common") / "data"
    return tekken.Tekkenizer.from_file(str(files / TEKKEN_FILE))


def _tekken(name: str) -> Tokenizer:
    maker = tekkenizer(name)
    specials = {maker.id_to_piece(token_id): token_id for token_id in range(maker.num_special_tokens)}
    return _from_tiktoken(name, maker._model, specials, id_offset=maker.num_special_tokens)


def mistral_v3_model_file(name: str = "mistral_v3") -> Path:
    """Mistral's v3 SentencePiece model, as mistral-common ships it."""
    _import("mistral_common", name)
    return Path(str(importlib.resources.files("mistral_common") / "data" / MISTRAL_V3_FILE))


def _mistral_v3(name: str) -> SentencePieceTokenizer:
    model_file = mistral_v3_model_file(name)
    _import("sentencepiece", name, "sentencepiece")  # the engine it runs on
    return SentencePieceTokenizer(name=name, model_proto=model_file.read_bytes())


LLAMA_LICENCE = "Llama {} Community License Agreement (llama-models' LICENSE points to each model's licence)"

ZOO: dict[str, ZooModel] = {
    "llama3": ZooModel(
        "Meta", "Llama 3 / 3.1 / 3.2 / 3.3", 128_256, "byte-level BPE", "llama-models",
        "llama_models/llama3/tokenizer.model", LLAMA_LICENCE.format("3"), _llama,
    ),
    "llama4": ZooModel(
        "Meta", "Llama 4", 202_048, "byte-level BPE", "llama-models",
        "llama_models/llama4/tokenizer.model", LLAMA_LICENCE.format("4"), _llama,
    ),
    "tekken": ZooModel(
        "Mistral", "NeMo and later (Tekken)", 131_072, "byte-level BPE", "mistral-common",
        f"mistral_common/data/{TEKKEN_FILE}", "Apache License 2.0 (mistral-common)", _tekken,
    ),
    "mistral_v3": ZooModel(
        "Mistral", "7B v0.3 / Mixtral / Codestral (v3)", 32_768, "SentencePiece BPE with byte fallback",
        "mistral-common", f"mistral_common/data/{MISTRAL_V3_FILE}", "Apache License 2.0 (mistral-common)",
        _mistral_v3,
    ),
}


@functools.cache
def load_zoo_encoding(name: str) -> Tokenizer | SentencePieceTokenizer:
    """A zoo model's tokenizer, read from its maker's package once and kept."""
    return ZOO[name].load(name)
