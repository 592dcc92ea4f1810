"""Every published tokenizer this project knows, by name: the one place a name resolves.

An entry says what a tokenizer is for people (its maker, the models that use
it, its size and kind), where its file comes from, how it loads and how its
chat prompt is built. Pickers, the command line, the tax lab, the atlas and
the chat page all read it here, and `load_encoding` (tiktoken's
`get_encoding`) loads a name by its entry. Adding a model is adding an entry
(and, where its file ships here, the file).

- `CATALOGUE`: name -> `Entry`, in the order pickers offer them;
- `LISTED`: the names pickers offer (not `r50k_base`, which is `gpt2` under
  another name, nor `p50k_edit`, `p50k_base` with three more special tokens);
- `load_encoding(name)`: the tokenizer, loaded once per process;
- `encoding_source(name)`: what it is read from, said without reading it;
- `chat_prompt(messages, name, tokenizer)`: a conversation as its prompt;
- tiktoken's `list_encoding_names`, `encoding_name_for_model`,
  `encoding_for_model`.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ..engine.encoding_base import EncodingBase
from . import chat, zoo
from .bundled_files import PackageFile
from .chat import ChatError, ChatPrompt, Message, Template, render_prompt
from .chat_templates import ShippedTemplate
from .openai import ENCODINGS, MODEL_PREFIX_TO_ENCODING, MODEL_TO_ENCODING, openai_encoding, rank_file_source
from .zoo import ModelPackageMissing


class Source(Protocol):
    def fingerprint(self) -> str | None:
        """What the file is, said without reading it (None: not installed here)."""


@dataclass(frozen=True)
class OpenAIRankFile:
    """One of OpenAI's rank files, shipped here and checked against tiktoken's pin."""

    encoding: str

    def fingerprint(self) -> str:
        return rank_file_source(self.encoding)


@dataclass(frozen=True)
class Entry:
    """What a name means."""

    maker: str
    known_as: str  # the models it is best known by, in a word or two (a picker's button names them)
    models: str  # the models that use it, in a few words
    n_vocab: int  # ids, special tokens included (the tests hold the loaded tokenizer to it)
    kind: str
    source: Source  # where its file comes from
    load: Callable[[str], EncodingBase]  # the name -> the tokenizer
    chat: Template | None = None  # how its models' chat prompts are built, where that is known
    variant_of: str | None = None  # a name with (nearly) the same tokens for ordinary text
    listed: bool = True  # offered by pickers

    @property
    def label(self) -> str:
        """"Meta · Llama 4 · 202,048 tokens · byte-level BPE"."""
        return f"{self.maker} · {self.models} · {self.n_vocab:,} tokens · {self.kind}"


_BYTE_BPE = "byte-level BPE"
_LLAMA_LICENCE = "Llama {} Community License Agreement (llama-models' LICENSE points to each model's licence)"
_MISTRAL_LICENCE = "Apache License 2.0 (mistral-common)"


def _openai(name: str, known_as: str, models: str, n_vocab: int, **more) -> Entry:
    return Entry(maker="OpenAI", known_as=known_as, models=models, n_vocab=n_vocab, kind=_BYTE_BPE,
                 source=OpenAIRankFile(name), load=openai_encoding, **more)


CATALOGUE: dict[str, Entry] = {
    "gpt2": _openai("gpt2", "GPT-2", "GPT-2 / GPT-3", 50_257),
    "r50k_base": _openai("r50k_base", "GPT-2", "GPT-2 / GPT-3", 50_257, variant_of="gpt2", listed=False),
    "p50k_base": _openai("p50k_base", "Codex", "Codex / text-davinci-003", 50_281, variant_of="gpt2"),
    "p50k_edit": _openai("p50k_edit", "Codex", "Codex edits", 50_284, variant_of="gpt2", listed=False),
    "cl100k_base": _openai("cl100k_base", "GPT-4", "GPT-3.5 / GPT-4", 100_277, chat=chat.OPENAI_GPT4_COUNT),
    "o200k_base": _openai("o200k_base", "GPT-4o", "GPT-4o / GPT-4.1 / GPT-5 / o-series", 200_019,
                          chat=chat.OPENAI_GPT4O_COUNT),
    "o200k_harmony": _openai("o200k_harmony", "gpt-oss", "gpt-oss (o200k_base, harmony chat tokens)", 201_088,
                             chat=chat.HARMONY, variant_of="o200k_base"),
    "llama3": Entry(
        maker="Meta", known_as="Llama 3", models="Llama 3 / 3.1 / 3.2 / 3.3", n_vocab=128_256, kind=_BYTE_BPE,
        source=PackageFile("llama-models", "llama_models/llama3/tokenizer.model", _LLAMA_LICENCE.format("3")),
        load=zoo.llama, chat=chat.LLAMA3,
    ),
    "llama4": Entry(
        maker="Meta", known_as="Llama 4", models="Llama 4", n_vocab=202_048, kind=_BYTE_BPE,
        source=PackageFile("llama-models", "llama_models/llama4/tokenizer.model", _LLAMA_LICENCE.format("4")),
        load=zoo.llama, chat=chat.LLAMA4,
    ),
    "tekken": Entry(
        maker="Mistral", known_as="Mistral NeMo", models="NeMo and later (Tekken)", n_vocab=131_072, kind=_BYTE_BPE,
        source=PackageFile("mistral-common", f"mistral_common/data/{zoo.TEKKEN_FILE}", _MISTRAL_LICENCE),
        load=zoo.tekken, chat=chat.MISTRAL_TEKKEN,
    ),
    "mistral_v3": Entry(
        maker="Mistral", known_as="Mistral v3", models="7B v0.3 / Mixtral / Codestral (v3)", n_vocab=32_768,
        kind="SentencePiece BPE with byte fallback",
        source=PackageFile("mistral-common", f"mistral_common/data/{zoo.MISTRAL_V3_FILE}", _MISTRAL_LICENCE),
        load=zoo.mistral_v3, chat=chat.MISTRAL_V3,
    ),
    "qwen": Entry(
        maker="Alibaba", known_as="Qwen", models="Qwen (as DashScope counts its tokens)", n_vocab=151_851,
        kind="byte-level BPE over NFC text", source=zoo.QWEN_FILE, load=zoo.qwen, chat=chat.CHATML_QWEN,
    ),
    "gemma3": Entry(
        maker="Google", known_as="Gemma 3", models="Gemma 3", n_vocab=262_145,
        kind="SentencePiece-style BPE with byte fallback", source=zoo.GEMMA3_FILE, load=zoo.gemma3,
        chat=Template("Gemma 3 (its tokenizer_config.json template, rendered as transformers does)",
                      ShippedTemplate(zoo.GEMMA3_CONFIG)),
    ),
    "deepseek_v3": Entry(
        maker="DeepSeek", known_as="DeepSeek-V3", models="DeepSeek-V3", n_vocab=128_815, kind=_BYTE_BPE,
        source=zoo.DEEPSEEK_V3_FILE, load=zoo.deepseek_v3,
        chat=Template("DeepSeek-V3 (its tokenizer_config.json template, rendered as transformers does)",
                      ShippedTemplate(zoo.DEEPSEEK_V3_CONFIG)),
    ),
    "whisper": Entry(
        maker="OpenAI", known_as="Whisper", models="Whisper, multilingual (speech)", n_vocab=51_866, kind=_BYTE_BPE,
        source=zoo.WHISPER_FILE, load=zoo.whisper,
    ),
    "claude_legacy": Entry(
        maker="Anthropic", known_as="Claude 1/2", models="Claude 1 / 2 only (later Claude's is unpublished)",
        n_vocab=65_000, kind="byte-level BPE over NFKC text", source=zoo.CLAUDE_LEGACY_FILE, load=zoo.claude_legacy,
    ),
}
ENCODING_NAMES = list(CATALOGUE)  # every name `load_encoding` takes
LISTED = [name for name, entry in CATALOGUE.items() if entry.listed]
CHAT_NAMES = [name for name, entry in CATALOGUE.items() if entry.chat is not None]
# One vocabulary per generation of OpenAI's models: what pages compare against by default.
OPENAI_GENERATIONS = ("gpt2", "cl100k_base", "o200k_base")


def entry(name: str) -> Entry:
    try:
        return CATALOGUE[name]
    except KeyError:
        raise ValueError(f"Unknown encoding {name!r}; choose one of {', '.join(CATALOGUE)}.") from None


# One loader per name at a time: threads that ask at once (a server's visits
# and its warm-up) share what the first one loads.
_LOADING = {name: threading.Lock() for name in CATALOGUE}


def load_encoding(name: str) -> EncodingBase:
    """A published tokenizer in this project's engine (or, for a maker whose
    algorithm differs, in the maker's): the same ids as tiktoken or as its
    maker's code. Loaded once per process; it pickles as its name."""
    about = entry(name)
    with _LOADING[name]:
        return _loaded(name, about)


