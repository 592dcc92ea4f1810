"""The Tokenization tax page, run headless with Streamlit's AppTest.

Every number the page shows is checked against tiktoken's own counts on the
bundled parallel corpus, computed here independently of the page.
"""

import os
import re

import pytest
from streamlit.testing.v1 import AppTest

from bpe_core import train
from bpe_core.analysis.tax import (
    HELD_OUT_LINES,
    languages,
    parallel_lines,
    parallel_text,
    parity_experiment,
    tax_table,
    training_mix,
)
from bpe_core.analysis.words import count_words
from bpe_core.jobs import budgeted_jobs
from bpe_core.sandbox.machine_turns import MachineTurns
from bpe_core.vocabularies.catalogue import CATALOGUE, LISTED
from pages.common import tax_experiments, tokenizers
from pages.common.shared_cache import SharedCache
from pages.common.tokenizers import CANCELLED, TRAINED_HERE, TrainedTokenizer
from tests.apptest import charts, html_tables, messages, popover_labels, shown
from tests.apptest import open_page as open_app
from tests.test_page_tax_fairness import shows_each_tokenizers_gini_over_the_passage
from tests.test_tax import hugging_faces_figures
from tests.test_zoo import maker_encode
from tests.tiktoken_oracle import tiktokens_own

PAGE = "pages/tax.py"
OPENAI = ["gpt2", "cl100k_base", "o200k_base"]
EVERY = [name for name in LISTED if CATALOGUE[name].variant_of is None]  # OpenAI's and the zoo's, but variants
TRAINED_ON_MIX = "trained on this mix"
NUMBERS_OPEN = {"tax_mix_numbers_open": True, "tax_parity_numbers_open": True}  # the experiments' tables, opened


@pytest.fixture(autouse=True)
def turns_of_our_own(monkeypatch, tmp_path):
    """Training jobs take turns at this machine's cores with every process on
    it, other test runs too: these tests wait only for their own jobs."""
    monkeypatch.setattr(budgeted_jobs, "MACHINE_TURNS", MachineTurns(tmp_path / "turns", os.cpu_count() or 1))


GRID_OPEN = {"tax_grid_open": True}  # the measure's table as a data grid, opened: exact numbers to check


def open_page(section: str | None = None, query: dict | None = None, **session) -> AppTest:
    """The page (at one of its sections: as a link opens it), with the
    measure's data grid open (`html_tables` reads what a visit shows)."""
    return open_app(PAGE, query={**({"tax_section": section} if section else {}), **(query or {})},
                    **{**GRID_OPEN, **session})


def choose_section(at: AppTest, section: str) -> AppTest:
    """A click on a section's button."""
    at.button(key=f"tax_section_{section}").click().run()
    assert not at.exception, at.exception
    return at


def chosen_section(at: AppTest) -> str:
    """The section whose button is highlighted (the others are not), as a reader sees it, and as
    assistive technology hears it: the chosen button alone is disabled, its help saying it is shown."""
    buttons = [button for button in at.button if button.key.startswith("tax_section_")]
    (chosen,) = [button for button in buttons if button.proto.type == "primary"]
    assert [button for button in buttons if button.disabled] == [chosen] and chosen.help.startswith("Shown now.")
    return chosen.key.removeprefix("tax_section_")


def tiktoken_premium(encoding: str, code: str, base: str = "en", lines=slice(None)) -> float:
    counts = {c: len(tiktokens_own(encoding).encode(parallel_text(c, lines))) for c in (code, base)}
    return counts[code] / counts[base]


def premium_bars(at: AppTest) -> str:
    """The tax's bars (HTML), or "" where the page draws none."""
    return next((element.value for element in at.html if 'class="bpe-hbars' in element.value), "")


def bar_names(at: AppTest) -> list[str]:
    """The tokenizers the bars' legend names, in order."""
    return re.findall(r'<span><i style="background: #\w+"></i>([^<]*)</span>', premium_bars(at))


def tables(at: AppTest) -> list:
    """Every data grid on the page (its plain tables: `html_tables`)."""
    return [frame.value for frame in at.dataframe]


