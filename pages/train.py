"""Train: step through byte pair encoding, merge by merge.

Training runs once per corpus and settings (cached); stepping only replays
the recorded trace, so moving through ten thousand merges is instant.
"""

import streamlit as st

from bpe_core import PRESETS
from bpe_core.analysis.downloads import merges_csv
from bpe_core.analysis.training_view import held_steps
from bpe_core.corpora.samples import catalog
from bpe_core.drawing.markdown import markdown_literal
from bpe_core.drawing.merges_gif import MAX_FRAMES, merge_range, merges_gif
from bpe_core.drawing.standalone import MAX_SAVED_STEPS, training_page
from bpe_core.drawing.step_control import compressed_view
from bpe_core.drawing.tokens import pieces_html
from bpe_core.drawing.training_view import WINDOW_CHARS, training_run_view
from bpe_core.engine.corpus import corpus_fingerprint
from bpe_core.engine.patterns import PRESET_LABELS, PatternError, piece_spans, uncovered_spans
from bpe_core.formats import hf_export_problem, hf_tokenizer_json, tiktoken_file_text, tokenizer_to_json
from bpe_core.jobs.budgeted_training import OverBudgetError
from bpe_core.sandbox.untrusted_regex import MAX_REGEX_CHARS
from pages.common.live_text import live_text_area, typed_text
from pages.common.menus import id_or_label, one_of, shown_value, whole_number
from pages.common.names import TRAINED
from pages.common.navigation import page_header
from pages.common.stepper import control_position, drawn_alone, kept_view, stepper
from pages.common.tokenizers import (
    TRAINING_BUDGET,
    Recipe,
    TrainedTokenizer,
    TrainingCancelled,
    corpus_pieces,
    session_trained,
    train_on,
    training_key,
)
from pages.common.url_state import (
    LINK_TEXT_LIMIT,
    LINKED,
    keep_in_link,
    labelled_choice,
    link_text,
    linked_text,
    whole_number_input,
)
from pages.common.widgets import MAX_UPLOAD_BYTES, Refused, encode_for_view, show_tokens, uploaded_text

MAX_PASTED_CHARS = 1_000_000
SOURCES = ["Sample", "Paste", "Upload"]
DEFAULT_SAMPLE = "english_prose"
UNITS = ["bytes", "chars"]
PATTERNS = [*PRESETS, "custom"]
DEFAULT_PATTERN = "cl100k"
DEFAULT_VOCAB, MAX_VOCAB = 1_000, 100_000
STEPPER_KEY = "train_stepper"
TRY_TEXT, TRY_BOX = "train_try_text", "train_try_box"  # session keys: the try-it text, and its box
DEFAULT_TRY_TEXT = "The lowest, newest and widest."
STEP_PARAM, SPEED_PARAM = "train_step", "train_speed"  # the link's names for the step and Play's speed

page_header(
    "Train",
    "Byte pair encoding starts from single bytes and repeatedly merges the most frequent adjacent "
    "pair into a new token. Pick a corpus and settings, then step through the merges "
    "(keys: → next, ← previous, Home, End, space to play or pause).",
    carries_trained=False,  # this page's own widgets are in the link
)


# ------------------------------------------------------------------ corpus


def choose_corpus() -> tuple[str | dict[str, int] | None, str, str | None]:
    """The training corpus, a short label, and the sample id (None for other
    sources); (None, "", None) after a message when there is nothing to use."""
    source = st.segmented_control("Corpus", SOURCES, key="train_source", default="Sample", required=True, **LINKED)
    if source == "Paste":
        st.session_state["train_text"] = st.session_state.get("train_text", linked_text("train_text", ""))
        text = st.text_area(
            "Training text", key="train_text", height=180,
            persist_state="session", placeholder="Paste the text to learn merges from…",
        )
        link_text("train_text", text, "")
        if not text.strip():
            st.info("Paste some text to train on (at least a few words).")
            return None, "", None
        refused = paste_refusal(text)
        if refused:
            st.error(refused.message)
            return None, "", None
        return text, f"pasted text ({len(text):,} characters)", None
    if source == "Upload":
        uploaded = st.file_uploader(
            f"A UTF-8 .txt file (up to {MAX_UPLOAD_BYTES / 1e6:.0f} MB)", type=["txt"], key="train_upload",
            max_upload_size=MAX_UPLOAD_BYTES // 1_000_000,
        )
        st.caption("A link cannot carry an uploaded file: copied links open this page without it.")
        if uploaded is None:
            return None, "", None
        text = uploaded_text(uploaded)
        if isinstance(text, Refused):
            st.error(text.message)
            return None, "", None
        return text, f"“{uploaded.name}”", None
    samples = catalog()
    sample_id = labelled_choice(st, "Sample", sample_titles(), key="train_sample", default=DEFAULT_SAMPLE)
    st.caption(samples[sample_id].description)
    return samples[sample_id].load(), samples[sample_id].title, sample_id


