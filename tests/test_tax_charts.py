"""The Tokenization tax page's tables and figures, checked without a browser.

The numbers are compared with `tax_table` (itself checked against tiktoken
in test_tax.py) and, where cheap, with tiktoken directly.
"""

from dataclasses import replace

import pandas as pd
import pytest

from bpe_core import train
from bpe_core.analysis.tax import HELD_OUT_LINES, content_cost, languages, parallel_text, tax_table, training_mix
from bpe_core.analysis.words import count_words
from bpe_core.drawing.palette import PALETTE
from bpe_core.drawing.tables import table_html
from bpe_core.drawing.tax import (
    cost_frame,
    cost_summary,
    experiment_figure,
    language_order,
    measure_frame,
    measure_heatmap_figure,
    metrics_frame,
    premium_bars_html,
    premium_frame,
    premium_heatmap_figure,
)
from bpe_core.vocabularies.catalogue import load_encoding
from bpe_core.vocabularies.openai import tiktoken_encoding
from tests.apptest import horizontal_bars

LANGUAGES = languages()
OPENAI = ["gpt2", "cl100k_base", "o200k_base"]


@pytest.fixture(scope="module")
def tokenizers():
    return {name: load_encoding(name) for name in OPENAI}


@pytest.fixture(scope="module")
def rows(tokenizers):
    texts = {code: parallel_text(code) for code in LANGUAGES}
    return tax_table(tokenizers, texts, "en")


def rows_of(rows, tokenizer):
    return [row for row in rows if row.tokenizer == tokenizer]


def premium_of(rows, tokenizer, code):
    return next(row.premium for row in rows if row.tokenizer == tokenizer and row.code == code)


# ------------------------------------------------------------------ tables


def test_premium_frame_has_one_row_per_language_and_one_column_per_tokenizer(rows):
    frame = premium_frame(rows, LANGUAGES)
    assert list(frame.columns) == ["language", "native name", "script", "byte premium", *OPENAI]
    assert sorted(frame["language"]) == sorted(language.name for language in LANGUAGES.values())
    assert all(pd.api.types.is_float_dtype(frame[column]) for column in ["byte premium", *OPENAI])


def test_premium_frame_values_are_the_tax_table_numbers(rows):
    frame = premium_frame(rows, LANGUAGES).set_index("language")
    for row in rows:
        assert frame.loc[LANGUAGES[row.code].name, row.tokenizer] == row.premium
        assert frame.loc[LANGUAGES[row.code].name, "byte premium"] == row.byte_premium
    assert frame.loc["Burmese", "native name"] == LANGUAGES["my"].native_name
    assert frame.loc["Burmese", "script"] == "Myanmar"
    assert (frame.loc["English", OPENAI] == 1.0).all()


def test_burmese_premium_under_o200k_is_the_tiktoken_ratio(rows):
    frame = premium_frame(rows, LANGUAGES).set_index("language")
    encoding = tiktoken_encoding("o200k_base")
    expected = len(encoding.encode(parallel_text("my"))) / len(encoding.encode(parallel_text("en")))
    assert frame.loc["Burmese", "o200k_base"] == expected


def test_languages_are_listed_most_taxed_first_by_the_first_tokenizer(rows):
    frame = premium_frame(rows, LANGUAGES)
    assert list(frame["gpt2"]) == sorted(frame["gpt2"], reverse=True)
    reordered = premium_frame(rows_of(rows, "o200k_base") + rows_of(rows, "gpt2"), LANGUAGES)
    assert list(reordered.columns[-2:]) == ["o200k_base", "gpt2"]
    assert list(reordered["o200k_base"]) == sorted(reordered["o200k_base"], reverse=True)