def table_with(at: AppTest, column: str):
    """The first table on the page that has `column`, indexed by language."""
    return next(table for table in tables(at) if column in table.columns).set_index("language")


def premium_tables(at: AppTest) -> list:
    """The premium table at the top (the experiment's numbers have the same columns, and its own)."""
    return [table for table in tables(at) if "byte premium" in table.columns and TRAINED_ON_MIX not in table.columns]


def premiums(at: AppTest):
    (table,) = premium_tables(at)
    return table.set_index("language")


def change(at: AppTest, widget, value) -> AppTest:
    widget.set_value(value).run()
    assert not at.exception, at.exception
    return at


# ---------------------------------------------------------------- the tax


def test_a_visit_shows_openais_three_generations_and_llama_3_and_offers_every_other():
    """Four tokenizers first (a chart a reader can take in: see DEFAULT_TOKENIZERS in the page), the zoo a choice away."""
    at = open_page()
    picker = at.multiselect(key="tax_tokenizers")
    assert picker.value == [*OPENAI, "llama3"]
    assert all(any(label.startswith(f"{name} — ") for label in picker.options) for name in EVERY)
    assert list(premiums(at).columns) == ["native name", "script", "byte premium", *OPENAI, "llama3"]
    assert bar_names(at) == [*OPENAI, "llama3"] and not charts(at)  # HTML bars: no chart library to load
    shows_each_tokenizers_gini_over_the_passage(at)  # see test_page_tax_fairness.py


@pytest.mark.slow  # seconds: worker processes or whole vocabularies
def test_the_table_shows_every_openai_and_zoo_tokenizers_premiums_by_their_own_libraries():
    at = open_page()
    change(at, at.multiselect(key="tax_tokenizers"), EVERY)
    table = premiums(at)
    assert list(table.columns) == ["native name", "script", "byte premium", *EVERY]
    assert len(table) == 30
    assert table.loc["Burmese", "o200k_base"] == tiktoken_premium("o200k_base", "my")
    assert table.loc["Hindi", "gpt2"] == tiktoken_premium("gpt2", "hi")
    for name in ("llama3", "mistral_v3"):  # counted by the makers' own libraries
        counts = {code: len(maker_encode(name)(parallel_text(code))) for code in ("my", "en")}
        assert table.loc["Burmese", name] == counts["my"] / counts["en"]
    assert (table.loc["English", EVERY] == 1.0).all()
    assert table.loc["Burmese", "byte premium"] == len(parallel_text("my").encode()) / len(parallel_text("en").encode())
    assert bar_names(at) == EVERY
    assert "1.0 = English" in premium_bars(at)


def test_fertility_and_words_split_per_language_count_words_honestly():
    at = open_page()
    change(at, at.multiselect(key="tax_tokenizers"), ["o200k_base", "mistral_v3"])
    change(at, at.segmented_control(key="tax_measure"), "fertility")
    table = table_with(at, "o200k_base")
    thai = parallel_text("th")
    tokens = len(tiktokens_own("o200k_base").encode(thai))
    assert table.loc["Thai", "o200k_base"] == tokens / count_words(thai, "th")
    assert count_words(thai, "th") > 5 * len(thai.split())  # Thai writes no spaces between words
    heatmap = charts(at)[0]["data"][0]
    assert heatmap["type"] == "heatmap" and heatmap["x"] == ["o200k_base", "mistral_v3"]
    change(at, at.segmented_control(key="tax_measure"), "split_share")
    table = table_with(at, "mistral_v3")
    assert table["mistral_v3"].between(0, 1).all()
    assert table.loc["Burmese", "mistral_v3"] > table.loc["English", "mistral_v3"]
    assert any("ICU" in element.value and "dictionaries" in element.value for element in at.markdown)


def test_switching_the_base_language_to_hindi_makes_hindi_one():
    at = open_page()
    assert at.selectbox(key="tax_base").value == "en"
    change(at, at.selectbox(key="tax_base"), "hi")
    table = premiums(at)
    assert (table.loc["Hindi", OPENAI] == 1.0).all()
    assert table.loc["English", "cl100k_base"] == tiktoken_premium("cl100k_base", "en", base="hi")
    assert "1.0 = Hindi" in premium_bars(at)