def sample_titles() -> dict[str, str]:
    return {sample_id: sample.title for sample_id, sample in catalog().items()}


def corpus_status() -> tuple[str, str | None, bool]:
    """The corpus menu's label (the corpus chosen, read before its widgets run, see `pages.common.menus`);
    why there is nothing to train on, for the main view (None when there is: the menu says it in full);
    and whether that is because the paste or the upload was refused."""
    source = shown_value("train_source", "Sample", one_of(SOURCES))
    if source == "Paste":
        text = st.session_state.get("train_text", linked_text("train_text", ""))
        if not text.strip():
            return "Corpus: paste a text", "Paste a text to train on in the Corpus menu.", False
        refused = paste_refusal(text)
        if refused:
            return (f"Corpus: pasted text, {len(text):,} characters ({refused.reason})",
                    f"The pasted text is {refused.reason} to train on: {len(text):,} characters, up to {MAX_PASTED_CHARS:,} "
                    "(the Corpus menu says what to do).", True)
        return f"Corpus: pasted text, {len(text):,} characters", None, False
    if source == "Upload":
        uploaded = st.session_state.get("train_upload")
        if uploaded is None:
            return "Corpus: upload a file", "Upload a file to train on in the Corpus menu.", False
        name = f"“{markdown_literal(uploaded.name)}”"
        text = uploaded_text(uploaded)
        if isinstance(text, Refused):
            return (f"Corpus: {name} ({text.reason})",
                    f"Cannot train on {name}: it is {text.reason} (the Corpus menu says more).", True)
        return f"Corpus: {name}", None, False
    titles = sample_titles()
    sample_id = shown_value("train_sample", DEFAULT_SAMPLE, id_or_label(titles))
    return f"Corpus: {markdown_literal(titles.get(sample_id, titles[DEFAULT_SAMPLE]))}", None, False


def paste_refusal(text: str) -> Refused | None:
    """Why a pasted text cannot be a corpus (it is too long: a longer one
    goes through Upload), or None; the corpus menu and its label both ask."""
    if len(text) <= MAX_PASTED_CHARS:
        return None
    return Refused(
        "too long",
        f"The pasted text has {len(text):,} characters; pasting is limited to {MAX_PASTED_CHARS:,}. "
        f"Save it as a .txt file and use Upload (up to {MAX_UPLOAD_BYTES / 1e6:.0f} MB).",
    )


def settings_label() -> str:
    """The settings menu's label: vocabulary size, units and split pattern, read before their widgets run."""
    vocab_size = shown_value("train_vocab", DEFAULT_VOCAB, whole_number(1, MAX_VOCAB))
    units = shown_value("train_units", "bytes", one_of(UNITS))
    pattern = shown_value("train_pattern", DEFAULT_PATTERN, one_of(PATTERNS))
    return f"Vocabulary {vocab_size:,} · {units} · split {PRESET_LABELS.get(pattern, 'by a custom regex')}"