def test_metrics_frame_explains_each_premium(rows):
    frame = metrics_frame(rows, LANGUAGES)
    assert len(frame) == len(rows)
    hindi = frame[(frame["language"] == "Hindi") & (frame["tokenizer"] == "cl100k_base")].iloc[0]
    text = parallel_text("hi")
    tokens = len(tiktoken_encoding("cl100k_base").encode(text))
    assert hindi["tokens"] == tokens
    assert hindi["bytes per token"] == len(text.encode()) / tokens
    assert hindi["chars per token"] == len(text) / tokens
    assert hindi["words"] == count_words(text, "hi") and hindi["fertility"] == tokens / hindi["words"]
    chinese = frame[frame["language"] == LANGUAGES["zh"].name]
    assert (chinese["words"] > 10 * len(parallel_text("zh").split())).all()  # words found without spaces
    assert chinese["fertility"].notna().all() and chinese["words split"].between(0, 1).all()


def test_measure_frames_and_heatmaps_show_fertility_and_words_split(rows):
    for measure in ("fertility", "split_share"):
        frame = measure_frame(rows, LANGUAGES, measure)
        hindi = frame[frame["language"] == "Hindi"].iloc[0]
        row = next(row for row in rows if row.tokenizer == "gpt2" and row.code == "hi")
        assert hindi["gpt2"] == getattr(row.cost, measure)
        heatmap = measure_heatmap_figure(rows, LANGUAGES, measure).data[0]
        assert list(heatmap.x) == OPENAI and list(heatmap.y) == list(frame["language"])
        assert heatmap.z[list(heatmap.y).index("Hindi")][0] == getattr(row.cost, measure)
    assert measure_frame(rows, LANGUAGES, "split_share")[OPENAI].max().max() <= 1.0


def test_cost_frame_applies_content_cost_to_each_premium(rows):
    o200k = rows_of(rows, "o200k_base")
    frame = cost_frame(o200k, LANGUAGES, base_tokens=1_000_000, price_per_million=2.5, context_window=128_000)
    assert list(frame.columns) == ["language", "tokens", "cost", "fits in one context"]
    burmese = frame.set_index("language").loc["Burmese"]
    premium = premium_of(rows, "o200k_base", "my")
    assert burmese["tokens"] == round(1_000_000 * premium)
    assert burmese["cost"] == pytest.approx(2.5 * premium)
    assert burmese["fits in one context"] == pytest.approx(100 * 128_000 / (1_000_000 * premium))
    english = frame.set_index("language").loc["English"]
    assert (english["tokens"], english["cost"], english["fits in one context"]) == (1_000_000, 2.5, 12.8)


def test_small_content_fits_entirely(rows):
    frame = cost_frame(rows_of(rows, "gpt2"), LANGUAGES, base_tokens=1_000, price_per_million=0, context_window=128_000)
    assert (frame["fits in one context"] == 100).all()
    assert (frame["cost"] == 0).all()


def test_cost_frame_refuses_rows_of_several_tokenizers(rows):
    with pytest.raises(ValueError, match="exactly one tokenizer"):
        cost_frame(rows, LANGUAGES, 1_000, 1.0, 1_000)


def test_cost_summary_names_the_most_taxed_language(rows):
    o200k = rows_of(rows, "o200k_base")
    taxed = max(o200k, key=lambda row: row.premium)
    cost = content_cost(taxed.premium, 1_000_000, 2.5, 128_000)
    sentence = cost_summary(o200k, LANGUAGES, "en", 1_000_000, 2.5, 128_000)
    assert sentence == (
        f"The same content costs ${cost.price:,.2f} in {LANGUAGES[taxed.code].name} vs $2.50 in English, "
        f"and a 128,000-token window holds {100 / taxed.premium:.3g}% of what it holds in English."
    )


# ----------------------------------------------------------------- figures


def bar_rows(markup: str) -> list[tuple[str, list[float]]]:
    """Each language's row of the HTML bars: its name and its premiums, top to bottom."""
    return [(name, [float(bar.text.removesuffix("×")) for bar in bars])
            for name, bars in horizontal_bars(markup).rows.items()]