def test_the_heatmap_view_writes_the_premiums_in_its_cells():
    at = open_page()
    change(at, at.multiselect(key="tax_tokenizers"), OPENAI)
    change(at, at.segmented_control(key="tax_view"), "heatmap")
    heatmap = charts(at)[0]["data"][0]
    assert heatmap["type"] == "heatmap" and heatmap["x"] == OPENAI
    burmese = heatmap["y"].index("Burmese")
    assert heatmap["text"][burmese][2] == f"{tiktoken_premium('o200k_base', 'my'):.1f}"


def test_no_tokenizer_asks_for_one():
    at = open_page()
    change(at, at.multiselect(key="tax_tokenizers"), [])
    assert "Choose at least one tokenizer." in [info.value for info in at.info]
    assert not premium_tables(at)
    assert not charts(at)


def test_the_train_pages_tokenizer_can_be_measured():
    text = parallel_text("en") * 4
    tokenizer = train(text, vocab_size=500, pattern="cl100k")
    at = open_page(trained=TrainedTokenizer(tokenizer, text, "pasted text"))
    change(at, at.multiselect(key="tax_tokenizers"), [TRAINED_HERE, "gpt2"])
    table = premiums(at)
    english, french = (len(tokenizer.encode(parallel_text(code))) for code in ("en", "fr"))
    assert table.loc["French", TRAINED_HERE] == french / english


def test_a_tokenizer_that_drops_a_script_is_left_out_with_a_reason():
    text = parallel_text("en") * 4
    latin_only = train(text, vocab_size=400, pattern=r"[A-Za-z]+")  # Burmese text becomes no tokens at all
    at = open_page(trained=TrainedTokenizer(latin_only, text, "pasted text"))
    change(at, at.multiselect(key="tax_tokenizers"), [TRAINED_HERE, "gpt2"])
    assert any("no tokens at all" in warning.value for warning in at.warning)
    assert list(premiums(at).columns) == ["native name", "script", "byte premium", "gpt2"]


@pytest.mark.slow
def test_the_choice_survives_a_page_change():
    at = open_page()
    change(at, at.multiselect(key="tax_tokenizers"), ["o200k_base"])
    change(at, at.selectbox(key="tax_base"), "ja")
    at.switch_page("pages/inspect.py").run()
    at.switch_page("pages/tax.py").run()
    assert at.multiselect(key="tax_tokenizers").value == ["o200k_base"]
    assert (premiums(at).loc["Japanese", "o200k_base"]) == 1.0


# ------------------------------------------------------------- the price


@pytest.mark.slow
def test_the_cost_section_prices_the_same_content_per_language():
    at = open_page("cost")
    change(at, at.selectbox(key="tax_cost_tokenizer"), "gpt2")
    change(at, at.number_input(key="tax_price"), 10.0)
    change(at, at.number_input(key="tax_window"), 32_000)
    change(at, at.number_input(key="tax_content"), 500_000)
    costs = table_with(at, "fits in one context")
    premium = tiktoken_premium("gpt2", "my")  # Burmese is gpt2's most taxed language
    assert costs.loc["Burmese", "tokens"] == round(500_000 * premium)
    assert costs.loc["Burmese", "cost"] == pytest.approx(5.0 * premium)
    assert costs.loc["Burmese", "fits in one context"] == pytest.approx(100 * 32_000 / (500_000 * premium))
    assert costs.loc["English"].to_dict() == {"tokens": 500_000, "cost": 5.0, "fits in one context": 6.4}
    sentence = next(element.value for element in at.html if "The same content costs" in element.value)
    assert f"costs ${5.0 * premium:,.2f} in Burmese vs $5.00 in English" in sentence
    assert f"a 32,000-token window holds {100 / premium:.3g}% of what it holds in English" in sentence


# -------------------------------------------------------- side by side


