"""OpenAI's vocabularies, shipped with the project and verified.

tiktoken fetches its rank files from the internet on first use, which fails
offline (a conference hall, a CI runner). The official files ship in
`files/` (gzip-compressed) and are checked against the SHA-256 that tiktoken
itself pins before anything uses them. Patterns and special tokens are
tiktoken's own (`tiktoken_ext/openai_public.py`).

- `openai_encoding(name)`: the vocabulary in this project's engine, giving
  tiktoken's ids plus what the playground needs (offsets, merges, steps);
- `tiktoken_encoding(name)`: a real `tiktoken.Encoding` over the same ranks;
- `load_ranks(name)`: the verified ranks themselves (`rank_file_contents(name)`: the file);
- `MODEL_TO_ENCODING`, `MODEL_PREFIX_TO_ENCODING`: which encoding each of
  OpenAI's models uses, as tiktoken's own table says.

Which names exist and what each is for people is said in `catalogue`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from ..engine.encoding import Encoding
from ..engine.patterns import CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN
from ..engine.real_tiktoken import TiktokenEncoding
from ..formats.tiktoken_file import parse_pinned_ranks
from .bundled_files import BUNDLED_DIR, read_checked

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"


@dataclass(frozen=True)
class EncodingSpec:
    rank_file: str  # in BUNDLED_DIR, gzip-compressed
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
# GPT-3's Codex vocabulary: r50k_base and 24 runs of spaces (rebuilt by files/rebuild_p50k.py).
_P50K = dict(
    rank_file="p50k_base.tiktoken.gz",
    sha256="94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
    pattern=GPT2_PATTERN,
)
_O200K = dict(
    rank_file="o200k_base.tiktoken.gz",
    sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    pattern=O200K_PATTERN,
)
# gpt-oss's harmony chat format: o200k_base's ranks, its own special tokens.
HARMONY_SPECIAL_TOKENS = {
    "<|startoftext|>": 199998,
    ENDOFTEXT: 199999,
    "<|reserved_200000|>": 200000,
    "<|reserved_200001|>": 200001,
    "<|return|>": 200002,
    "<|constrain|>": 200003,
    "<|reserved_200004|>": 200004,
    "<|channel|>": 200005,
    "<|start|>": 200006,
    "<|end|>": 200007,
    "<|message|>": 200008,
    "<|reserved_200009|>": 200009,
    "<|reserved_200010|>": 200010,
    "<|reserved_200011|>": 200011,
    "<|call|>": 200012,
    ENDOFPROMPT: 200018,  # as in o200k_base; "<|reserved_200018|>" below is the same id
} | {f"<|reserved_{token_id}|>": token_id for token_id in range(200013, 201088)}

ENCODINGS: dict[str, EncodingSpec] = {
    # gpt2's vocab.bpe/encoder.json give exactly r50k_base's ranks.
    "gpt2": EncodingSpec(**_R50K),
    "r50k_base": EncodingSpec(**_R50K),
    "p50k_base": EncodingSpec(**_P50K, special_tokens={ENDOFTEXT: 50256}, explicit_n_vocab=50281),
    "p50k_edit": EncodingSpec(
        **_P50K, special_tokens={ENDOFTEXT: 50256, FIM_PREFIX: 50281, FIM_MIDDLE: 50282, FIM_SUFFIX: 50283}
    ),
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
    "o200k_base": EncodingSpec(**_O200K, special_tokens={ENDOFTEXT: 199999, ENDOFPROMPT: 200018}),
    "o200k_harmony": EncodingSpec(**_O200K, special_tokens=HARMONY_SPECIAL_TOKENS),
}

# Which encoding each OpenAI model uses: tiktoken 0.14.0's tables (tiktoken/model.py, MIT), as data of
# this package's own, so that the name `tiktoken` may be bpe_core itself (see `engine.real_tiktoken`). A model
# is looked up by its exact name, then by the first prefix it starts with; the tests hold both tables
# equal to the installed tiktoken's.
MODEL_TO_ENCODING: dict[str, str] = {
    # reasoning
    "o1": "o200k_base",
    "o3": "o200k_base",
    "o4-mini": "o200k_base",
    # chat
    "gpt-5": "o200k_base",
    "gpt-4.1": "o200k_base",
    "gpt-4o": "o200k_base",
    "gpt-4": "cl100k_base",
    "gpt-3.5-turbo": "cl100k_base",
    "gpt-3.5": "cl100k_base",
    "gpt-35-turbo": "cl100k_base",  # Azure's name
    # base
    "davinci-002": "cl100k_base",
    "babbage-002": "cl100k_base",
    # embeddings
    "text-embedding-ada-002": "cl100k_base",
    "text-embedding-3-small": "cl100k_base",
    "text-embedding-3-large": "cl100k_base",
    # deprecated text, code, edit and embedding models
    "text-davinci-003": "p50k_base",
    "text-davinci-002": "p50k_base",
    "text-davinci-001": "r50k_base",
    "text-curie-001": "r50k_base",
    "text-babbage-001": "r50k_base",
    "text-ada-001": "r50k_base",
    "davinci": "r50k_base",
    "curie": "r50k_base",
    "babbage": "r50k_base",
    "ada": "r50k_base",
    "code-davinci-002": "p50k_base",
    "code-davinci-001": "p50k_base",
    "code-cushman-002": "p50k_base",
    "code-cushman-001": "p50k_base",
    "davinci-codex": "p50k_base",
    "cushman-codex": "p50k_base",
    "text-davinci-edit-001": "p50k_edit",
    "code-davinci-edit-001": "p50k_edit",
    "text-similarity-davinci-001": "r50k_base",
    "text-similarity-curie-001": "r50k_base",
    "text-similarity-babbage-001": "r50k_base",
    "text-similarity-ada-001": "r50k_base",
    "text-search-davinci-doc-001": "r50k_base",
    "text-search-curie-doc-001": "r50k_base",
    "text-search-babbage-doc-001": "r50k_base",
    "text-search-ada-doc-001": "r50k_base",
    "code-search-babbage-code-001": "r50k_base",
    "code-search-ada-code-001": "r50k_base",
    # open source
    "gpt2": "gpt2",
    "gpt-2": "gpt2",
}
MODEL_PREFIX_TO_ENCODING: dict[str, str] = {  # tried in this order
    "o1-": "o200k_base",
    "o3-": "o200k_base",
    "o4-mini-": "o200k_base",
    "gpt-5": "o200k_base",
    "gpt-4.5-": "o200k_base",
    "gpt-4.1-": "o200k_base",
    "chatgpt-4o-": "o200k_base",
    "gpt-4o-": "o200k_base",  # gpt-4o-2024-05-13
    "gpt-4-": "cl100k_base",  # gpt-4-0314, gpt-4-32k
    "gpt-3.5-turbo-": "cl100k_base",
    "gpt-35-turbo-": "cl100k_base",  # Azure's name
    "gpt-oss-": "o200k_harmony",
    # fine-tuned
    "ft:gpt-4o": "o200k_base",
    "ft:gpt-4": "cl100k_base",
    "ft:gpt-3.5-turbo": "cl100k_base",
    "ft:davinci-002": "cl100k_base",
    "ft:babbage-002": "cl100k_base",
}


def _spec(name: str) -> EncodingSpec:
    try:
        return ENCODINGS[name]
    except KeyError:
        raise ValueError(f"{name!r} is not one of OpenAI's encodings ({', '.join(ENCODINGS)}).") from None


def load_ranks(name: str) -> dict[bytes, int]:
    """The verified mergeable ranks (token bytes -> rank) of a bundled encoding."""
    spec = _spec(name)
    return _verified_ranks(spec.rank_file, spec.sha256)


def rank_file_contents(name: str) -> bytes:
    """The bundled rank file of an encoding, decompressed and checked
    against tiktoken's pin: the very file tiktoken downloads for it."""
    spec = _spec(name)
    return _checked(spec.rank_file, spec.sha256)