def test_the_bars_have_one_bar_per_tokenizer_most_taxed_language_first(rows):
    markup = premium_bars_html(rows, LANGUAGES, "en")
    assert horizontal_bars(markup).legend == dict(zip(OPENAI, PALETTE[:3]))
    lines = bar_rows(markup)
    assert len(lines) == len(LANGUAGES) and all(len(premiums) == 3 for _, premiums in lines)
    gpt2 = [premiums[0] for _, premiums in lines]
    assert gpt2 == sorted(gpt2, reverse=True)  # the first (most taxed) language at the top
    burmese = horizontal_bars(markup).rows["Burmese"]
    assert float(burmese[2].text.removesuffix("×")) == round(premium_of(rows, "o200k_base", "my"), 2)
    assert [bar.colour for bar in burmese] == PALETTE[:3]
    tokens = len(tiktoken_encoding("o200k_base").encode(parallel_text("my")))
    assert burmese[2].hover.startswith(f"Burmese, o200k_base: premium {burmese[2].text}, {tokens:,} tokens")


def test_a_dozen_tokenizers_each_have_a_colour_of_their_own():
    """Every bundled tokenizer at once is told apart by colour: none
    repeats, and the first are the tokens' own."""
    from bpe_core.vocabularies.catalogue import LISTED

    texts = {code: parallel_text(code) for code in ("en", "hi")}
    every_one = tax_table({name: load_encoding("gpt2") for name in LISTED}, texts, "en")
    colours = list(horizontal_bars(premium_bars_html(every_one, languages(), "en")).legend.values())
    assert len(colours) == len(LISTED) >= 12 and len(set(colours)) == len(colours)
    assert colours[:len(PALETTE)] == PALETTE


def test_the_bars_mark_the_base_language_at_one():
    hindi_base = tax_table({"gpt2": load_encoding("gpt2")}, {c: parallel_text(c) for c in LANGUAGES}, "hi")
    bars = horizontal_bars(premium_bars_html(hindi_base, LANGUAGES, "hi"))
    assert [bar.text for bar in bars.rows["Hindi"]] == ["1.00×"]
    (most_taxed,) = next(iter(bars.rows.values()))
    assert most_taxed.length == 1
    assert bars.mark == pytest.approx(1 / float(most_taxed.text.removesuffix("×")), rel=0.01)  # 1.0 on the bars' scale
    assert bars.rows["Hindi"][0].length == pytest.approx(bars.mark, abs=1e-4)  # the base language reaches the line
    assert bars.title.endswith("1.0 = Hindi)")


def test_figures_escape_tokenizer_names(rows):
    """A loaded tokenizer is named after its file; Plotly would render markup in it."""
    renamed = [replace(row, tokenizer="<b>mine</b>") for row in rows_of(rows, "gpt2")]
    assert "&lt;b&gt;mine&lt;/b&gt;" in premium_bars_html(renamed, LANGUAGES, "en") and "<b>mine" not in premium_bars_html(
        renamed, LANGUAGES, "en")
    assert list(premium_heatmap_figure(renamed, LANGUAGES).data[0].x) == ["&lt;b&gt;mine&lt;/b&gt;"]


def test_heatmap_writes_each_premium_in_its_cell(rows):
    figure = premium_heatmap_figure(rows, LANGUAGES)
    (heatmap,) = figure.data
    assert list(heatmap.x) == OPENAI
    assert list(heatmap.y) == [LANGUAGES[code].name for code in language_order(rows, LANGUAGES)]
    burmese = list(heatmap.y).index("Burmese")
    assert heatmap.text[burmese][2] == f"{premium_of(rows, 'o200k_base', 'my'):.1f}"
    english = list(heatmap.y).index("English")
    assert list(heatmap.text[english]) == ["1.0", "1.0", "1.0"]


def test_heatmap_colour_is_colour_blind_safe_and_neutral_at_one(rows):
    (heatmap,) = premium_heatmap_figure(rows, LANGUAGES).data
    english = list(heatmap.y).index("English")
    assert list(heatmap.z[english]) == [0.0, 0.0, 0.0]  # log2(1.0): the middle of the scale
    assert heatmap.zmid == 0 and heatmap.zmin == -heatmap.zmax
    # RdBu: ColorBrewer's diverging scheme marked colour-blind safe; white in the middle
    assert dict(heatmap.colorscale)[0.5] == "rgb(247,247,247)"
    assert "1×" in heatmap.colorbar.ticktext