def choose_settings() -> dict:
    units = st.segmented_control(
        "Units", UNITS, key="train_units", default="bytes", required=True, **LINKED,
        help="bytes: byte-level BPE as GPT models use (256 base tokens). chars: the textbook variant.",
    )
    vocab_size = whole_number_input(
        st, "Vocabulary size", key="train_vocab", value=DEFAULT_VOCAB, min_value=1, max_value=MAX_VOCAB, step=100,
        help="Base tokens (256 bytes, or the alphabet) plus merges.",
    )
    preset = st.selectbox(
        "Split pattern", PATTERNS, key="train_pattern", index=PATTERNS.index(DEFAULT_PATTERN), **LINKED,
        help="Pre-tokenization: BPE never merges across the pieces this regex cuts. "
        + "; ".join(f"{name}: {label}" for name, label in PRESET_LABELS.items()) + "; custom: your own regex.",
    )
    specials = st.text_input(
        "Special tokens", key="train_specials", value="<|endoftext|>", **LINKED,
        help="Comma-separated. They get ids after the merges and are never merged.",
    )
    pattern = preset
    if preset == "custom":
        pattern = st.text_input(
            "Custom regex", key="train_custom", value=r"\w+|\s+|[^\w\s]+", max_chars=MAX_REGEX_CHARS, **LINKED,
            help="Python `regex` syntax, e.g. \\p{L}+ for letters. Text it does not match is dropped.",
        )
    special_tokens = tuple(dict.fromkeys(s.strip() for s in specials.split(",") if s.strip()))
    return dict(vocab_size=int(vocab_size), pattern=pattern, units=units, special_tokens=special_tokens)


def show_pieces(corpus, pattern: str) -> None:
    """What the split pattern does to the start of the corpus: drawn only
    while its expander is open (the corpus's first pieces, tens of kilobytes
    of HTML, are sent with every run otherwise)."""
    with st.expander("What the split pattern does", key="train_pieces_open", on_change="rerun") as pieces:
        if not pieces.open:
            return
        if not isinstance(corpus, str):
            st.caption("A word-count corpus is already split: each word is one piece.")
            return
        sample = corpus[:WINDOW_CHARS]
        try:
            spans = piece_spans(sample, pattern)
            gaps = uncovered_spans(sample, pattern)
        except PatternError as error:
            st.error(markdown_literal(str(error)))
            return
        st.caption(f"{len(spans):,} pieces in the first {len(sample):,} characters. BPE merges only inside a piece.")
        if gaps:
            st.warning(f"The pattern leaves {sum(end - start for start, end in gaps):,} characters unmatched "
                       "(struck through): they are dropped, as tiktoken drops them.")
        st.html(pieces_html(sample, spans))


# ---------------------------------------------------------------- training


def train_or_keep_previous(corpus, label: str, sample_id: str | None, settings: dict) -> None:
    """Train on the current inputs; on bad input explain it and keep the previous result."""
    try:
        tokenizer = train_on(corpus, **settings)
    except (TrainingCancelled, OverBudgetError) as stopped:
        st.warning(markdown_literal(str(stopped)))
    except ValueError as error:  # includes PatternError
        st.error(f"Cannot train with these settings: {markdown_literal(str(error))}")
    else:
        st.session_state[TRAINED] = TrainedTokenizer(tokenizer, corpus, label, recipe_for(corpus, sample_id, settings),
                                                     training_key(corpus, settings))
        if tokenizer.stop_reason and "time allowed" in tokenizer.stop_reason:
            st.warning(
                f"Training stopped when the {TRAINING_BUDGET.seconds:g} s the app allows one job ran out: "
                f"{markdown_literal(tokenizer.stop_reason)}. The page shows the tokenizer so far; to learn every "
                "merge, train with the command line (python -m bpe_core train FILE --vocab-size N -o tok.json) "
                "and load tok.json on Inspect or Vocabulary."
            )
        return
    if session_trained() is not None:
        st.caption("Still showing the previous tokenizer.")


def trained_summary(trained: TrainedTokenizer) -> str:
    """What was trained, in one line (Markdown)."""
    tokenizer = trained.tokenizer
    pattern = PRESET_LABELS.get(tokenizer.pattern_name, "a custom regex")
    return (
        f"Trained on **{markdown_literal(trained.corpus_label)}**, {tokenizer.units}, split by {pattern}: "
        f"{len(tokenizer.merges):,} merges, vocabulary {tokenizer.first_merge_id + len(tokenizer.merges):,} "
        f"+ {len(tokenizer.special_tokens)} special"
        + (" + 1 for unknown characters." if tokenizer.unknown_id is not None else ".")
        + (f" Stopped early: {markdown_literal(tokenizer.stop_reason)}." if tokenizer.stop_reason else "")
    )