@functools.cache
def _verified_ranks(rank_file: str, sha256: str) -> dict[bytes, int]:
    """A bundled rank file, read once however many encodings share it."""
    return parse_pinned_ranks(_checked(rank_file, sha256))


def _checked(rank_file: str, sha256: str) -> bytes:
    rebuild = "Restore it from the project's repository (p50k_base's: bpe_core/vocabularies/files/rebuild_p50k.py)."
    return read_checked(BUNDLED_DIR / rank_file, sha256, rebuild)


def _constructor_arguments(name: str) -> dict:
    """What tiktoken's `Encoding` constructor takes for `name`, ranks verified."""
    spec = _spec(name)
    return dict(pat_str=spec.pattern, mergeable_ranks=load_ranks(name), special_tokens=spec.special_tokens,
                explicit_n_vocab=spec.explicit_n_vocab)


@functools.cache
def tiktoken_encoding(name: str):
    """tiktoken's own `Encoding` for `name`, built offline from the bundled ranks."""
    return TiktokenEncoding(name, **_constructor_arguments(name))


def openai_encoding(name: str) -> Encoding:
    """The bundled encoding in this project's engine: the same ids as tiktoken."""
    return Encoding(name, **_constructor_arguments(name))


def rank_file_source(name: str) -> str:
    """What `openai_encoding(name)` reads, said without reading it: the
    rank file's pinned SHA-256."""
    return f"sha256:{_spec(name).sha256}"