@pytest.mark.slow
def test_side_by_side_shows_both_languages_with_their_token_counts():
    at = open_page("side")
    change(at, at.slider(key="tax_sentence"), 5)
    change(at, at.selectbox(key="tax_left"), "my")
    change(at, at.selectbox(key="tax_right"), "ja")
    change(at, at.selectbox(key="tax_view_tokenizer"), "o200k_base")
    encoding = tiktokens_own("o200k_base")
    counts = {code: len(encoding.encode(parallel_lines(code)[4])) for code in ("my", "ja")}
    assert [(metric.label, metric.value) for metric in at.metric] == [
        ("Burmese — မြန်မာဘာသာ", f"{counts['my']:,} tokens"),
        ("Japanese — 日本語", f"{counts['ja']:,} tokens"),
    ]
    views = [element.value for element in at.html if 'class="bpe-text"' in element.value]
    assert len(views) == 2
    assert [view.count('class="bpe-tok') for view in views] == [counts["my"], counts["ja"]]


# ---------------------------------------------------------- the experiment


def trained_hindi_premium(at: AppTest) -> float:
    return table_with(at, TRAINED_ON_MIX).loc["Hindi", TRAINED_ON_MIX]


@pytest.mark.slow
def test_more_hindi_in_training_lowers_the_hindi_tax():
    at = open_page("mix", **NUMBERS_OPEN)
    assert at.segmented_control(key="tax_mix").value == "english"
    english_only = trained_hindi_premium(at)
    change(at, at.segmented_control(key="tax_mix"), "hindi")
    hindi_heavy = trained_hindi_premium(at)
    assert hindi_heavy < english_only
    numbers = table_with(at, TRAINED_ON_MIX)
    assert numbers.loc["Burmese", "o200k_base"] == tiktoken_premium("o200k_base", "my", lines=HELD_OUT_LINES)
    (experiment,) = charts(at)
    assert "<b>Hindi ×8</b>" in experiment["data"][0]["y"]


@pytest.mark.slow
def test_a_custom_mix_needs_a_language_and_emphasises_one():
    at = open_page("mix", **NUMBERS_OPEN)
    change(at, at.segmented_control(key="tax_mix"), "custom")
    change(at, at.multiselect(key="tax_custom_languages"), [])
    assert "Choose at least one language for the custom mix." in [info.value for info in at.info]
    assert not any(TRAINED_ON_MIX in frame.value.columns for frame in at.dataframe)
    change(at, at.multiselect(key="tax_custom_languages"), ["en", "my"])
    change(at, at.selectbox(key="tax_custom_emphasis"), "my")
    change(at, at.slider(key="tax_custom_weight"), 12)
    assert "<b>Burmese ×12</b>" in charts(at)[0]["data"][0]["y"]
    assert trained_hindi_premium(at) > table_with(at, TRAINED_ON_MIX).loc["Burmese", TRAINED_ON_MIX]
    change(at, at.multiselect(key="tax_custom_languages"), ["en", "hi"])  # the emphasised language removed
    assert at.selectbox(key="tax_custom_emphasis").value in ("en", "hi")


# --------------------------------------------------- the parity experiment


@pytest.mark.slow  # seconds: worker processes or whole vocabularies
def test_parity_aware_training_shows_the_tax_it_removes_and_what_english_pays():
    at = open_page("parity", **NUMBERS_OPEN)
    change(at, at.number_input(key="tax_parity_merges"), 1_000)
    hindi, english = (hugging_faces_figures(parity_experiment(1_000), code) for code in ("hi", "en"))
    numbers = table_with(at, "parity-aware premium")
    assert numbers.loc["Hindi", "plain BPE premium"] == hindi["plain_premium"]
    assert numbers.loc["Hindi", "parity-aware premium"] == hindi["parity_premium"]
    assert numbers.loc["English", "tokens"] == 100 * english["token_change"]
    assert english["token_change"] > 0
    summary = next(element.value for element in at.html if "English pays" in element.value)
    assert f"English pays {english['token_change']:+.0%} tokens" in summary
    (figure,) = charts(at)
    assert [trace.get("name") for trace in figure["data"][1:]] == ["plain BPE", "parity-aware BPE"]