def recipe_for(corpus, sample_id: str | None, settings: dict) -> Recipe | None:
    """How other pages' links can rebuild this tokenizer, if a link can carry its corpus."""
    linkable_text = isinstance(corpus, str) and sample_id is None and len(corpus) <= LINK_TEXT_LIMIT
    if sample_id is None and not linkable_text:
        return None
    return Recipe(sample_id, None if sample_id else corpus, **settings)


# ------------------------------------------------------------- stepping


@st.cache_resource(max_entries=16, show_spinner="Preparing the steps…")  # read-only: shared, never copied
def training_view(tokenizer_key: str, corpus_key: str, first_step: int, last_step: int, _trained: TrainedTokenizer,
                  _pieces: dict[str, int]) -> bytes:
    """Everything the step control shows for steps `first_step` to
    `last_step` (see bpe_core.drawing.training_view.training_run_view), once per tokenizer
    and span."""
    steps = range(first_step, last_step + 1)
    return drawn_alone(lambda: compressed_view(
        training_run_view(_trained.tokenizer, _trained.corpus, _pieces, steps, opening=opening_of(_trained))))


def opening_of(trained: TrainedTokenizer) -> int:
    """Where the shown text starts: a bundled book's text proper, past its title pages."""
    sample = trained.recipe.sample if trained.recipe else None
    return catalog()[sample].opening_offset(trained.corpus) if sample else 0


def try_it(tokenizer, step: int) -> None:
    """A box to encode any text with the tokenizer as of `step`; the tokens follow the typing."""
    typed = typed_text(TRY_BOX)
    text = st.session_state[TRY_TEXT] = typed if typed is not None else st.session_state.get(TRY_TEXT, DEFAULT_TRY_TEXT)
    live_text_area(f"Try it: encode any text with the tokenizer as of step {step:,}", key=TRY_BOX, value=text,
                   height=68, placeholder="Type anything: the tokens follow as you type")
    spans = encode_for_view(tokenizer, text, allow_special=True, step=step)
    st.caption(f"{len(spans):,} token{'s' * (len(spans) != 1)} for {len(text.encode()):,} bytes")
    show_tokens(text, spans, tokenizer)


def cannot_show(error: PatternError) -> None:
    """A finished training whose text the server could not split in time
    (a custom pattern; its worker had more time): one line, no traceback."""
    st.error(f"Cannot show this training: {markdown_literal(str(error))}")


def step_through(trained: TrainedTokenizer, corpus_key: str, pieces: dict[str, int]) -> None:
    """The step control over the training run (`corpus_key`: its corpus's
    fingerprint; `pieces`: its piece counts), and the try-it box that
    follows the step the control last told."""
    tokenizer = trained.tokenizer
    total = len(tokenizer.trace)

    @st.fragment
    def stepping():
        step, speed = control_position(STEPPER_KEY, total, STEP_PARAM, SPEED_PARAM)
        steps = held_steps(step, total)
        view_key = f"{tokenizer.fingerprint}:{corpus_key}:{steps.start}"
        try:
            view = kept_view(STEPPER_KEY, view_key, lambda: training_view(
                tokenizer.fingerprint, corpus_key, steps.start, steps[-1], trained, pieces))
        except PatternError as error:  # the pieces were counted in time once; this span's text is split anew
            cannot_show(error)
            return
        stepper(view, view_key=view_key, key=STEPPER_KEY, step=step, speed=speed, param=STEP_PARAM,
                speed_param=SPEED_PARAM, steps=steps, playable=True)
        # The browser moved the address bar's step itself; the server's copy follows.
        keep_in_link(STEP_PARAM, step, 0)
        keep_in_link(SPEED_PARAM, speed, 1)
        try_it(tokenizer, step)

    stepping()


