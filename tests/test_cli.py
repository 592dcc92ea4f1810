"""The command line does what its --help says, and fails with one clear line."""

import json
import subprocess
import sys

import pytest

from bpe_core import train
from bpe_core.formats import hf_tokenizer_json, tiktoken_file_text, tokenizer_to_json
from tests.cli import run_cli as run
from tests.conftest import ROOT
from tests.tiktoken_oracle import tiktokens_own


@pytest.fixture
def text_file(tmp_path):
    path = tmp_path / "text.txt"
    path.write_text("Hello world! Tokenizers split text into pieces. " * 30, encoding="utf-8")
    return path


def test_train_encode_decode_round_trip(tmp_path, text_file):
    model = tmp_path / "tok.json"
    code, _, err = run("train", text_file, "--vocab-size", 280, "--pattern", "gpt2", "-o", model)
    assert code == 0, err
    assert "learned 24 merges" in err
    code, out, _ = run("encode", "--tokenizer", model, "--json", text_file)
    ids = json.loads(out)
    assert len(ids) < len(text_file.read_bytes())
    code, out, _ = run("decode", "--tokenizer", model, stdin=json.dumps(ids).encode())
    assert code == 0
    assert out.rstrip("\n") == text_file.read_text()


def test_tokenizer_reads_every_format_the_app_uploads(tmp_path, text_file):
    trained = train(text_file.read_text(), vocab_size=300, pattern="gpt2", special_tokens=["<|end|>"])
    files = {"tok.json": tokenizer_to_json(trained), "tokenizer.json": hf_tokenizer_json(trained),
             "tok.tiktoken": tiktoken_file_text(trained)}
    expected = trained.encode_ordinary(text_file.read_text())
    for file_name, contents in files.items():
        (tmp_path / file_name).write_text(contents, encoding="utf-8")
        code, out, err = run("encode", "--tokenizer", tmp_path / file_name, "--rank-file-pattern", "gpt2", "--json",
                             text_file)
        assert (code, json.loads(out or "null")) == (0, expected), (file_name, err)
    code, out, err = run("compare", text_file, "--tokenizer", tmp_path / "tok.tiktoken",
                         "--tokenizer", tmp_path / "tokenizer.json", "--rank-file-pattern", "gpt2", "--json")
    assert (code, set(json.loads(out).values())) == (0, {len(expected)}), err


def test_encode_with_a_bundled_encoding_matches_tiktoken(text_file):
    code, out, _ = run("encode", "--encoding", "cl100k_base", text_file)
    assert code == 0
    assert list(map(int, out.split())) == tiktokens_own("cl100k_base").encode(text_file.read_text())


def test_decode_ids_given_as_arguments():
    code, out, _ = run("decode", "--encoding", "gpt2", "15496", "995")
    assert (code, out) == (0, "Hello world\n")


def test_train_says_when_it_stopped_early(tmp_path):
    code, _, err = run("train", "-", "--vocab-size", 1000, "-o", tmp_path / "t.json", stdin=b"abcd")
    assert code == 0
    assert "stopped early: no adjacent pair is left to merge after 3 merges" in err


def test_train_on_word_counts(tmp_path):
    counts = tmp_path / "words.json"
    counts.write_text(json.dumps({"low": 5, "lower": 2, "newest": 6, "widest": 3}))
    code, _, err = run("train", counts, "--merges", 4, "--pattern", "none", "-o", tmp_path / "t.json")
    assert code == 0, err
    saved = json.loads((tmp_path / "t.json").read_text())
    assert saved["merges"][0] == [ord("e"), ord("s")]


def test_compare_reports_counts_per_tokenizer(text_file):
    code, out, _ = run("compare", text_file, "--with", "gpt2", "--with", "o200k_base", "--json")
    assert code == 0
    counts = json.loads(out)
    text = text_file.read_text()
    assert counts == {name: len(tiktokens_own(name).encode(text)) for name in ("gpt2", "o200k_base")}
    code, out, _ = run("compare", text_file, "--with", "gpt2")
    assert "bytes/token" in out and "gpt2" in out


