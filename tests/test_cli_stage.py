"""The command line's stage commands: `html` saves a view as one HTML file,
`gif` draws training merges for slides; bad input is one clear line."""

import json
import re

import pytest

from bpe_core.vocabularies.openai import tiktoken_encoding
from tests.cli import run_cli as run


def saved_view(path) -> dict:
    return json.loads(re.search(r'id="sa-view">(.*?)</script>', path.read_text(encoding="utf-8"), flags=re.S)[1])


def saved_settings(path) -> dict:
    return json.loads(re.search(r'id="sa-settings">(.*?)</script>', path.read_text(encoding="utf-8"), flags=re.S)[1])


@pytest.mark.slow
def test_html_train_saves_every_merge_of_a_sample(tmp_path):
    page = tmp_path / "train.html"
    code, _, err = run("html", "train", "--sample", "english_prose", "--vocab-size", 1000, "--step", 40, "-o", page)
    assert code == 0, err
    assert re.fullmatch(r"saved .*train\.html \(0\.\d\d MB\)\n", err)
    view = saved_view(page)
    assert view["total"] == 744 and len(view["merges"]) == 745
    assert saved_settings(page)["step"] == 40
    assert "Trained on Alice&#x27;s Adventures in Wonderland" in page.read_text(encoding="utf-8")


def test_html_train_on_a_file_with_characters_as_units(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower lowest newer wider " * 40, encoding="utf-8")
    page = tmp_path / "train.html"
    code, _, err = run("html", "train", "--file", corpus, "--units", "chars", "--vocab-size", 30, "-o", page)
    assert code == 0, err
    assert saved_view(page)["units"] == "chars" and "corpus.txt" in page.read_text(encoding="utf-8")


def test_html_replay_and_view(tmp_path):
    replay = tmp_path / "replay.html"
    assert run("html", "replay", "--encoding", "cl100k_base", "--text", "unbelievably", "-o", replay)[0] == 0
    assert saved_view(replay)["total"] == 9
    view = tmp_path / "view.html"
    code, _, err = run("html", "view", "--encoding", "o200k_base", "--file", "-", "-o", view,
                       stdin="नमस्ते दुनिया".encode())
    assert code == 0, err
    tokens = tiktoken_encoding("o200k_base").encode("नमस्ते दुनिया")
    assert f"Tokens<b>{len(tokens)}</b>" in view.read_text(encoding="utf-8")


@pytest.mark.parametrize("args, message", [
    (["html", "train", "--sample", "english_prose", "--vocab-size", "100"], "at least 256"),
    (["html", "train", "--sample", "english_prose", "--step", "-1"], "--step takes a number of merges"),
    (["html", "train", "--sample", "english_prose", "--pattern", "("], "not a valid regular expression"),
    (["html", "train", "--file", "missing.txt"], "cannot read missing.txt"),
    (["html", "replay", "--encoding", "gpt2", "--text", ""], "give a word or a short phrase"),
    (["html", "view", "--encoding", "gpt2", "--text", ""], "give a text"),
])
def test_bad_input_is_one_line(tmp_path, args, message):
    code, _, err = run(*args, "-o", tmp_path / "out")
    assert code == 1 and err.startswith("error: ") and message in err and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_an_unwritable_output_is_one_line(tmp_path):
    code, _, err = run("html", "view", "--encoding", "gpt2", "--text", "hi", "-o", tmp_path / "no" / "dir" / "x.html")
    assert code == 1 and err.startswith("error: cannot write")


def test_html_deck_saves_a_deck_file_as_a_page(tmp_path):
    deck = tmp_path / "talk.deck"
    deck.write_text("# a talk\ntrain.html | Saved | note\n/train?train_step=4 | The app\n", encoding="utf-8")
    page = tmp_path / "talk.html"
    code, _, err = run("html", "deck", deck, "--app", "http://localhost:8600", "-o", page)
    assert code == 0, err
    slides = saved_settings(page)["slides"]
    assert [slide["src"] for slide in slides] == ["train.html", "http://localhost:8600/train?train_step=4&present=true"]
    deck.write_text("/train\njavascript:alert(1)\n", encoding="utf-8")
    code, _, err = run("html", "deck", deck, "-o", page)
    assert code == 1 and err.startswith("error: line 2: 'javascript:alert(1)' is not a link of this app")


def test_the_stage_commands_keep_none_of_the_apps_budgets(tmp_path):
    """The app refuses a replay over 60 characters, a deck over 8,000
    characters or 200 slides, and shows a view's first 200,000 characters;
    on the user's own machine the command line takes what it is given."""
    phrase = "Tokenizers cut text into pieces; a replay shows every merge of every one of them. " * 2
    replay = tmp_path / "replay.html"
    code, _, err = run("html", "replay", "--encoding", "cl100k_base", "--text", phrase, "-o", replay)
    assert code == 0, err
    assert saved_view(replay)["total"] > 60
    deck = tmp_path / "talk.deck"
    deck.write_text("".join(f"/train?train_step={step} | Step {step} | {'a note ' * 10}\n" for step in range(300)),
                    encoding="utf-8")
    assert len(deck.read_text(encoding="utf-8")) > 8_000
    code, _, err = run("html", "deck", deck, "-o", tmp_path / "talk.html")
    assert code == 0, err
    assert len(saved_settings(tmp_path / "talk.html")["slides"]) == 300
    text = "word " * 50_000  # 250,000 characters
    view = tmp_path / "view.html"
    code, _, err = run("html", "view", "--encoding", "gpt2", "--file", "-", "-o", view, stdin=text.encode())
    assert code == 0, err
    assert f"Characters<b>{len(text):,}</b>" in view.read_text(encoding="utf-8")
