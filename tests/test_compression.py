"""Compression curves: honest numbers from the trace, the held-out text and the OpenAI encodings."""

import html

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_core import train
from bpe_core.analysis.compression import (
    MAX_TRAINING_POINTS,
    Curves,
    Point,
    ReferencePoint,
    chart_corpora,
    checkpoints,
    corpus_curves,
    corpus_text,
    held_out_curve,
    reference_points,
    split_held_out,
    training_curve,
    training_size,
)
from bpe_core.analysis.tax import languages
from bpe_core.corpora.samples import SAMPLES_DIR
from bpe_core.drawing.compression import compression_figure, compression_table, plotted_points
from bpe_core.vocabularies.openai import tiktoken_encoding

ENGLISH = (SAMPLES_DIR / "parallel" / "en.txt").read_text(encoding="utf-8")  # ASCII, 20 lines
JAPANESE = (SAMPLES_DIR / "parallel" / "ja.txt").read_text(encoding="utf-8")
ENCODINGS = ["gpt2", "cl100k_base", "o200k_base"]


@pytest.fixture(scope="module")
def english_split():
    training_text, held_out_text = split_held_out(ENGLISH)
    return training_text, held_out_text, train(training_text, vocab_size=600, pattern="cl100k")


# ------------------------------------------------------------ held-out split


def test_split_cuts_at_a_line_start_and_loses_no_text():
    training_text, held_out_text = split_held_out(ENGLISH, 0.1)
    assert training_text + held_out_text == ENGLISH
    assert training_text.endswith("\n")
    assert held_out_text == "".join(ENGLISH.splitlines(keepends=True)[-2:])  # 10 % of 20 lines


def test_split_holds_out_about_the_asked_fraction_from_the_end():
    text = "".join(f"line number {index:03d}\n" for index in range(1_000))
    training_text, held_out_text = split_held_out(text, 0.25)
    assert training_text + held_out_text == text
    assert held_out_text.startswith("line number 750\n")


def test_split_of_one_line_cuts_between_words():
    text = "one two three four five six seven eight nine ten"
    training_text, held_out_text = split_held_out(text, 0.2)
    assert training_text + held_out_text == text
    assert training_text.endswith(" ") and held_out_text == "nine ten"


def test_split_without_whitespace_still_keeps_every_character():
    training_text, held_out_text = split_held_out("日本語のテキストです", 0.3)
    assert training_text + held_out_text == "日本語のテキストです"
    assert training_text and held_out_text


@pytest.mark.parametrize(("text", "fraction"), [("ab\ncd", 0), ("ab\ncd", 1), ("ab\ncd", 1.5), ("a", 0.1), ("", 0.1)])
def test_split_refuses_what_it_cannot_split_with_a_message(text, fraction):
    with pytest.raises(ValueError, match="held-out fraction|too short"):
        split_held_out(text, fraction)


# ---------------------------------------------------------------- checkpoints


@given(st.integers(0, 30_000), st.integers(2, 60), st.integers(1, 1_000))
def test_checkpoints_are_sorted_distinct_and_span_all_merges(n_merges, count, base_vocab):
    steps = checkpoints(n_merges, count, base_vocab=base_vocab)
    assert steps[0] == 0 and steps[-1] == n_merges
    assert steps == sorted(set(steps))
    assert len(steps) <= count + 1


def test_checkpoints_take_every_step_of_a_short_training():
    assert checkpoints(10) == list(range(11))


def test_checkpoints_reach_the_right_end_of_a_linear_axis():
    steps = checkpoints(2_744)  # a vocabulary of 3,000
    assert 20 <= len(steps) <= 26
    assert sum(step > 1_372 for step in steps) >= 4  # the upper half is not left bare


# ------------------------------------------------------------- training curve


def test_training_curve_starts_at_one_byte_per_token_and_ends_at_the_trace(english_split):
    training_text, _, tok = english_split
    corpus_bytes, corpus_chars = training_size(tok, training_text)
    assert (corpus_bytes, corpus_chars) == (len(training_text.encode()), len(training_text))
    curve = training_curve(tok, corpus_bytes, corpus_chars)
    assert curve[0] == (256, 1.0, 1.0)  # ASCII: one byte, one character, one token
    assert curve[-1].vocab_size == 256 + len(tok.trace)
    assert curve[-1].bytes_per_token == corpus_bytes / tok.trace[-1].corpus_tokens
    assert curve[-1].chars_per_token == corpus_chars / tok.trace[-1].corpus_tokens


def test_training_curve_only_improves_as_merges_are_added(english_split):
    training_text, _, tok = english_split
    curve = training_curve(tok, *training_size(tok, training_text))
    vocab_sizes = [point.vocab_size for point in curve]
    assert vocab_sizes == sorted(set(vocab_sizes))
    assert all(before.bytes_per_token <= after.bytes_per_token for before, after in zip(curve, curve[1:]))