@pytest.mark.parametrize(
    "args, stdin, message",
    [
        (["encode", "--encoding", "gpt2", "missing.txt"], b"", "cannot read missing.txt"),
        (["encode", "--encoding", "gpt2"], b"\xff\xfe bad", "not UTF-8 text (byte 0xff at offset 0)"),
        (["encode", "--encoding", "gpt2"], b"a<|endoftext|>", "--allow-special"),
        (["decode", "--encoding", "gpt2", "99999999"], b"", "ids run from 0 to 50256"),
        (["decode", "--encoding", "gpt2", "abc"], b"", "must be whole numbers"),
        (["decode", "--encoding", "gpt2", "[15496.9, true]"], b"", "must be whole numbers"),
        (["train", "-", "--vocab-size", "100", "-o", "x.json"], b"text", "at least 256"),
        (["train", "-", "--vocab-size", "300", "-o", "x.json"], b"", "empty"),
        (["train", "-", "--merges", "3", "--pattern", "(", "-o", "x.json"], b"ab", "not a valid regular expression"),
        (["encode", "--tokenizer", "tests/texts.py"], b"x", "Not a .tiktoken rank file: Line 1"),
        (["encode", "--tokenizer", "tests/no-such-file.json"], b"x", "cannot read"),
        (["compare", "-"], b"x", "at least one tokenizer"),
    ],
)
def test_user_errors_exit_1_with_one_line(args, stdin, message):
    code, out, err = run(*args, stdin=stdin)
    assert code == 1
    assert message in err
    assert "Traceback" not in err
    assert err.startswith("error: ")


def test_usage_errors_exit_2():
    code, _, err = run("encode")
    assert code == 2
    assert "--encoding" in err


def test_python_m_bpe_core_is_the_command_line(text_file):
    """The entry point itself, in a process of its own."""
    result = subprocess.run(
        [sys.executable, "-m", "bpe_core", "encode", "--encoding", "gpt2", "--json", str(text_file)],
        capture_output=True, cwd=ROOT, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == tiktokens_own("gpt2").encode(text_file.read_text())
    result = subprocess.run([sys.executable, "-m", "bpe_core", "decode", "--encoding", "gpt2", "x"],
                            capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 1 and result.stderr.startswith("error: ") and result.stderr.count("\n") == 1


def test_ctrl_c_ends_with_one_line_and_the_status_a_shell_gives_it(text_file, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt  # what Ctrl+C raises, here in the middle of counting

    monkeypatch.setattr(sys.modules["bpe_core.cli.main"], "count_files", interrupted)  # the module, not its `main`
    assert run("train", text_file, "--merges", 3, "-o", text_file.with_suffix(".json")) == (130, "", "error: interrupted\n")
    assert not text_file.with_suffix(".json").exists()


def test_help_lists_the_commands():
    code, out, _ = run("--help")
    assert code == 0
    for command in ("train", "encode", "decode", "compare"):
        assert command in out


def test_chat_takes_a_conversation_of_any_length_unless_the_user_sets_a_limit(tmp_path):
    """The Chat page refuses turns over 20,000 characters together (the
    server's budget); the command line, on the user's own machine, only
    when asked."""
    messages = tmp_path / "messages.json"
    long_text = "Tokenizers split text into pieces. " * 1_000  # 35,000 characters
    messages.write_text(json.dumps([{"role": "user", "content": long_text}]), encoding="utf-8")
    code, out, err = run("chat", messages, "--with", "cl100k_base", "--json")
    assert code == 0, err
    assert json.loads(out)["turns"][0]["text_tokens"] == len(tiktokens_own("cl100k_base").encode(long_text))
    code, _, err = run("chat", messages, "--with", "llama3", "--max-chars", "20000")
    assert code == 1 and err == "error: The turns hold 35,000 characters together; the limit is 20,000.\n"
    code, _, err = run("chat", messages, "--with", "llama3", "--max-turns", "0")
    assert code == 2 and "takes a whole number from 1 up" in err
