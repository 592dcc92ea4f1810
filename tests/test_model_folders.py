"""Any Hugging Face model folder: brought as a folder, a .zip, its files
together or a model id in the local Hugging Face cache, it counts as
transformers counts, and bad input ends in one line.

Quick tests use a small folder made here with Hugging Face's own trainer;
the slow ones, folders transformers saves (`save_pretrained`) of Gemma 3
and DeepSeek V3, held to transformers' ids and to the zoo's."""

import io
import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
import tokenizers

from bpe_core import load_encoding
from bpe_core.engine.patterns import PatternError
from bpe_core.formats.hf_folder import folder_from_files, read_folder, read_zip
from bpe_core.formats.reading import TokenizerFileError
from bpe_core.vocabularies.chat import Message, render_prompt
from bpe_core.vocabularies.model_folders import HuggingFaceTokenizer, tokenizer_from_folder
from pages.common.widgets import DEMO_TEXT
from tests.apptest import all_html, messages, metric, open_page
from tests.cli import run_cli
from tests.conftest import ROOT
from tests.test_zoo_hf_files import PARALLEL, transformers_folder

TEMPLATE = ("{{ bos_token }}{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{{ eos_token }}{% endfor %}"
            "{% if add_generation_prompt %}<|assistant|>{% endif %}")


@pytest.fixture(autouse=True)
def no_hosts_left():
    """A visitor's tokenizer is held in a host process (`sandbox.hosts`):
    each test ends its own, so that no later test finds processes it did not start."""
    yield
    from bpe_core.sandbox import hosts

    hosts.HOSTS.close()