def test_training_curve_agrees_with_encoding_the_training_text(english_split):
    training_text, _, tok = english_split
    step = 100
    point = next(p for p in training_curve(tok, *training_size(tok, training_text)) if p.vocab_size == 256 + step)
    assert point.bytes_per_token == len(training_text.encode()) / len(tok.encode_at_step(training_text, step))


def test_character_tokenizer_starts_at_one_character_per_token():
    tok = train(JAPANESE, num_merges=200, pattern="cl100k", units="chars")
    curve = training_curve(tok, *training_size(tok, JAPANESE))
    assert curve[0].vocab_size == tok.first_merge_id
    assert curve[0].chars_per_token == 1.0
    assert curve[0].bytes_per_token == pytest.approx(len(JAPANESE.encode()) / len(JAPANESE))  # ~3 for Japanese


def test_text_the_pattern_drops_counts_as_training_counted_it():
    text = "low lower lowest, newer newest; wider widest!\n" * 20
    tok = train(text, num_merges=30, pattern=r"\w+")  # spaces and punctuation are dropped
    corpus_bytes, corpus_chars = training_size(tok, text)
    assert corpus_bytes == sum(len(word) for word in text.replace(",", "").replace(";", "").replace("!", "").split())
    assert training_curve(tok, corpus_bytes, corpus_chars)[0].bytes_per_token == 1.0


def test_long_traces_are_thinned_but_keep_both_ends():
    text = "".join(f"{index} squared is {index * index}; {index} cubed is {index ** 3}.\n" for index in range(3_000))
    tok = train(text, vocab_size=2_000, pattern="cl100k")
    curve = training_curve(tok, *training_size(tok, text))
    assert len(curve) <= MAX_TRAINING_POINTS + 1
    assert curve[0].vocab_size == 256 and curve[-1].vocab_size == 256 + len(tok.trace)


# ------------------------------------------------------------- held-out curve


