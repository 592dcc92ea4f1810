"""Every encoding `load_encoding` knows by name: the OpenAI vocabularies,
shipped with the project and verified, and the model zoo (`zoo`), read from
its makers' packages. Nothing is ever downloaded.

tiktoken fetches its rank files from the internet on first use, which fails
offline (a conference hall, a CI runner). The official files are bundled in
`rank_files/` (gzip-compressed) and checked against the SHA-256 that tiktoken
itself pins before anything uses them. Patterns and special tokens are
tiktoken's own (`tiktoken_ext/openai_public.py`).

- `tiktoken_encoding(name)`: a real `tiktoken.Encoding`, the reference.
- `load_encoding(name)`: the same ranks in this project's engine, giving
  identical ids, plus what the playground needs (offsets, merges, steps);
  for a zoo name, that model's tokenizer.
- `CATALOGUE`: what each name is (maker, models, vocabulary size), said
  without loading anything, for pickers and help texts.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from .formats.tiktoken_file import parse_tiktoken_ranks
from .patterns import CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN
from .sentencepiece_model import SentencePieceTokenizer
from .tokenizer import Tokenizer
from .zoo import ZOO, load_zoo_encoding

RANK_FILES = Path(__file__).parent / "rank_files"

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"


class EncodingFileError(RuntimeError):
    """A bundled rank file is missing or does not match its pinned hash."""


@dataclass(frozen=True)
class EncodingSpec:
    rank_file: str  # in RANK_FILES, gzip-compressed
    sha256: str  # of the decompressed file, as pinned by tiktoken
    pattern: str
    special_tokens: dict[str, int] = field(default_factory=dict)
    explicit_n_vocab: int | None = None


_R50K = dict(
    rank_file="r50k_base.tiktoken.gz",
    sha256="306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
    pattern=GPT2_PATTERN,
    special_tokens={ENDOFTEXT: 50256},
    explicit_n_vocab=50257,
)

ENCODINGS: dict[str, EncodingSpec] = {
    # gpt2's vocab.bpe/encoder.json give exactly r50k_base's ranks.
    "gpt2": EncodingSpec(**_R50K),
    "r50k_base": EncodingSpec(**_R50K),
    "cl100k_base": EncodingSpec(
        rank_file="cl100k_base.tiktoken.gz",
        sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        pattern=CL100K_PATTERN,
        special_tokens={
            ENDOFTEXT: 100257,
            FIM_PREFIX: 100258,
            FIM_MIDDLE: 100259,
            FIM_SUFFIX: 100260,
            ENDOFPROMPT: 100276,
        },
    ),
    "o200k_base": EncodingSpec(
        rank_file="o200k_base.tiktoken.gz",
        sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        pattern=O200K_PATTERN,
        special_tokens={ENDOFTEXT: 199999, ENDOFPROMPT: 200018},
    ),
}


@dataclass(frozen=True)
class About:
    """What an encoding is, in the words of a picker."""

    maker: str
    models: str
    n_vocab: int  # ids, special tokens included
    kind: str

    @property
    def label(self) -> str:
        """"Meta · Llama 4 · 202,048 tokens · byte-level BPE"."""
        return f"{self.maker} · {self.models} · {self.n_vocab:,} tokens · {self.kind}"


_BYTE_BPE = "byte-level BPE"

# The names pickers offer, in order (r50k_base is gpt2 under another name).
CATALOGUE: dict[str, About] = {
    "gpt2": About("OpenAI", "GPT-2 / GPT-3", 50_257, _BYTE_BPE),
    "cl100k_base": About("OpenAI", "GPT-3.5 / GPT-4", 100_277, _BYTE_BPE),
    "o200k_base": About("OpenAI", "GPT-4o", 200_019, _BYTE_BPE),
    **{name: About(model.maker, model.models, model.n_vocab, model.kind) for name, model in ZOO.items()},
}
ENCODING_NAMES = [*ENCODINGS, *ZOO]  # every name `load_encoding` takes


def _spec(name: str) -> EncodingSpec:
    try:
        return ENCODINGS[name]
    except KeyError:
        raise ValueError(f"Unknown encoding {name!r}; choose one of {', '.join(ENCODING_NAMES)}.") from None


@functools.cache
def load_ranks(name: str) -> dict[bytes, int]:
    """The verified mergeable ranks (token bytes -> rank) of a bundled encoding."""
    spec = _spec(name)
    path = RANK_FILES / spec.rank_file
    try:
        contents = gzip.decompress(path.read_bytes())
    except (OSError, EOFError) as error:
        raise EncodingFileError(f"Cannot read the bundled rank file {path}: {error}") from None
    digest = hashlib.sha256(contents).hexdigest()
    if digest != spec.sha256:
        raise EncodingFileError(
            f"{path} does not match its pinned SHA-256 (expected {spec.sha256}, got {digest}); "
            "the file is corrupt or was replaced."
        )
    return parse_tiktoken_ranks(contents)


@functools.cache
def tiktoken_encoding(name: str):
    """tiktoken's own `Encoding` for `name`, built offline from the bundled ranks."""
    import tiktoken

    spec = _spec(name)
    return tiktoken.Encoding(
        name,
        pat_str=spec.pattern,
        mergeable_ranks=load_ranks(name),
        special_tokens=spec.special_tokens,
        explicit_n_vocab=spec.explicit_n_vocab,
    )


@functools.cache
def load_encoding(name: str) -> Tokenizer | SentencePieceTokenizer:
    """The bundled encoding in this project's engine: the same ids as
    tiktoken; or a zoo model's tokenizer: the same ids as its maker's."""
    if name in ZOO:
        return load_zoo_encoding(name)
    spec = _spec(name)
    ranks = load_ranks(name)
    return Tokenizer(
        name=name,
        pattern=spec.pattern,
        vocab={rank: token for token, rank in ranks.items()},
        special_tokens=spec.special_tokens,
    )