@pytest.mark.slow  # seconds: worker processes
def test_the_parity_experiment_reports_its_stages_from_its_worker(monkeypatch):
    monkeypatch.setattr(tokenizers, "TRAINED_TOKENIZERS", SharedCache(max_entries=4, max_bytes=10**9))  # nothing kept
    heard, describe = [], tax_experiments.parity_stage

    def stage(done, total):
        heard.append((done, total))
        return describe(done, total)

    monkeypatch.setattr(tax_experiments, "parity_stage", stage)
    at = open_page(query={"tax_parity_merges": "400"}, **NUMBERS_OPEN)
    assert {(done, 3) for done in range(4)} <= set(heard)  # each stage, as the worker reached it
    assert [done for done, total in heard if total] == sorted(done for done, total in heard if total)
    assert table_with(at, "parity-aware premium").loc["Hindi", "parity-aware premium"] == (
        hugging_faces_figures(parity_experiment(400), "hi")["parity_premium"])


def test_the_metrics_by_tokenizer_are_drawn_only_once_opened():
    """A row per language and tokenizer, in a table most visitors never open: sent only when opened."""
    at = open_page()
    assert not any("fertility" in frame.value.columns for frame in at.dataframe)
    at.session_state["tax_metrics_open"] = True  # what a click on the expander tells the page
    at.run()
    table = next(frame.value for frame in at.dataframe if "fertility" in frame.value.columns)
    assert set(table["language"]) == {language.name for language in languages().values()}


def test_the_premiums_are_a_plain_table_and_the_grid_to_sort_them_opens_on_demand():
    """A visit draws no data grid (a third of a second in the browser): the
    same numbers as a plain table, and the grid with its CSV once asked for."""
    at = open_page(query={"tax_tokenizers": OPENAI}, tax_grid_open=False)
    assert not at.dataframe and not at.table and not at.get("download_button")
    (plain,) = html_tables(at)
    assert list(plain.columns) == ["language", "native name", "script", "byte premium", *OPENAI]
    at.session_state["tax_grid_open"] = True  # what a click on the expander tells the page
    at.run()
    (grid,) = at.dataframe
    assert len(plain) == len(grid.value) == len(languages())
    for row, (_, numbers) in zip(plain.itertuples(index=False), grid.value.iterrows(), strict=True):  # the same rows
        assert list(row) == [*numbers[["language", "native name", "script"]], *(
            f"{numbers[column]:.2f}×" for column in ("byte premium", *OPENAI))]
    assert plain.set_index("language").loc["Hindi", "gpt2"] == f"{tiktoken_premium('gpt2', 'hi'):.2f}×"
    assert [button.label for button in at.get("download_button")] == ["Premium (CSV)"]


def test_the_choice_popovers_say_what_is_chosen_after_a_change_and_from_a_link():
    at = open_page(query={"tax_tokenizers": ["gpt2"]})
    assert list(map(shown, popover_labels(at))) == ["Base language: English", "Tokenizers: GPT-2", "Premium, bar chart"]
    change(at, at.selectbox(key="tax_base"), "my")
    change(at, at.segmented_control(key="tax_view"), "heatmap")
    assert list(map(shown, popover_labels(at))) == ["Base language: Burmese", "Tokenizers: GPT-2", "Premium, heatmap"]
    change(at, at.segmented_control(key="tax_measure"), "fertility")
    assert shown(popover_labels(at)[2]) == "Tokens per word, heatmap"  # other measures are always a heatmap
    linked = open_page(query={key: at.query_params[key] for key in ("tax_base", "tax_measure", "tax_tokenizers")})
    assert list(map(shown, popover_labels(linked))) == ["Base language: Burmese", "Tokenizers: GPT-2", "Tokens per word, heatmap"]
    old = open_page(query={"tax_base": "Hindi — हिन्दी", "tax_view": "Heatmap"})  # labels, as old links carry them
    assert list(map(shown, popover_labels(old))) == ["Base language: Hindi", "Tokenizers: GPT-2, GPT-4, GPT-4o +1", "Premium, heatmap"]


@pytest.mark.slow  # seconds: worker processes
def test_the_experiments_tables_are_drawn_only_once_opened():
    at = open_page("mix")
    assert charts(at) and not any(TRAINED_ON_MIX in frame.value.columns for frame in at.dataframe)
    at.session_state["tax_mix_numbers_open"] = True
    at.run()
    assert len(table_with(at, TRAINED_ON_MIX)) == len(languages())