def test_held_out_curve_from_bytes_to_the_last_merge(english_split):
    _, held_out_text, tok = english_split
    n = len(tok.trace)
    curve = held_out_curve(tok, held_out_text, [0, n // 2, n])
    assert curve[0] == (256, 1.0, 1.0)
    assert curve[-1].vocab_size == 256 + n
    assert curve[-1].bytes_per_token == len(held_out_text.encode()) / len(tok.encode_at_step(held_out_text, n))


def test_held_out_text_compresses_less_than_the_training_text(english_split):
    training_text, held_out_text, tok = english_split
    curves = corpus_curves(tok, training_text, held_out_text)
    assert curves.held_out[-1].bytes_per_token < curves.training[-1].bytes_per_token
    assert [p.vocab_size for p in curves.held_out] == [256 + k for k in checkpoints(len(tok.trace))]


def test_no_held_out_text_gives_no_held_out_curve(english_split):
    training_text, _, tok = english_split
    assert corpus_curves(tok, training_text, None).held_out == []


def test_a_text_with_no_tokens_is_refused_with_a_message():
    tok = train("abc abc abd", num_merges=2, pattern=r"\w+")
    with pytest.raises(ValueError, match="no tokens"):
        held_out_curve(tok, "  !!  ", [0])


# ----------------------------------------------------------- reference points


@pytest.mark.parametrize("text", [ENGLISH, JAPANESE, "def f(x):\n    return x ** 2  # <|endoftext|>\n"])
def test_reference_points_are_tiktokens_counts(text):
    points = reference_points(text, ENCODINGS)
    assert [point.encoding for point in points] == ENCODINGS
    for point in points:
        reference = tiktoken_encoding(point.encoding)
        tokens = len(reference.encode_ordinary(text))
        assert point.vocab_size == reference.n_vocab
        assert point.bytes_per_token == len(text.encode()) / tokens
        assert point.chars_per_token == len(text) / tokens


def test_reference_vocabulary_sizes_are_50k_100k_200k():
    assert [point.vocab_size for point in reference_points("x")] == [50_257, 100_277, 200_019]


# ------------------------------------------------------------ figure and table


@pytest.fixture(scope="module")
def two_corpora(english_split):
    training_text, held_out_text, tok = english_split
    japanese_training, japanese_held_out = split_held_out(JAPANESE)
    japanese_tok = train(japanese_training, vocab_size=600, pattern="cl100k")
    curves = {
        "English": corpus_curves(tok, training_text, held_out_text),
        "Japanese": corpus_curves(japanese_tok, japanese_training, japanese_held_out),
    }
    reference = {"English": reference_points(held_out_text), "Japanese": reference_points(japanese_held_out)}
    return curves, reference


def test_figure_has_a_solid_and_a_dashed_line_and_three_markers_per_corpus(two_corpora):
    curves, reference = two_corpora
    figure = compression_figure(curves, reference)
    traces = [trace for trace in figure.data if trace.name != "encoding names"]
    assert [(trace.legendgroup, trace.mode) for trace in traces] == [
        (corpus, mode) for corpus in ["English", "Japanese"] for mode in ["lines", "lines", "markers"]]
    assert [trace.name for trace in traces if trace.showlegend] == ["English", "Japanese"]  # a corpus a legend entry
    assert figure.layout.legend.title.text == "Solid: training text · dashed: held-out text"
    lines = [trace for trace in traces if trace.mode == "lines"]
    assert [trace.line.dash for trace in lines] == ["solid", "dash", "solid", "dash"]
    assert lines[0].line.color == lines[1].line.color != lines[2].line.color
    markers = [trace for trace in traces if trace.mode == "markers"]
    assert [list(trace.marker.symbol) for trace in markers] == [["circle", "square", "diamond"]] * 2
    assert [list(trace.customdata) for trace in markers] == [ENCODINGS] * 2  # named in the hover label
    assert markers[0].marker.color == lines[0].line.color and markers[1].marker.color == lines[2].line.color


def test_figure_labels_each_encoding_on_the_chart(two_corpora):
    curves, reference = two_corpora
    labels = next(trace for trace in compression_figure(curves, reference).data if trace.name == "encoding names")
    assert list(labels.text) == ENCODINGS
    assert list(labels.x) == [50_257, 100_277, 200_019]


def test_figure_plots_the_chosen_metric_on_the_chosen_axis(two_corpora):
    curves, reference = two_corpora
    figure = compression_figure(curves, reference, metric="chars", log_x=True)
    assert figure.layout.xaxis.type == "log"
    assert figure.layout.yaxis.title.text == "Characters per token"
    assert figure.layout.xaxis.title.text == "Vocabulary size (tokens)"
    assert list(figure.data[0].y) == [point.chars_per_token for point in curves["English"].training]
    assert compression_figure(curves, reference).layout.xaxis.type == "linear"


def test_figure_fonts_are_readable(two_corpora):
    layout = compression_figure(*two_corpora).layout
    assert layout.font.size >= 14 and layout.legend.font.size >= 14 and layout.hoverlabel.font.size >= 14


def test_figure_without_reference_points_or_held_out_text(two_corpora):
    curves, _ = two_corpora
    figure = compression_figure({"English": Curves(curves["English"].training, [])}, {})
    assert [trace.name for trace in figure.data if trace.showlegend is not False] == ["English"]
    assert figure.layout.legend.title.text == "Solid: training text"


def test_figure_escapes_corpus_names():
    payload = '<img src=x onerror=alert(1)> %{x}'
    curves = {payload: Curves([Point(256, 1.0, 1.0), Point(300, 1.5, 1.5)], [])}
    line = compression_figure(curves, {}).data[0]
    assert line.meta == html.escape(payload) and line.name == html.escape(payload)
    assert payload not in line.hovertemplate  # the name is data (%{meta}), never template text


def test_quotes_in_names_are_shown_as_quotes():
    """plotly decodes &lt; &gt; &amp; but shows &quot; and &#x27; as written."""
    name = 'Alice\'s "Wonderland" & <friends>'
    curves = {name: Curves([Point(256, 1.0, 1.0)], [])}
    reference = {name: [ReferencePoint('my "enc"', 1000, 3.0, 3.0)]}
    figure = compression_figure(curves, reference)
    shown = 'Alice\'s "Wonderland" &amp; &lt;friends&gt;'
    assert figure.data[0].name == shown and figure.data[0].meta == shown
    assert figure.data[1].customdata == ('my "enc"',) and figure.data[-1].text == ('my "enc"',)


def test_figure_refuses_an_unknown_metric(two_corpora):
    with pytest.raises(ValueError, match="metric"):
        compression_figure(*two_corpora, metric="words")


def test_table_has_one_row_per_plotted_point(two_corpora):
    curves, reference = two_corpora
    table = compression_table(curves, reference)
    assert plotted_points(curves, reference) == len(table)
    assert list(table.columns) == ["corpus", "series", "vocab_size", "bytes_per_token", "chars_per_token"]
    for corpus in curves:
        rows = table[table.corpus == corpus]
        assert (rows.series == "training").sum() == len(curves[corpus].training)
        assert (rows.series == "held-out").sum() == len(curves[corpus].held_out)
        for point in reference[corpus]:
            (row,) = rows[rows.series == point.encoding].itertuples()
            assert (row.vocab_size, row.bytes_per_token, row.chars_per_token) == point[1:]
    assert len(table) == sum(len(c.training) + len(c.held_out) for c in curves.values()) + 6


# ------------------------------------------------------------------ corpora


def test_chart_offers_the_bundled_texts_and_every_parallel_language():
    corpora = chart_corpora()
    assert {"english_prose", "japanese", "python_code"} <= set(corpora)
    assert "aaabdaaabac" not in corpora  # too small to say anything about compression
    for code, name in ((code, language.name) for code, language in languages().items()):
        assert corpora[f"parallel/{code}"] == f"Parallel corpus: {name}"
    assert len(languages()) == 30


def test_corpus_text_reads_samples_and_parallel_files():
    assert corpus_text("parallel/en") == ENGLISH
    with pytest.raises(ValueError, match="no language"):
        corpus_text("parallel/xx")
    with pytest.raises(ValueError, match="No bundled text sample"):
        corpus_text("no_such_sample")