def downloads(trained: TrainedTokenizer, pieces: dict[str, int]) -> None:
    """The tokenizer in every format it can take, the steps as a page, and the merges as a GIF."""
    tokenizer = trained.tokenizer
    st.download_button("Tokenizer (JSON)", lambda: tokenizer_to_json(tokenizer), "tokenizer.json",
                       "application/json", key="download_json", help="Reload it with bpe_core.Tokenizer.load")
    st.download_button("Merges (CSV)", lambda: merges_csv(tokenizer), "merges.csv", "text/csv", key="download_csv")
    if tokenizer.units == "bytes":
        st.download_button("tiktoken ranks", lambda: tiktoken_file_text(tokenizer), "trained.tiktoken", "text/plain",
                           key="download_tiktoken", help="Load with tiktoken.load.load_tiktoken_bpe")
    else:
        st.caption("tiktoken files are byte-level only.")
    problem = hf_export_problem(tokenizer)
    if problem:
        st.caption(f"No Hugging Face export: {markdown_literal(problem)}")
    else:
        exactness = (" Exact for this preset split pattern." if tokenizer.pattern_name != "custom" else
                     " With a custom regex, Hugging Face's regex engine may read some syntax differently.")
        st.download_button("Hugging Face tokenizer.json", lambda: hf_tokenizer_json(tokenizer), "hf_tokenizer.json",
                           "application/json", key="download_hf",
                           help="Load with tokenizers.Tokenizer.from_file." + exactness)
    if len(tokenizer.trace) > MAX_SAVED_STEPS:
        st.caption(f"A saved page holds up to {MAX_SAVED_STEPS:,} merges: train a smaller vocabulary to save one.")
    else:
        st.download_button(
            "Download as a page", lambda: training_page(tokenizer, trained.corpus, corpus_label=trained.corpus_label,
                                                        opening=opening_of(trained), pieces=pieces),
            "train.html", "text/html", key="download_page", on_click="ignore",
            help="These steps as one HTML file with the same step control: it opens in any browser with no "
            "server and no network, for a talk offline.")
    merges_as_gif(trained)


def merges_as_gif(trained: TrainedTokenizer) -> None:
    """An animated GIF of the merges asked for, for slides."""
    total = len(trained.tokenizer.trace)
    merges = st.text_input("Merges for a GIF (A:B)", value=f"0:{min(40, total)}", key="train_gif",
                           help=f"The merges after step A up to step B, one 16:9 frame each (up to {MAX_FRAMES}).")
    try:
        steps = merge_range(merges, total)
    except ValueError as error:
        st.caption(markdown_literal(str(error)))
        return
    st.download_button(
        "Merges as a GIF", lambda: merges_gif(trained.tokenizer, trained.corpus, steps, opening=opening_of(trained)),
        "merges.gif", "image/gif", key="download_gif", on_click="ignore",
        help="The training text as each merge lands, the new token outlined, with the step counter: for slides.")


# ------------------------------------------------------------------- page

# The merges fill the page; the set-up and the downloads wait in menus whose
# labels say what is chosen. A menu's widgets run on every run (their values
# and links hold), but the browser draws them only when the menu opens.
toolbar = st.container(horizontal=True)
menu_label, corpus_problem, refused = corpus_status()
with toolbar.popover(menu_label, key="train_corpus_menu"):
    corpus, label, sample_id = choose_corpus()
with toolbar.popover(settings_label(), key="train_settings_menu"):
    settings = choose_settings()
    if corpus is not None:
        show_pieces(corpus, settings["pattern"])
if corpus is not None:
    train_or_keep_previous(corpus, label, sample_id, settings)

trained = session_trained()
if corpus is None and corpus_problem:  # said in the menu, which may be closed: the page says it too
    (st.error if refused else st.info)(corpus_problem)
    if trained is not None:
        st.caption("Still showing the previous tokenizer.")
if trained is None:
    if not corpus_problem:
        st.info("Choose a corpus to train on.")
else:
    tokenizer = trained.tokenizer
    corpus_key = corpus_fingerprint(trained.corpus)
    try:
        pieces = corpus_pieces(corpus_key, trained.corpus, tokenizer.pattern, tuple(tokenizer.special_tokens))
    except PatternError as error:  # a custom split that its worker finished in time, and the server does not
        cannot_show(error)
        st.stop()
    with toolbar.popover("Download", icon=":material/download:", key="train_download_menu"):
        downloads(trained, pieces)
    st.caption(trained_summary(trained))
    step_through(trained, corpus_key, pieces)