def experiments_shown(at: AppTest) -> tuple[bool, bool]:
    """Whether the page shows the mix experiment's numbers, and the parity experiment's."""
    shown = [frame.value.columns for frame in at.dataframe]
    return tuple(any(column in columns for columns in shown) for column in (TRAINED_ON_MIX, "parity-aware premium"))


CANCELLED_MESSAGE = "Training was cancelled; change the corpus or a setting to train again."


@pytest.mark.slow  # seconds: worker processes
def test_a_cancelled_experiment_says_so_and_the_rest_of_the_page_stays(monkeypatch):
    """A click on Cancel stops the job at once (see test_hostile_input) and
    marks the training cancelled in the session: the next run says so, and
    the other experiment still trains."""
    monkeypatch.setattr(tokenizers, "TRAINED_TOKENIZERS", SharedCache(max_entries=4, max_bytes=10**9))  # none trained
    mix_key = tokenizers.training_key(training_mix({"en": 1}), tax_experiments.mix_settings(2_000, "o200k"))
    at = open_page("mix", query={"tax_parity_merges": "700"}, **{CANCELLED: mix_key}, **NUMBERS_OPEN)
    assert CANCELLED_MESSAGE in messages(at.warning)
    assert experiments_shown(at) == (False, False)
    assert at.segmented_control(key="tax_mix").value == "english"  # the section's controls stay
    choose_section(at, "parity")
    assert CANCELLED_MESSAGE not in messages(at.warning)
    assert experiments_shown(at) == (False, True)
    at = open_page("parity", query={"tax_parity_merges": "800"},
                   **{CANCELLED: tax_experiments.parity_key(800, "en")}, **NUMBERS_OPEN)
    assert CANCELLED_MESSAGE in messages(at.warning)
    assert experiments_shown(at) == (False, False)
    choose_section(at, "mix")
    assert experiments_shown(at) == (True, False)


@pytest.mark.slow  # seconds: worker processes
def test_the_mix_experiment_equals_training_here():
    at = open_page(query={"tax_mix": "hindi", "tax_vocab": "1500", "tax_pattern": "gpt2"}, **NUMBERS_OPEN)
    weights = {**{code: 1 for code in tax_experiments.languages()}, "hi": 8}
    here = train(training_mix(dict(sorted(weights.items()))), vocab_size=1_500, pattern="gpt2", min_count=2)
    rows = tax_table({TRAINED_ON_MIX: here}, tax_experiments.held_out_texts())
    numbers = table_with(at, TRAINED_ON_MIX)
    for row in rows:
        assert numbers.loc[tax_experiments.languages()[row.code].name, TRAINED_ON_MIX] == row.premium


@pytest.mark.slow  # seconds: a worker process
def test_warming_trains_the_default_experiments_for_every_session(monkeypatch):
    monkeypatch.setattr(tokenizers, "TRAINED_TOKENIZERS", SharedCache(max_entries=4, max_bytes=10**9))
    runs = []
    monkeypatch.setattr(tax_experiments, "parity_within_budget", lambda *arguments, **options: runs.append(arguments)
                        or parity_experiment(tax_experiments.DEFAULT_MERGES))
    tax_experiments.warm_tax_experiments()
    mix, settings = training_mix({"en": 1}), tax_experiments.mix_settings(2_000, "o200k")
    assert tokenizers.TRAINED_TOKENIZERS.get(tokenizers.training_key(mix, settings)) is not None
    assert tokenizers.TRAINED_TOKENIZERS.get(tax_experiments.parity_key(1_500, "en")) is not None
    assert [arguments[:2] for arguments in runs] == [(1_500, "en")]  # the parity experiment, once


# ------------------------------------------------------------------ links


