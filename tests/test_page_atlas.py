"""The Tax page's atlas (corpus `udhr`), run headless with Streamlit's AppTest.

Every number is checked against tiktoken run here on the shipped
declarations, independently of the page and of the precomputed counts.
"""

import html
import re
import unicodedata

import pytest
from streamlit.testing.v1 import AppTest

import bpe_core.analysis.atlas
import bpe_core.corpora.udhr
from bpe_core.corpora.udhr import declaration_texts, declarations
from bpe_core.vocabularies.catalogue import CATALOGUE, LISTED
from bpe_core.vocabularies.openai import tiktoken_encoding
from pages.common.widgets import MAX_RENDERED_TOKENS
from tests.apptest import all_html, charts, html_tables
from tests.apptest import open_page as open_app
from tests.test_atlas_charts import drawn_spreads

pytestmark = pytest.mark.slow  # each opens the page: seconds

PAGE = "pages/tax.py"
OPENAI = ["gpt2", "cl100k_base", "o200k_base"]


def open_atlas(query: dict | None = None, **session) -> AppTest:
    """The atlas with its grid of every declaration open (it is drawn only once asked for)."""
    return open_app(PAGE, query={"tax_corpus": "udhr", **(query or {})}, **{"tax_udhr_table_open": True, **session})


def tokens(name: str, code: str, nfc: bool = False) -> int:
    text = declaration_texts()[code]
    return len(tiktoken_encoding(name).encode(unicodedata.normalize("NFC", text) if nfc else text))


def declaration_table(at: AppTest):
    return next(frame.value for frame in at.dataframe if "ISO 639-3" in frame.value.columns).set_index("code")


def change(at: AppTest, widget, value) -> AppTest:
    widget.set_value(value).run()
    assert not at.exception, at.exception
    return at


def test_the_first_visit_reads_no_declaration(monkeypatch):
    """The passage view is the default and stays as fast as it was: the
    UDHR texts and counts are read only when the atlas is shown."""
    def refuse(*args, **kwargs):
        raise AssertionError("the passage view read the UDHR corpus")

    monkeypatch.setattr(bpe_core.corpora.udhr, "declaration_texts", refuse)
    monkeypatch.setattr(bpe_core.corpora.udhr, "declarations", refuse)
    monkeypatch.setattr(bpe_core.analysis.atlas, "precomputed", refuse)
    at = open_app(PAGE, tax_tokenizers=["gpt2"])
    assert at.button(key="tax_corpus_passage").proto.type == "primary"  # the corpus shown is highlighted
    assert at.button(key="tax_corpus_udhr").proto.type == "secondary"
    assert any("<th class=num>byte premium</th>" in element.value for element in at.html)  # the premium table


def test_the_atlas_maps_every_declaration_with_its_premium_against_english():
    at = open_atlas(tax_tokenizers=OPENAI)
    assert at.selectbox(key="tax_udhr_base").value == "eng"
    assert at.selectbox(key="tax_map_tokenizer").value == "o200k_base"
    world = charts(at)[0]
    points = world["data"][0]
    assert points["type"] == "scattergeo" and len(points["lat"]) == len(declarations()) == 527
    by_code = {row[0]: row for row in points["customdata"]}
    english = tokens("o200k_base", "eng")
    assert by_code["mya"][3] == tokens("o200k_base", "mya") / english
    assert by_code["mya"][5] == tokens("o200k_base", "mya")
    assert by_code["mya"][6] == len(declaration_texts()["mya"])
    assert by_code["mya"][1] == "Burmese" and by_code["mya"][2] == "Myanmar"
    assert "in NFC" in by_code["vie"][4] and by_code["eng"][4] == ""  # Vietnamese as written is not NFC
    colours = points["marker"]
    assert colours["cmid"] == 0 and "1× = English" in colours["colorbar"]["ticktext"]  # log scale, 1× marked
    assert world["data"][1]["name"] == "base: English" and world["data"][2]["name"] == "chosen: Hindi"
    assert world["layout"]["geo"]["resolution"] == 110
    summary = next(element.value for element in at.html if "median declaration" in element.value)
    assert "Under o200k_base" in summary and "527" in summary


def test_the_table_lists_every_declaration_under_every_tokenizer():
    at = open_atlas(tax_tokenizers=OPENAI)
    table = declaration_table(at)
    assert len(table) == 527 and set(OPENAI) <= set(table.columns)
    for code in ("vie", "amh", "cmn_hans", "deu_1996"):
        for name in OPENAI:
            assert table.loc[code, name] == tokens(name, code) / tokens(name, "eng"), (code, name)
    assert table.loc["vie", "NFC premium"] == tokens("o200k_base", "vie", nfc=True) / tokens("o200k_base", "eng")
    assert table.loc["amh", "text"] == "no preamble" and table.loc["eng", "text"] == "all"
    assert table["o200k_base"].is_monotonic_decreasing  # the most taxed first
    assert any(button.label == "Every declaration (CSV)" for button in at.get("download_button"))


