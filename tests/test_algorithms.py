"""BPE, WordPiece and Unigram side by side: Hugging Face's trainers behind
`hf_trainers`, the measures of `analysis.algorithms`, the Algorithms page
and `train --algorithm`. Hugging Face's own encodings are the reference."""

import functools
import json
import re

import pytest
from tokenizers import Tokenizer as HuggingFaceTokenizer

from bpe_core import train
from bpe_core.algorithms.hf_trainers import train_unigram, train_wordpiece
from bpe_core.analysis.algorithms import (
    ALGORITHMS,
    RIVALS,
    algorithm_corpora,
    corpus_parts,
    measure_algorithm,
    only_in_each,
    surface,
    train_rival,
    unknown_stretches,
)
from bpe_core.analysis.shipped_algorithms import BPE_PATTERN, DEFAULT_CORPUS, DEFAULT_VOCAB_SIZE
from bpe_core.analysis.words import count_words
from tests.apptest import charts, html_tables, open_page, popover_labels, shared_box_text
from tests.cli import run_cli

TEXT = "Tokenizers split “unbelievably” differently:  naïve café, 3.14159, 👩‍💻 and ሰላም.\nNext line."


@functools.cache
def three(vocab_size: int = 800) -> dict:
    training, _ = corpus_parts("english_prose")
    return {"bpe": train(training, vocab_size=vocab_size, pattern="cl100k"),
            **{algorithm: train_rival(algorithm, training, vocab_size) for algorithm in RIVALS}}


def test_spans_are_hugging_faces_tokens_at_their_places_in_the_text():
    data = TEXT.encode()
    for algorithm in ("wordpiece", "unigram"):
        tokenizer = three()[algorithm]
        encoding = tokenizer.hf.encode(TEXT, add_special_tokens=False)
        spans = tokenizer.encode_with_offsets(TEXT)
        assert [span.id for span in spans] == encoding.ids == tokenizer.encode(TEXT)
        assert all(left.end <= right.start for left, right in zip(spans, spans[1:]))  # in order, never overlapping
        for span in spans:
            if span.id == tokenizer.unknown_id:
                continue
            covered = data[span.start:span.end]
            assert covered == tokenizer.token_bytes(span.id) or b" " + covered == tokenizer.token_bytes(span.id)
    unigram = three()["unigram"].encode_with_offsets("Tokenizers")
    assert three()["unigram"].pieces[unigram[0].id] == "▁" and unigram[0].start == unigram[0].end == 0
    wordpiece = three()["wordpiece"]
    pieces = {data[span.start:span.end].decode(): wordpiece.pieces[span.id] for span in wordpiece.encode_with_offsets(TEXT)}
    assert pieces["naïve"] == "[UNK]"  # one unseen character: the whole word is unknown
    assert all(not text.isspace() for text in pieces)  # whitespace is in no WordPiece token


def test_measures_count_tokens_words_and_what_is_lost():
    for algorithm, tokenizer in three().items():
        measured = measure_algorithm(algorithm, tokenizer, TEXT)
        cost = measured.cost
        assert cost.tokens == len(tokenizer.encode(TEXT, disallowed_special=()))
        assert cost.words == count_words(TEXT) and cost.fertility == cost.tokens / cost.words
        assert measured.n_vocab == tokenizer.n_vocab
    bpe, wordpiece, unigram = (measure_algorithm(name, three()[name], TEXT) for name in ("bpe", "wordpiece", "unigram"))
    assert (bpe.unknown_tokens, bpe.unknown_chars, bpe.round_trip) == (0, 0, True)  # every byte has a token
    assert "naïve" in unknown_stretches(three()["wordpiece"], TEXT) and not wordpiece.round_trip
    assert "ሰላም" in "".join(unknown_stretches(three()["unigram"], TEXT)) and unigram.unknown_chars >= 3