@pytest.fixture(scope="module")
def experiment_rows(tokenizers):
    weights = {"en": 1, "hi": 8}
    trained = train(training_mix(weights), vocab_size=1_000, pattern="o200k", min_count=2)
    held_out = {code: parallel_text(code, HELD_OUT_LINES) for code in LANGUAGES}
    return weights, tax_table({"mine": trained, **tokenizers}, held_out, "en")


def test_experiment_figure_sets_the_trained_tokenizer_apart(experiment_rows):
    weights, rows = experiment_rows
    figure = experiment_figure(rows, LANGUAGES, "en", "mine", weights)
    assert sorted(trace.name for trace in figure.data) == sorted(["mine", *OPENAI])
    mine = next(trace for trace in figure.data if trace.name == "mine")
    assert mine.marker.symbol == "diamond"
    assert list(mine.x) == sorted(mine.x, reverse=True)  # most taxed first, by the trained tokenizer
    assert figure.layout.xaxis.type == "log"
    assert (figure.layout.shapes[0].x0, figure.layout.annotations[0].x) == (1.0, 0.0)  # log axis: log10(1)
    assert figure.layout.annotations[0].text == "1.0 = English"


def test_experiment_figure_labels_the_mix_and_measures_held_out_lines(experiment_rows):
    weights, rows = experiment_rows
    figure = experiment_figure(rows, LANGUAGES, "en", "mine", weights)
    o200k = next(trace for trace in figure.data if trace.name == "o200k_base")
    labels = list(o200k.y)
    assert "<b>Hindi ×8</b>" in labels and "<b>English ×1</b>" in labels and "Burmese" in labels
    encoding = tiktoken_encoding("o200k_base")
    held_out = {code: len(encoding.encode(parallel_text(code, HELD_OUT_LINES))) for code in ("my", "en")}
    assert o200k.x[labels.index("Burmese")] == held_out["my"] / held_out["en"]
    mine = next(trace for trace in figure.data if trace.name == "mine")
    assert mine.x[labels.index("<b>Hindi ×8</b>")] < mine.x[labels.index("Burmese")]


def test_parity_frame_figure_and_summary_show_each_languages_tax_under_both():
    from bpe_core.analysis.tax import parity_experiment
    from bpe_core.drawing.tax import MEANINGFUL_TAX, parity_figure, parity_frame, parity_summary

    experiment = parity_experiment(1_000)
    frame = parity_frame(experiment, LANGUAGES).set_index("language")
    hindi = experiment.row("hi")
    assert frame.loc["Hindi", "plain BPE premium"] == hindi.plain.premium
    assert frame.loc["Hindi", "parity-aware premium"] == hindi.parity.premium
    assert frame.loc["Hindi", "tokens"] == 100 * hindi.token_change
    little_tax = [LANGUAGES[row.code].name for row in experiment.rows if row.plain.premium < MEANINGFUL_TAX]
    assert frame.loc[little_tax, "tax removed"].isna().all()
    figure = parity_figure(experiment, LANGUAGES, "en")
    plain, parity = figure.data[1], figure.data[2]
    assert plain.x[list(plain.y).index("Hindi")] == hindi.plain.premium
    assert parity.x[list(parity.y).index("Hindi")] == hindi.parity.premium
    assert f"English pays {experiment.row('en').token_change:+.0%} tokens" in parity_summary(experiment, LANGUAGES, "en")


def test_a_plain_table_escapes_every_name_and_writes_numbers_in_their_format():
    frame = pd.DataFrame({"language": ["<b>Hindi</b>"], "<img src=x>.tiktoken": [2.3456], "words split": [None]})
    table = table_html(frame, {"<img src=x>.tiktoken": "{:.2f}×", "words split": "{:.0%}"})
    assert "<img" not in table and "<b>" not in table
    assert "<th class=num>&lt;img src=x&gt;.tiktoken</th>" in table
    assert '<tr><td>&lt;b&gt;Hindi&lt;/b&gt;</td><td class="num">2.35×</td><td class="num"></td></tr>' in table