@functools.cache
def _loaded(name: str, about: Entry) -> EncodingBase:
    try:
        encoding = about.load(name)
    except ModelPackageMissing as error:
        raise ModelPackageMissing(f"{name} ({about.maker} {about.models}) {error}") from None
    encoding.loaded_by = (get_encoding, (name,))  # it pickles as its name
    return encoding


load_encoding.cache_clear = _loaded.cache_clear  # forget what was loaded (as a fresh process would not have it)


get_encoding = load_encoding  # tiktoken's name


@functools.cache  # a process keeps the package it imported
def encoding_source(name: str) -> str | None:
    """What `load_encoding(name)` reads, said without reading it: the pinned
    SHA-256 of a file shipped here, or the maker's package and the version
    installed; None for a package that is not installed. Data computed once
    from a tokenizer (shipped measurements) is current while this stays the same."""
    return entry(name).source.fingerprint()


def chat_prompt(messages: Sequence[Message], name: str, tokenizer) -> ChatPrompt:
    """`messages` as the prompt of the models that use `name` (a name in
    CHAT_NAMES), encoded with that `tokenizer`."""
    template = CATALOGUE[name].chat if name in CATALOGUE else None
    if template is None:
        raise ChatError(f"No chat template for {name!r}; choose one of {', '.join(CHAT_NAMES)}.")
    return render_prompt(messages, name, template, tokenizer)


def list_encoding_names() -> list[str]:
    """OpenAI's encodings, as tiktoken lists them. Every name `get_encoding`
    takes, the zoo's too, is in `ENCODING_NAMES`."""
    return list(ENCODINGS)


def encoding_name_for_model(model_name: str) -> str:
    """The encoding an OpenAI model uses ("gpt-4o" -> "o200k_base"), by
    tiktoken's own table of models and name prefixes (`openai`); KeyError,
    with tiktoken's message, for a model it does not know."""
    if model_name in MODEL_TO_ENCODING:
        return MODEL_TO_ENCODING[model_name]
    for prefix, encoding_name in MODEL_PREFIX_TO_ENCODING.items():
        if model_name.startswith(prefix):
            return encoding_name
    raise KeyError(
        f"Could not automatically map {model_name} to a tokeniser. "
        "Please use `tiktoken.get_encoding` to explicitly get the tokeniser you expect."
    )


def encoding_for_model(model_name: str) -> EncodingBase:
    """`get_encoding(encoding_name_for_model(model_name))`."""
    return get_encoding(encoding_name_for_model(model_name))