def test_what_each_keeps_is_in_neither_other_vocabulary_most_used_first():
    _, held_out = corpus_parts("english_prose")
    only = only_in_each(three(), held_out)
    for name, items in only.items():
        others = {surface(tok, token_id) for other, tok in three().items() if other != name for token_id in tok.vocab}
        assert items and not {item.text for item in items} & others
        uses = [item.uses for item in items]
        assert uses == sorted(uses, reverse=True)
        top = items[0]
        assert top.uses == three()[name].encode(held_out, disallowed_special=()).count(top.token_id) > 0


def test_every_corpus_splits_into_training_and_held_out_text():
    assert "parallel" in algorithm_corpora() and "english_prose" in algorithm_corpora()
    training, held_out = corpus_parts("parallel")
    assert "नरेवा" in training and held_out and held_out not in training
    with pytest.raises(ValueError, match="No bundled corpus"):
        corpus_parts("aaabdaaabac")


def test_hugging_face_refusals_are_value_errors():
    with pytest.raises(ValueError, match="vocabulary size"):
        train_wordpiece(["a b"], 0)
    with pytest.raises(ValueError, match="Unigram trainer refused"):
        train_unigram(["hello world"], 2)


@pytest.mark.parametrize("algorithm", ["wordpiece", "unigram"])
def test_the_command_line_trains_wordpiece_and_unigram_into_a_hugging_face_file(tmp_path, algorithm):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(corpus_parts("english_prose")[0][:20_000] + "\nzorblax quintessa " * 3_000, encoding="utf-8")
    output = tmp_path / "tokenizer.json"
    code, _, err = run_cli("train", corpus, "--algorithm", algorithm, "--vocab-size", 500, "-o", output)
    assert code == 0, err
    saved = HuggingFaceTokenizer.from_file(str(output))
    assert json.loads(output.read_text())["model"]["type"] == {"wordpiece": "WordPiece", "unigram": "Unigram"}[algorithm]
    assert saved.get_vocab_size() == 500
    if algorithm == "wordpiece":  # frequent in this file: one piece
        assert saved.encode("zorblax quintessa").tokens[0] == "zorblax"
    else:  # the file's most frequent word, with the mark of a space before it
        assert saved.encode("the end").tokens[0] == "▁the"