def test_any_declaration_can_be_the_base_and_the_map_can_show_another_tokenizer():
    at = open_atlas({"tax_udhr_base": "hin", "tax_map_tokenizer": "gpt2"}, tax_tokenizers=OPENAI)
    table = declaration_table(at)
    assert (table.loc["hin", OPENAI] == 1.0).all()
    assert table.loc["eng", "gpt2"] == tokens("gpt2", "eng") / tokens("gpt2", "hin")
    assert table.loc["eng", "tokens"] == tokens("gpt2", "eng")  # the map tokenizer's own columns
    assert "Under gpt2" in next(element.value for element in at.html if "median declaration" in element.value)
    change(at, at.selectbox(key="tax_udhr_base"), "eng")
    assert (declaration_table(at).loc["eng", OPENAI] == 1.0).all()


def test_one_language_shows_its_tokens_beside_the_bases_and_its_premiums_under_every_tokenizer():
    at = open_atlas(tax_tokenizers=OPENAI)
    change(at, at.selectbox(key="tax_udhr_language"), "vie")
    labels = [metric.label for metric in at.metric]
    assert "English (eng) · Latin" in labels and "Vietnamese (vie) · Latin" in labels
    vietnamese = next(m.value for m in at.metric if m.label.startswith("Vietnamese"))
    assert vietnamese == f"{tokens('o200k_base', 'vie'):,} tokens"
    notice = " ".join(info.value for info in at.info)
    as_written, nfc = (tokens("o200k_base", "vie", nfc=flag) / tokens("o200k_base", "eng") for flag in (False, True))
    assert "not in Unicode's NFC" in notice and f"{as_written:.2f}×" in notice and f"{nfc:.2f}×" in notice
    row = next(table for table in html_tables(at) if "tokenizer" in table.columns).set_index("tokenizer")
    assert list(row.index) == OPENAI
    assert row.loc["gpt2", "premium"] == f"{tokens('gpt2', 'vie') / tokens('gpt2', 'eng'):.2f}×"
    views = all_html(at)
    assert views.count('class="bpe-text') == 2 and "text: reamble\">reamble<" in views


def test_the_declarations_token_views_draw_their_first_characters_and_every_token_once_asked():
    """Two whole declarations are thousands of elements for the browser: each
    view draws the tokens of its first 800 characters and says how many more, until the button."""
    at = open_atlas({"tax_map_tokenizer": "gpt2"}, tax_tokenizers=["gpt2"])
    encoding, texts = tiktoken_encoding("gpt2"), declaration_texts()
    whole = {code: len(encoding.encode(texts[code])) for code in ("hin", "eng")}
    # The first tokens: those that start in the first 800 characters (by tiktoken's own token bytes).
    first = {}
    for code in whole:
        end, offset, count = len(texts[code][:800].encode("utf-8")), 0, 0
        for token in encoding.encode(texts[code]):
            if offset >= end:
                break
            offset, count = offset + len(encoding.decode_single_token_bytes(token)), count + 1
        first[code] = count
    views = all_html(at)
    assert views.count('class="bpe-tok') == first["hin"] + first["eng"]
    assert first["hin"] > 3 * first["eng"]  # Hindi under gpt2: mostly pieces of characters
    for code, count in whole.items():
        assert f"… and {count - first[code]:,} more tokens" in views
    at.button(key="tax_udhr_whole_switch").click().run()
    assert not at.exception, at.exception
    views = all_html(at)
    capped = {code: min(count, MAX_RENDERED_TOKENS) for code, count in whole.items()}  # as every token view is
    assert views.count('class="bpe-tok') == capped["hin"] + capped["eng"]
    assert views.count("more tokens") == sum(count > MAX_RENDERED_TOKENS for count in whole.values())
    assert at.button(key="tax_udhr_whole_switch").label == "Only the first 800 characters of each"


def test_the_most_taxed_are_a_plain_table_and_the_grid_of_every_declaration_opens_on_demand():
    at = open_atlas(tax_tokenizers=OPENAI, tax_udhr_table_open=False)
    assert not at.dataframe and not at.get("download_button")
    plain = next(table for table in html_tables(at) if "code" in table.columns)
    assert list(plain.columns) == ["code", "language", "script", *OPENAI, "tokens", "tokens per word"]
    at.session_state["tax_udhr_table_open"] = True  # what a click on the expander tells the page
    at.run()
    grid = declaration_table(at)
    assert len(plain) == 10 and len(grid) == 527
    assert list(plain["code"]) == list(grid.index[:10])  # the ten most taxed, in the grid's order
    worst = plain["code"][0]
    assert plain["o200k_base"][0] == f"{tokens('o200k_base', worst) / tokens('o200k_base', 'eng'):.2f}×"