def small_folder(path: Path, template: str | None = TEMPLATE, kind: str = "byte-level") -> Path:
    """A model folder as transformers saves one: a tokenizer trained by
    Hugging Face on a little text, with special tokens and a chat template."""
    from tokenizers import decoders, models, normalizers, pre_tokenizers, trainers

    specials = ["<s>", "</s>", "<|user|>", "<|assistant|>", "<|system|>"]
    if kind == "byte-level":
        tokenizer = tokenizers.Tokenizer(models.BPE())
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tokenizer.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=specials,
                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    else:  # a WordPiece tokenizer that lowercases: nothing this engine runs itself
        tokenizer = tokenizers.Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
        tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tokenizer.decoder = decoders.WordPiece()
        trainer = trainers.WordPieceTrainer(vocab_size=300, special_tokens=["[UNK]", *specials])
    tokenizer.train_from_iterator(PARALLEL[:6] * 2, trainer)
    path.mkdir(parents=True, exist_ok=True)
    (path / "tokenizer.json").write_text(tokenizer.to_str(), encoding="utf-8")
    config = {"bos_token": "<s>", "eos_token": "</s>", "tokenizer_class": "PreTrainedTokenizerFast"}
    if template is not None:
        config["chat_template"] = template
    (path / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return path


def zipped(folder: Path, inside: str = "model") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in folder.iterdir():
            archive.write(file, f"{inside}/{file.name}")
    return buffer.getvalue()


@pytest.mark.parametrize("kind", ["byte-level", "wordpiece"])
def test_a_folder_counts_as_hugging_face_and_its_spans_cover_the_text(tmp_path, kind):
    folder = small_folder(tmp_path / kind, kind=kind)
    tokenizer = tokenizer_from_folder(read_folder(folder))
    reference = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    for text in PARALLEL[:10] + ["<s>hi</s> <|user|>x", "  spaces\n\n\ttabs ", "", "é e\u0301 字 👍🏽"]:
        ids = tokenizer.encode(text, allowed_special="all")
        assert ids == reference.encode(text, add_special_tokens=False).ids, text[:30]
        spans = tokenizer.encode_with_offsets(text, allowed_special="all")
        assert [span.id for span in spans] == ids
        assert all(0 <= span.start <= span.end <= len(text.encode()) for span in spans)
        assert [span.start for span in spans] == sorted(span.start for span in spans)
    with pytest.raises(ValueError, match="disallowed special token"):
        tokenizer.encode("a<s>b")
    assert "<s>" not in [tokenizer.decode([token]) for token in tokenizer.encode_ordinary("a<s>b")]


def test_a_zip_a_folders_files_together_and_the_folder_itself_are_the_same_model(tmp_path):
    folder = small_folder(tmp_path / "model")
    from_folder = read_folder(folder)
    from_zip = read_zip("model.zip", zipped(folder, inside="deep/er/model"))
    together = folder_from_files("uploaded", {file.name: file.read_bytes() for file in folder.iterdir()})
    for other in (from_zip, together):
        assert (other.tokenizer_json, other.config, other.chat_template) == \
            (from_folder.tokenizer_json, from_folder.config, from_folder.chat_template)
    (folder / "chat_template.jinja").write_text("{{ 'newer' }}", encoding="utf-8")  # as newer transformers save it
    assert read_folder(folder).chat_template == "{{ 'newer' }}"


def test_a_folders_chat_template_renders_and_counts(tmp_path):
    tokenizer = tokenizer_from_folder(read_folder(small_folder(tmp_path / "model")))
    messages = [Message("system", "Be brief."), Message("user", "Héllo <|user|>")]
    prompt = render_prompt(messages, tokenizer.name, tokenizer.chat, tokenizer)
    assert prompt.text == "<s><|system|>Be brief.</s><|user|>Héllo <|user|></s><|assistant|>"
    assert prompt.ids == tokenizer.encode(prompt.text, allowed_special="all")
    assert [part.text for part in prompt.parts if part.kind == "text"] == ["Be brief.", "Héllo "]


@pytest.mark.parametrize("files, message", [
    ({"tokenizer_config.json": b"{}"}, "has no tokenizer.json"),
    ({"tokenizer.json": b"\xff\xfe"}, "not UTF-8"),
    ({"tokenizer.json": b"{}", "tokenizer_config.json": b"[1, 2]"}, "not an object"),
    ({"tokenizer.json": b"{}", "tokenizer_config.json": b"{nope"}, "not valid JSON"),
])
def test_a_folder_that_cannot_be_read_says_why_in_one_line(files, message):
    with pytest.raises(TokenizerFileError, match=message) as raised:
        folder_from_files("folder", files)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("document, message", [
    ('{"model": {"type": "BPE", "vocab": 5}}', "tokenizers cannot load it"),
    ("not json at all", "tokenizers cannot load it"),
])
def test_a_tokenizer_json_tokenizers_refuses_is_one_line(document, message):
    with pytest.raises(TokenizerFileError, match=message) as raised:
        tokenizer_from_folder(folder_from_files("folder", {"tokenizer.json": document.encode()}))
    assert "\n" not in str(raised.value)


def test_a_zip_that_is_no_zip_or_holds_no_tokenizer_or_unpacks_too_far_is_one_line(tmp_path):
    with pytest.raises(TokenizerFileError, match="not a readable .zip"):
        read_zip("model.zip", b"PK\x03\x04 not really")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("model/README.md", "no tokenizer here")
    with pytest.raises(TokenizerFileError, match="has no tokenizer.json"):
        read_zip("model.zip", buffer.getvalue())
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("model/tokenizer.json", b" " * 60_000_000)  # 60 MB of nothing, zipped to a few KB
    assert len(buffer.getvalue()) < 1_000_000
    with pytest.raises(TokenizerFileError, match="the limit is 50 MB"):
        read_zip("model.zip", buffer.getvalue())


def test_a_zip_of_a_great_many_files_is_refused_before_they_are_read():
    """A 20 MB upload can list 240,000 empty files, whose entries alone
    `zipfile` takes half a minute and 240 MB to read: the archive's own
    count, in its end record, is read first."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for number in range(10_001):
            archive.writestr(f"model/{number}", b"")
        archive.writestr("model/tokenizer.json", b"{}")
    with pytest.raises(TokenizerFileError, match="holds 10,002 files; a model folder's .zip holds at most 10,000"):
        read_zip("model.zip", buffer.getvalue())


def test_a_tokenizer_json_whose_regex_backtracks_is_refused_within_bounds(tmp_path):
    """Oniguruma gives up on a match that backtracks too long: the probe's
    sample text shows it, and so would any other text, in one line."""
    folder = small_folder(tmp_path / "model")
    document = json.loads((folder / "tokenizer.json").read_text())
    document["pre_tokenizer"] = {"type": "Split", "pattern": {"Regex": "(a|aa)+$"}, "behavior": "Isolated",
                                 "invert": False}
    started = time.monotonic()
    with pytest.raises(TokenizerFileError, match="gave up encoding a short text") as raised:
        tokenizer_from_folder(folder_from_files("slow", {"tokenizer.json": json.dumps(document).encode()}))
    assert "\n" not in str(raised.value)
    unprobed = tokenizer_from_folder(folder_from_files("slow", {"tokenizer.json": json.dumps(document).encode()}),
                                     probe=False)
    with pytest.raises(PatternError, match="backtracks too long"):
        unprobed.encode("a" * 5_000 + "b")
    assert time.monotonic() - started < 60


def test_the_command_line_takes_a_folder_and_a_zip(tmp_path):
    folder = small_folder(tmp_path / "model")
    (tmp_path / "model.zip").write_bytes(zipped(folder))
    text = tmp_path / "text.txt"
    text.write_text("Héllo wörld, 12345!", encoding="utf-8")
    expected = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json")).encode(text.read_text()).ids
    for source in (folder, tmp_path / "model.zip"):
        code, out, err = run_cli("encode", "--tokenizer", source, "--json", text)
        assert code == 0, err
        assert json.loads(out) == expected


@pytest.mark.slow  # two fresh processes
def test_the_command_line_takes_a_model_id_in_the_local_hugging_face_cache_offline(tmp_path):
    folder = small_folder(tmp_path / "model")
    cache = tmp_path / "hub" / "models--acme--tiny"
    revision = "0123456789abcdef0123456789abcdef01234567"
    (cache / "refs").mkdir(parents=True)
    (cache / "refs" / "main").write_text(revision)
    snapshot = cache / "snapshots" / revision
    snapshot.mkdir(parents=True)
    for file in folder.iterdir():
        (snapshot / file.name).write_bytes(file.read_bytes())
    text = tmp_path / "text.txt"
    text.write_text("Héllo wörld, 12345!", encoding="utf-8")
    expected = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json")).encode(text.read_text()).ids
    # huggingface_hub reads where its cache is when it is imported: a fresh process, as a user runs it
    environment = {**os.environ, "HF_HUB_CACHE": str(tmp_path / "hub"), "HF_HUB_OFFLINE": "1"}
    command = [sys.executable, "-m", "bpe_core", "encode", "--json", "--tokenizer"]
    found = subprocess.run([*command, "acme/tiny", str(text)], capture_output=True, text=True, env=environment,
                           cwd=ROOT, check=False)
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout) == expected
    missing = subprocess.run([*command, "acme/other", str(text)], capture_output=True, text=True, env=environment,
                             cwd=ROOT, check=False)
    assert missing.returncode == 1 and "not in the local Hugging Face cache" in missing.stderr
    assert missing.stderr.count("\n") == 1


def test_the_command_line_shows_a_folders_chat_prompt_and_refuses_bad_folders_in_one_line(tmp_path):
    conversation = tmp_path / "chat.json"
    conversation.write_text(json.dumps([{"role": "user", "content": "hi"}]), encoding="utf-8")
    code, out, _ = run_cli("chat", conversation, "--tokenizer", small_folder(tmp_path / "model"), "--json")
    assert code == 0 and json.loads(out)["text"] == "<s><|user|>hi</s><|assistant|>"
    (tmp_path / "empty").mkdir()
    for folder, message in [(tmp_path / "empty", "has no tokenizer.json"),
                            (small_folder(tmp_path / "plain", template=None), "has no chat template"),
                            (small_folder(tmp_path / "raising", template="{{ raise_exception('no!') }}"), "no!")]:
        code, _, err = run_cli("chat", conversation, "--tokenizer", folder)
        assert code == 1 and err.startswith("error: ") and message in err and err.count("\n") == 1


@pytest.mark.slow
@pytest.mark.parametrize("name", ["gemma3", "deepseek_v3"])
def test_a_folder_saved_by_transformers_loads_and_counts_the_same(tmp_path, name):
    reference = transformers_folder(name)
    reference.save_pretrained(tmp_path)
    tokenizer = tokenizer_from_folder(read_folder(tmp_path), probe=False)
    assert isinstance(tokenizer, HuggingFaceTokenizer)
    zoo = load_encoding(name)
    for text in PARALLEL:
        ids = tokenizer.encode(text, allowed_special="all")
        assert ids == zoo.encode(text, allowed_special="all") == reference.encode(text, add_special_tokens=False)
    messages = [Message("system", "Sé breve."), Message("user", "Hi <end_of_turn> <｜User｜>")]
    turns = [{"role": message.role, "content": message.content} for message in messages]
    prompt = render_prompt(messages, name, tokenizer.chat, tokenizer)
    assert prompt.ids == reference.apply_chat_template(turns, add_generation_prompt=True, tokenize=True)["input_ids"]


# ------------------------------------------------------------------ pages


def test_inspect_takes_a_zipped_folder_or_its_files_together(tmp_path):
    folder = small_folder(tmp_path / "model")
    reference = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    at = open_page("pages/inspect.py", inspect_upload_open=True)
    at.file_uploader(key="inspect_upload").upload("model.zip", zipped(folder), "application/zip").run()
    assert not at.exception and any("Loaded “model.zip”" in success for success in messages(at.success))
    assert at.selectbox(key="inspect_tokenizer").value == "loaded: model.zip"
    assert metric(at, "Tokens") == f"{len(reference.encode(DEMO_TEXT, add_special_tokens=False).ids):,}"  # the page's text
    at = open_page("pages/inspect.py", inspect_upload_open=True)
    uploader = at.file_uploader(key="inspect_upload")
    for file in folder.iterdir():
        uploader.upload(file.name, file.read_bytes(), "application/json")
    uploader.run()
    assert not at.exception
    assert at.selectbox(key="inspect_tokenizer").value == "loaded: tokenizer.json + tokenizer_config.json"
    assert 'class="bpe-tok' in all_html(at)


def test_a_zip_without_a_tokenizer_is_a_message_and_the_picker_keeps_its_choice(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("model/tokenizer_config.json", "{}")
    at = open_page("pages/inspect.py", inspect_upload_open=True)
    at.file_uploader(key="inspect_upload").upload("model.zip", buffer.getvalue(), "application/zip").run()
    assert any("Cannot use “model.zip”" in error and "has no tokenizer.json" in error for error in messages(at.error))
    assert at.selectbox(key="inspect_tokenizer").value == "cl100k_base"
    assert not at.exception


@pytest.mark.parametrize(("path", "key"), [(None, "home_tokenizer"), ("pages/inspect.py", "inspect_tokenizer"),
                                           ("pages/vocabulary.py", "vocab_tokenizer"), ("pages/replay.py", "replay_tokenizer")])
def test_every_page_with_a_tokenizer_picker_shows_a_folders_tokenizer_or_says_why_not(tmp_path, path, key):
    folder = read_folder(small_folder(tmp_path / "model", kind="wordpiece"))
    tokenizer = HuggingFaceTokenizer(name="model", tokenizer_json=folder.tokenizer_json, untrusted=True)  # in its host
    at = open_page(path, loaded_tokenizers={"model.zip": tokenizer})
    at.selectbox(key=key).set_value("loaded: model.zip").run()
    assert not at.exception, [error.value for error in at.exception]
    if path == "pages/replay.py":
        assert any("no replay to show" in info for info in messages(at.info))
    elif path == "pages/vocabulary.py":
        assert metric(at, "Tokens") == f"{len(tokenizer.vocab) + len(tokenizer.special_tokens):,}"
    else:
        assert 'class="bpe-tok' in all_html(at)