def test_the_command_line_refuses_merges_and_counts_for_them(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("hello world", encoding="utf-8")
    code, _, err = run_cli("train", corpus, "--algorithm", "unigram", "--merges", 10, "-o", tmp_path / "t.json")
    assert code == 1 and err.startswith("error: unigram learns a vocabulary of a size")
    counts = tmp_path / "counts.json"
    counts.write_text('{"hello": 2}', encoding="utf-8")
    code, _, err = run_cli("train", counts, "--algorithm", "wordpiece", "--vocab-size", 50, "-o", tmp_path / "t.json")
    assert code == 1 and "trains on text, not counts" in err


THE_OLD_THREE = {"algorithms_chosen": ["bpe", "wordpiece", "unigram"]}  # the page's three before it grew


BYTE_LEVEL = ("bpe", "superbpe", "boundless", "picky")


def test_the_page_shows_each_algorithms_splits_and_numbers():
    at = open_page("pages/algorithms.py")
    assert not at.exception
    table = html_tables(at)[0].set_index("algorithm")
    assert list(table.index) == list(ALGORITHMS.values())
    views = dict(zip(ALGORITHMS, [element.value for element in at.html if 'class="bpe-text"' in element.value]))
    assert len(views) == 6
    assert sum(element.value.count(".bpe-tok {") for element in at.html) == 1  # one stylesheet for the six views
    framed, dropped = 'class="bpe-tok bpe-special ', 'class="bpe-dropped"'
    assert framed in views["wordpiece"] and dropped in views["wordpiece"]  # its unknown words framed, spaces dropped
    # Each row's count is the tokens it draws; a byte-level row's tokens hold every byte of the box's text.
    markdown = "\n".join(element.value for element in at.markdown)
    counts = dict(re.findall(r"^\*\*(.+?)\*\* · ([\d,]+) tokens$", markdown, re.MULTILINE))
    box_bytes = len(shared_box_text(at).encode("utf-8"))
    for algorithm, view in views.items():
        assert int(counts[ALGORITHMS[algorithm]].replace(",", "")) == view.count('class="bpe-tok'), algorithm
        if algorithm in BYTE_LEVEL:
            assert framed not in view and dropped not in view, algorithm
            assert sum(int(size) for size in re.findall(r"\((\d+) bytes?\)", view)) == box_bytes, algorithm
    # The table's numbers: each ratio is its tokens over the held-out text's bytes, characters and
    # words (counted here); BPE's tokens are those of BPE trained here at the page's settings.
    training_text, held_out = corpus_parts(DEFAULT_CORPUS)
    words = count_words(held_out, "en")
    for algorithm, row in zip(ALGORITHMS, table.itertuples()):
        assert row.vocabulary == DEFAULT_VOCAB_SIZE, algorithm
        assert row[3] == round(len(held_out.encode("utf-8")) / row.tokens, 2), algorithm  # bytes per token
        assert row[4] == round(len(held_out) / row.tokens, 2), algorithm  # chars per token
        assert row[5] == round(row.tokens / words, 2), algorithm  # tokens per word
        if algorithm in BYTE_LEVEL:
            assert (row[7], row[8], row[9]) == (0, 0, "✓"), algorithm  # nothing unknown, the text decoded back
    assert table.loc["WordPiece", "decodes to the text"] == "✗"  # its spaces are gone
    bpe = train(training_text, vocab_size=DEFAULT_VOCAB_SIZE, pattern=BPE_PATTERN)
    assert table.loc["BPE", "tokens"] == len(bpe.encode_ordinary(held_out))


@pytest.mark.slow
def test_the_page_trains_on_all_thirty_languages():
    at = open_page("pages/algorithms.py", query=THE_OLD_THREE)
    at.selectbox(key="algorithms_corpus").set_value("parallel").run()
    assert not at.exception
    bpe, wordpiece, unigram = html_tables(at)[0]["vocabulary"].tolist()
    assert bpe == unigram == 2_000 and wordpiece > 2_000  # WordPiece keeps every character of 30 scripts
    assert any("WordPiece" in caption.value and "every character" in caption.value for caption in at.caption)


def test_a_second_visit_shows_the_same_measures_without_measuring_again(monkeypatch):
    """Measuring the tokenizers on the held-out text is the same work for
    every visitor: the second visitor's page reads the first one's."""
    first = open_page("pages/algorithms.py")

    def refuse(*arguments, **settings):
        raise AssertionError("the page measured the same tokenizers again")

    from bpe_core.analysis import algorithms
    from bpe_core.drawing import algorithms as drawing

    for name in ("measure_algorithm", "only_in_each", "unknown_stretches", "shared_share", "superwords_used", "removals"):
        monkeypatch.setattr(algorithms, name, refuse)
    monkeypatch.setattr(drawing, "algorithm_bars", refuse)  # the bars too are drawn once
    second = open_page("pages/algorithms.py")
    assert html_tables(second)[0].equals(html_tables(first)[0])
    assert not charts(first)  # its bars are HTML: the page needs no plotly.js
    (drawn,) = [element.value for element in first.html if "bpe-bars" in element.value]
    assert drawn.count('class="bpe-bar"') == 12  # two panels of six
    assert [element.value for element in second.markdown] == [element.value for element in first.markdown]
    assert [element.value for element in second.html] == [element.value for element in first.html]


def test_the_menus_say_what_was_chosen_and_trained_on():
    at = open_page("pages/algorithms.py")
    assert popover_labels(at) == [
        "Algorithms: BPE, SuperBPE, BoundlessBPE, Picky BPE, WordPiece, Unigram",
        "Trained on Alice\\'s Adventures in Wonderland \\(English prose\\), 2,000 tokens each", "These numbers (CSV)"]


def test_an_old_link_opens_the_page_with_its_settings():
    """A link made when the page was "Three algorithms" names the text by its
    label and no algorithms: it opens the same address, with every algorithm."""
    link = {"algorithms_corpus": "Alice's Adventures in Wonderland (English prose)", "algorithms_vocab": "2000"}
    at = open_page("pages/algorithms.py", query=link)
    assert at.selectbox(key="algorithms_corpus").value == "english_prose"
    assert list(html_tables(at)[0]["algorithm"]) == list(ALGORITHMS.values())
    assert [element.value for element in at.title] == ["Algorithms"]


@pytest.mark.slow  # trains three on another text
def test_the_training_popover_follows_a_link_and_a_change():
    link = {"algorithms_corpus": "Inventory tool and its tests (Python code)", "algorithms_vocab": "500", **THE_OLD_THREE}
    at = open_page("pages/algorithms.py", query=link)  # a link names the text by its label (Streamlit's binding)
    assert at.selectbox(key="algorithms_corpus").value == "python_code"
    assert popover_labels(at)[:2] == ["Algorithms: BPE, WordPiece, Unigram",  # the link's, before the menu is drawn
                                      "Trained on Inventory tool and its tests \\(Python code\\), 500 tokens each"]
    assert html_tables(at)[0]["vocabulary"].tolist()[0] == 500
    at.number_input(key="algorithms_vocab").set_value(600).run()
    assert popover_labels(at)[1] == "Trained on Inventory tool and its tests \\(Python code\\), 600 tokens each"


@pytest.mark.slow
def test_a_size_a_trainer_refuses_is_a_message():
    """30 scripts hold more characters than 700 tokens: Unigram refuses, and the page says so; BPE is shown."""
    at = open_page("pages/algorithms.py", query={"algorithms_corpus": "Parallel corpus: all 30 languages",
                                                 "algorithms_vocab": "700", "algorithms_chosen": ["bpe", "unigram"]})
    (warning,) = at.warning
    assert "Unigram trainer refused" in warning.value and "not large enough" in warning.value
    assert list(html_tables(at)[0]["algorithm"]) == ["BPE"]


@pytest.mark.parametrize("query, says", [
    ({"algorithms_transition": "2000"}, "and below the vocabulary size (2,000); got 2,000"),
    ({"algorithms_transition": "100"}, "transition must be at least 256"),
    ({"algorithms_threshold": "0"}, "threshold must be above 0 and at most 1"),
])
def test_bad_settings_leave_one_algorithm_out_in_one_line(query, says):
    at = open_page("pages/algorithms.py", query=query)
    (error,) = at.error
    assert says in error.value.replace("\\", "")
    shown = list(html_tables(at)[0]["algorithm"])
    assert len(shown) == 5 and shown[0] == "BPE"  # the others are still shown, from what was shipped


def test_fewer_than_two_algorithms_is_a_message():
    at = open_page("pages/algorithms.py", query={"algorithms_chosen": ["picky"]})
    assert "two or more" in at.info[0].value and not html_tables(at)


# ------------------------------------------------ superwords, removals, languages

def test_gini_is_the_mean_absolute_difference_over_twice_the_mean():
    from bpe_core.analysis.algorithms import gini

    def by_definition(values):  # every pair, as the definition reads
        mean = sum(values) / len(values)
        return sum(abs(a - b) for a in values for b in values) / (2 * len(values) ** 2 * mean)

    for values in ([1, 1, 1], [0, 0, 10], [296, 397, 338, 395], [3.5, 1, 2, 8, 8]):
        assert gini(values) == pytest.approx(by_definition(values))
    assert gini([5, 5]) == 0 and gini([0, 0]) == 0
    with pytest.raises(ValueError):
        gini([])


def test_superwords_are_tokens_that_hold_a_word_boundary():
    from bpe_core.analysis.algorithms import spans_words

    assert spans_words(b" of the") and spans_words(b", and") and spans_words(b"it is")
    assert not spans_words(b" the") and not spans_words(b"\n\n") and not spans_words(b"the ") and not spans_words(b"   ")


def test_removals_say_what_picky_bpe_removed_and_why():
    from bpe_core.algorithms.picky import train_picky
    from bpe_core.analysis.algorithms import removals
    from bpe_core.drawing.algorithms import removals_html

    picky = train_picky(corpus_parts("english_prose")[0][:30_000], vocab_size=500, threshold=0.9)
    found = removals(picky)
    assert len(found) == len(picky.removals) > 0
    for removal, step in zip(found, picky.removals):
        merge = picky.trace[step.after - 1]
        assert removal.text == picky.token_bytes(step.token_id) and removal.ios == step.ios > 0.9
        assert removal.merged[2] == merge.token and removal.text in merge.token  # it lived on inside the new token
    drawn = removals_html(found[:1])
    assert f"removed after merge {found[0].step:,}" in drawn and f"{found[0].ios:.2f} of its uses" in drawn
    assert removals(three()["bpe"]) == []


def test_tokens_drawn_on_the_algorithms_page_are_escaped():
    from bpe_core.analysis.algorithms import Removal, Superword
    from bpe_core.drawing.algorithms import removals_html, superwords_html

    evil = b"<script>x</script>"
    drawn = superwords_html([Superword(300, evil, 2)]) + removals_html([Removal(301, evil, 0.95, 7, (evil, b"a", evil))])
    assert "<script>x" not in drawn and "&lt;script&gt;" in drawn


def test_the_language_effect_is_each_languages_premium_and_their_gini():
    from bpe_core.analysis.algorithms import gini, language_effect
    from bpe_core.drawing.algorithms import language_rows

    bpe = language_effect("bpe", {"en": 100, "de": 120, "hi": 300})
    superbpe = language_effect("superbpe", {"en": 90, "de": 114, "hi": 300})
    assert bpe.premiums == {"en": 1.0, "de": 1.2, "hi": 3.0} and bpe.gini == gini([100, 120, 300])
    rows = language_rows([bpe, superbpe])
    assert rows[0]["language"] == "Hindi"  # the highest premium first
    by_language = {row["language"]: row for row in rows}
    assert by_language["English"]["SuperBPE vs BPE"] == "-10.0%" and by_language["Hindi"]["SuperBPE vs BPE"] == "+0.0%"
    with pytest.raises(ValueError):
        language_effect("bpe", {"de": 3})


def test_the_language_view_opens_on_what_was_shipped(monkeypatch):
    from bpe_core.analysis import algorithms

    def refuse(*arguments, **settings):
        raise AssertionError("the default view counted the languages again")

    monkeypatch.setattr(algorithms, "language_tokens", refuse)
    at = open_page("pages/algorithms.py", algorithms_languages_open=True)
    frame = html_tables(at)[1].set_index("language")
    assert list(frame.columns[:2]) == ["BPE premium", "SuperBPE premium"] and "SuperBPE vs BPE" in frame.columns
    assert frame.loc["English", "BPE premium"] == "1.00×" and len(frame) == 30
    (gini,) = [element.value for element in at.html if "Gini of tokens per language" in element.value]
    assert gini.count('class="bpe-bar"') == 12


def test_a_link_opens_the_step_control_on_picky_bpes_training():
    from bpe_core.analysis.algorithms import training_settings
    from bpe_core.analysis.shipped_algorithms import (
        BPE_PATTERN,
        DEFAULT_CORPUS,
        DEFAULT_THRESHOLD,
        DEFAULT_TRANSITION,
        DEFAULT_VOCAB_SIZE,
        shipped_tokenizer,
    )
    from tests.apptest import component_data

    at = open_page("pages/algorithms.py", query={"algorithms_stepped": "picky", "algorithms_step": "300"})
    view = component_data(at)
    picky = shipped_tokenizer("picky", corpus_parts(DEFAULT_CORPUS)[0], training_settings(
        "picky", DEFAULT_VOCAB_SIZE, pattern=BPE_PATTERN, transition=DEFAULT_TRANSITION, threshold=DEFAULT_THRESHOLD))
    assert view["step"] == 300 and view["total"] == len(picky.events) > len(picky.trace)
    assert at.button(key="algorithms_stepped_picky").disabled  # the chosen one