@pytest.mark.slow
def test_choices_travel_in_links_as_ids_and_old_links_with_labels_still_open():
    old = open_page(query={"tax_measure": "Tokens per word", "tax_base": "Hindi — हिन्दी"})
    assert old.segmented_control(key="tax_measure").value == "fertility"
    assert old.selectbox(key="tax_base").value == "hi"
    change(old, old.segmented_control(key="tax_measure"), "premium")
    change(old, old.segmented_control(key="tax_view"), "heatmap")
    old_mix = open_page(query={"tax_mix": "Custom", "tax_custom_languages": ["English — English", "my"]})
    assert old_mix.segmented_control(key="tax_mix").value == "custom"
    assert old_mix.multiselect(key="tax_custom_languages").value == ["en", "my"]
    change(old_mix, old_mix.selectbox(key="tax_pattern"), "gpt2")
    old_side = open_page(query={"tax_left": "Burmese — မြန်မာဘာသာ"})
    assert old_side.selectbox(key="tax_left").value == "my"
    links = {**old.query_params, **old_mix.query_params, **old_side.query_params}
    assert (links["tax_base"], links["tax_mix"], links["tax_left"]) == ("hi", "custom", "my")
    assert (links["tax_view"], links["tax_pattern"]) == ("heatmap", "gpt2")
    assert "tax_measure" not in old.query_params  # the default is left out
    assert links["tax_custom_languages"] == ["en", "my"]
    reopened = open_page(query={key: links[key] for key in ("tax_view", "tax_base")})
    assert [reopened.segmented_control(key="tax_view").value, reopened.selectbox(key="tax_base").value] == [
        "heatmap", "hi"]
    reopened = open_page(query={"tax_pattern": links["tax_pattern"]})
    assert reopened.selectbox(key="tax_pattern").value == "gpt2"


# --------------------------------------------------------------- sections


def test_a_visit_draws_one_section_and_every_section_is_a_click_away():
    """One idea per screen: the first visit draws the tax alone (no experiment trains for it)."""
    at = open_page()
    assert chosen_section(at) == "tax"
    assert len(premium_tables(at)) == 1 and premium_bars(at)
    assert not any(key in at.session_state for key in ("tax_price", "tax_sentence", "tax_mix", "tax_parity_merges"))
    choose_section(at, "cost")
    assert not premium_tables(at) and not premium_bars(at) and not charts(at)
    assert "fits in one context" in tables(at)[0].columns
    assert at.query_params["tax_section"] == "cost"
    change(at, at.number_input(key="tax_price"), 9.5)
    choose_section(at, "side")
    assert len(at.metric) == 2 and at.selectbox(key="tax_base").disabled  # any two languages, no base
    choose_section(at, "cost")
    assert at.number_input(key="tax_price").value == 9.5  # a section's settings are kept while another is shown
    choose_section(at, "tax")
    assert "tax_section" not in at.query_params  # the default is left out


@pytest.mark.parametrize(("query", "section", "key"), [
    ({"tax_section": "side"}, "side", "tax_sentence"),
    ({"tax_price": "9.5"}, "cost", "tax_price"),  # a link made before the page had sections
    ({"tax_left": "my"}, "side", "tax_left"),
    ({"tax_parity_merges": "1000"}, "parity", "tax_parity_merges"),
    ({"tax_section": "tax", "tax_price": "9.5"}, "tax", "tax_tokenizers"),  # the section named wins
])
def test_a_link_opens_the_section_it_names_or_its_settings_belong_to(query, section, key, monkeypatch):
    if section == "parity":  # its training is not what this test is about
        monkeypatch.setattr(tax_experiments, "parity_within_budget",
                            lambda *arguments, **options: parity_experiment(200))
    at = open_page(query=query)
    assert chosen_section(at) == section
    assert key in at.session_state


def test_the_section_and_corpus_buttons_follow_a_link_and_write_it():
    at = open_page(query={"tax_section": "What it costs"})  # a link made when the link held the label
    assert chosen_section(at) == "cost"
    choose_section(at, "side")
    assert chosen_section(at) == "side" and at.query_params["tax_section"] == "side"
    at.button(key="tax_corpus_udhr").click().run()
    assert at.query_params["tax_corpus"] == "udhr" and not at.button(key="tax_corpus_passage").proto.type == "primary"
    at.button(key="tax_corpus_passage").click().run()
    assert "tax_corpus" not in at.query_params and chosen_section(at) == "side"  # the section is kept