def test_the_script_view_ranks_writing_systems_per_tokenizer():
    at = open_atlas(tax_tokenizers=["gpt2", "o200k_base"])
    view = next(element.value for element in at.html if "bpe-spreads" in element.value)
    assert [html.unescape(label) for label in re.findall(r"</i>([^<]*)</span>", view)] == ["gpt2", "o200k_base"]
    drawn = drawn_spreads(view)
    rows = list(drawn)
    assert f"Latin ({sum(d.script == 'Latin' for d in declarations().values())})" in rows
    medians = {row: float(re.search(r"median ([\d.]+)×", spreads[0][4]).group(1)) for row, spreads in drawn.items()}
    assert medians[rows[0]] == max(medians.values())  # the most taxed script on top
    assert medians["Myanmar (3)"] > 4 * medians[next(row for row in rows if row.startswith("Latin"))]
    assert all(len(spreads) == 2 for spreads in drawn.values())  # a spread per tokenizer in every row


def test_every_openai_and_zoo_tokenizer_is_measured_and_four_are_by_default():
    assert open_atlas().multiselect(key="tax_tokenizers").value == ["gpt2", "cl100k_base", "o200k_base", "llama3"]
    distinct = [name for name in LISTED if CATALOGUE[name].variant_of is None]  # variants are a choice away
    at = open_atlas(tax_tokenizers=distinct)
    assert set(distinct) <= set(declaration_table(at).columns)
    assert not at.warning


def test_a_link_to_an_unknown_declaration_falls_back_to_english():
    at = open_atlas({"tax_udhr_base": "<script>", "tax_udhr_language": "xx"}, tax_tokenizers=["gpt2"])
    assert at.selectbox(key="tax_udhr_base").value == "eng"
    assert at.selectbox(key="tax_udhr_language").value == "hin"


def test_a_tokenizer_missing_from_the_shipped_counts_is_counted_at_first_use(monkeypatch):
    from bpe_core.analysis.atlas import Precomputed
    from pages.common import declaration_counts
    from pages.common.shared_cache import SharedCache

    monkeypatch.setattr(declaration_counts, "ATLAS_COUNTS", SharedCache(max_entries=8, max_bytes=10_000_000))
    stored = bpe_core.analysis.atlas.precomputed()
    without_it = Precomputed(stored.declarations_sha256, stored.words,
                             {name: counts for name, counts in stored.tokenizers.items() if name != "o200k_base"})
    monkeypatch.setattr(bpe_core.analysis.atlas, "precomputed", lambda: without_it)
    counted = []
    original = bpe_core.analysis.atlas.count_tokenizer

    def count(tokenizer, *args, **kwargs):
        counted.append(tokenizer.name)
        return original(tokenizer, *args, **kwargs)

    monkeypatch.setattr(bpe_core.analysis.atlas, "count_tokenizer", count)
    at = open_atlas(tax_tokenizers=["o200k_base"])
    assert counted == ["o200k_base"]
    assert declaration_table(at).loc["mya", "o200k_base"] == tokens("o200k_base", "mya") / tokens("o200k_base", "eng")


def test_bundled_tokenizers_shipped_counts_are_drawn_without_loading_them(monkeypatch):
    """Each tokenizer's counts come from the shipped file by what it is read
    from: only the map's tokenizer is loaded (its text view needs it), not
    the others (each costs tens of MB and a second of the server's time)."""
    from pages.common import declaration_counts, tokenizers

    loaded = []
    real = tokenizers.tokenizer_by_name

    def loading(name):
        loaded.append(name)
        return real(name)

    monkeypatch.setattr(declaration_counts, "tokenizer_by_name", loading)
    monkeypatch.setattr(tokenizers, "tokenizer_by_name", loading)
    at = open_atlas({"tax_map_tokenizer": "cl100k_base"}, tax_tokenizers=OPENAI)
    assert set(loaded) == {"cl100k_base"}
    table = declaration_table(at)
    for name in OPENAI:
        assert table.loc["hin", name] == tokens(name, "hin") / tokens(name, "eng")


def test_a_tokenizer_loaded_from_a_file_is_counted_in_the_bounded_worker(monkeypatch):
    import gzip

    from bpe_core.formats import tokenizer_from_file
    from bpe_core.jobs import budgeted_counting
    from bpe_core.vocabularies.bundled_files import BUNDLED_DIR
    from pages.common import declaration_counts
    from pages.common.names import LOADED_TOKENIZERS

    workers = []
    real = budgeted_counting.count_within_budget

    def in_worker(tokenizer, *args, **kwargs):
        workers.append(tokenizer.name)
        return real(tokenizer, *args, **kwargs)

    monkeypatch.setattr(declaration_counts, "count_within_budget", in_worker)
    # An upload of o200k_base's rank file: ranks, not a merge history, as such files are.
    ranks = gzip.decompress((BUNDLED_DIR / "o200k_base.tiktoken.gz").read_bytes())
    loaded = tokenizer_from_file("mine.tiktoken", ranks, "o200k")
    name = "loaded: mine.tiktoken"
    session = {"tax_tokenizers": [name], LOADED_TOKENIZERS: {"mine.tiktoken": loaded}}
    at = open_atlas({"tax_map_tokenizer": name}, **session)
    assert workers == [loaded.name]
    assert not at.warning, [warning.value for warning in at.warning]
    table = declaration_table(at)
    assert table.loc["mya", name] == tokens("o200k_base", "mya") / tokens("o200k_base", "eng")
