"""Every encoding `load_encoding` (tiktoken's `get_encoding`) knows by name:
the OpenAI vocabularies, shipped with the project and verified, and the
model zoo (`zoo`), read from its makers' packages. Nothing is ever
downloaded.

tiktoken fetches its rank files from the internet on first use, which fails
offline (a conference hall, a CI runner). The official files are bundled in
`files/` (gzip-compressed) and checked against the SHA-256 that tiktoken
itself pins before anything uses them. Patterns and special tokens are
tiktoken's own (`tiktoken_ext/openai_public.py`).

- `tiktoken_encoding(name)`: a real `tiktoken.Encoding`, the reference.
- `load_encoding(name)`, alias `get_encoding`: the same ranks in this
  project's engine, giving identical ids, plus what the playground needs
  (offsets, merges, steps); for a zoo name, that model's tokenizer.
- `Encoding(name, pat_str=..., mergeable_ranks=..., special_tokens=...)`:
  tiktoken's constructor, for ranks of one's own.
- `list_encoding_names()`, `encoding_name_for_model(model)`,
  `encoding_for_model(model)`: tiktoken's functions of the same names.
- `CATALOGUE`: what each name is (maker, models, vocabulary size), said
  without loading anything, for pickers and help texts.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..engine.patterns import CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN
from ..engine.tokenizer import Tokenizer
from ..formats.tiktoken_file import parse_pinned_ranks
from .bundled_files import BUNDLED_DIR, read_checked
from .sentencepiece_model import SentencePieceTokenizer
from .zoo import ZOO, load_zoo_encoding, zoo_source

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


@dataclass(frozen=True)
class About:
    """What an encoding is, in the words of a picker."""

    maker: str
    models: str
    n_vocab: int  # ids, special tokens included
    kind: str
    variant_of: str | None = None  # an encoding with (nearly) the same tokens for ordinary text

    @property
    def label(self) -> str:
        """"Meta · Llama 4 · 202,048 tokens · byte-level BPE"."""
        return f"{self.maker} · {self.models} · {self.n_vocab:,} tokens · {self.kind}"


_BYTE_BPE = "byte-level BPE"

# The names pickers offer, in order (r50k_base is gpt2 under another name,
# p50k_edit is p50k_base with three more special tokens).
CATALOGUE: dict[str, About] = {
    "gpt2": About("OpenAI", "GPT-2 / GPT-3", 50_257, _BYTE_BPE),
    "p50k_base": About("OpenAI", "Codex / text-davinci-003", 50_281, _BYTE_BPE, variant_of="gpt2"),
    "cl100k_base": About("OpenAI", "GPT-3.5 / GPT-4", 100_277, _BYTE_BPE),
    "o200k_base": About("OpenAI", "GPT-4o / GPT-4.1 / GPT-5 / o-series", 200_019, _BYTE_BPE),
    "o200k_harmony": About("OpenAI", "gpt-oss (o200k_base, harmony chat tokens)", 201_088, _BYTE_BPE,
                           variant_of="o200k_base"),
    **{name: About(model.maker, model.models, model.n_vocab, model.kind) for name, model in ZOO.items()},
}
ENCODING_NAMES = [*ENCODINGS, *ZOO]  # every name `load_encoding` takes
# One vocabulary per generation of OpenAI's models: what pages compare against by default.
OPENAI_GENERATIONS = ("gpt2", "cl100k_base", "o200k_base")


def _spec(name: str) -> EncodingSpec:
    try:
        return ENCODINGS[name]
    except KeyError:
        raise ValueError(f"Unknown encoding {name!r}; choose one of {', '.join(ENCODING_NAMES)}.") from None


def load_ranks(name: str) -> dict[bytes, int]:
    """The verified mergeable ranks (token bytes -> rank) of a bundled encoding."""
    spec = _spec(name)
    return _verified_ranks(spec.rank_file, spec.sha256)


@functools.cache
def _verified_ranks(rank_file: str, sha256: str) -> dict[bytes, int]:
    """A bundled rank file, read once however many encodings share it."""
    rebuild = "Restore it from the project's repository (p50k_base's: bpe_core/vocabularies/files/rebuild_p50k.py)."
    return parse_pinned_ranks(read_checked(BUNDLED_DIR / rank_file, sha256, rebuild))


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


class Encoding(Tokenizer):
    """tiktoken's `Encoding`, by its constructor, in this engine: byte-level
    BPE over the ranks given (token bytes -> rank, which is the token's id),
    split by `pat_str`, with `special_tokens` (text -> id). With
    `explicit_n_vocab`, the ranks and special tokens must number exactly
    that many ids, as tiktoken checks."""

    def __init__(
        self,
        name: str,
        *,
        pat_str: str,
        mergeable_ranks: Mapping[bytes, int],
        special_tokens: Mapping[str, int],
        explicit_n_vocab: int | None = None,
    ):
        if explicit_n_vocab is not None:
            ids = len(mergeable_ranks) + len(special_tokens)
            largest = max([*mergeable_ranks.values(), *special_tokens.values()], default=-1)
            if ids != explicit_n_vocab or largest != explicit_n_vocab - 1:
                raise ValueError(
                    f"explicit_n_vocab is {explicit_n_vocab:,}, but the ranks and special tokens hold "
                    f"{ids:,} ids, the largest {largest:,}."
                )
        super().__init__(
            name=name,
            pattern=pat_str,
            vocab={rank: token for token, rank in mergeable_ranks.items()},
            special_tokens=special_tokens,
            ranks=mergeable_ranks if isinstance(mergeable_ranks, dict) else None,  # a bundled file's: shared
        )
        self.explicit_n_vocab = explicit_n_vocab

    def _arguments(self) -> dict:
        return dict(
            name=self.name, pat_str=self.pattern, mergeable_ranks=dict(self.mergeable_ranks),
            special_tokens=self.special_tokens, explicit_n_vocab=self.explicit_n_vocab,
        )


@functools.cache
def load_encoding(name: str) -> Tokenizer | SentencePieceTokenizer:
    """The bundled encoding in this project's engine: the same ids as
    tiktoken; or a zoo model's tokenizer: the same ids as its maker's.
    Loaded once per process; it pickles as its name."""
    if name in ZOO:
        encoding = load_zoo_encoding(name)
    else:
        spec = _spec(name)
        encoding = Encoding(
            name,
            pat_str=spec.pattern,
            mergeable_ranks=load_ranks(name),
            special_tokens=spec.special_tokens,
            explicit_n_vocab=spec.explicit_n_vocab,
        )
    encoding.loaded_by = (get_encoding, (name,))  # it pickles as its name
    return encoding


get_encoding = load_encoding  # tiktoken's name


def encoding_source(name: str) -> str | None:
    """What `load_encoding(name)` reads, said without reading it: the pinned
    SHA-256 of an OpenAI rank file, or a zoo model's (see `zoo_source`);
    None for a zoo model whose package is not installed."""
    return zoo_source(name) if name in ZOO else f"sha256:{_spec(name).sha256}"


def list_encoding_names() -> list[str]:
    """OpenAI's encodings, as tiktoken lists them. Every name `get_encoding`
    takes, the zoo's too, is in `ENCODING_NAMES`."""
    return list(ENCODINGS)


def encoding_name_for_model(model_name: str) -> str:
    """The encoding an OpenAI model uses ("gpt-4o" -> "o200k_base"), by
    tiktoken's own table of models and name prefixes; KeyError for a model
    it does not know."""
    from tiktoken.model import encoding_name_for_model as tiktokens_table

    return tiktokens_table(model_name)


def encoding_for_model(model_name: str) -> Tokenizer:
    """`get_encoding(encoding_name_for_model(model_name))`."""
    return get_encoding(encoding_name_for_model(model_name))
