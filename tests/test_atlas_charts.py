"""The atlas's figures and tables, as plain functions (no browser): from the
shipped counts, checked against the numbers they are drawn from."""

import html
import math
import re
import statistics

import pytest

from bpe_core.analysis.atlas import TokenizerCounts, atlas_rows, precomputed
from bpe_core.corpora.udhr import declarations
from bpe_core.drawing.atlas import (
    MAP_CONFIG,
    TOPOJSON_URL,
    atlas_frame,
    atlas_map_figure,
    atlas_summary,
    language_frame,
    script_spreads_html,
    tokens_to_show,
)


@pytest.fixture(scope="module")
def rows():
    stored = precomputed()
    return atlas_rows({name: stored.tokenizers[name] for name in ("gpt2", "o200k_base")}, stored.words)


def test_the_map_has_every_declaration_at_its_place_coloured_by_log_premium(rows):
    about = declarations()
    figure = atlas_map_figure(rows, about, "o200k_base", "eng", selected="amh")
    points = figure.data[0]
    assert len(points.lat) == len(about)
    premiums = {row.code: row.premium for row in rows if row.tax.tokenizer == "o200k_base"}
    codes = [c[0] for c in points.customdata]
    for code, lat, lon, colour in zip(codes, points.lat, points.lon, points.marker.color, strict=True):
        assert (lat, lon) == (about[code].latitude, about[code].longitude)
        assert colour == math.log2(premiums[code])
    assert list(points.marker.color) == sorted(points.marker.color)  # the most taxed drawn last, on top
    assert points.marker.cmid == 0 and -points.marker.cmin == points.marker.cmax >= 2
    assert "1× = English" in points.marker.colorbar.ticktext
    base, chosen = figure.data[1], figure.data[2]
    assert base.marker.symbol == "star" and base.customdata[0][0] == "eng"
    assert chosen.marker.symbol == "circle-open" and chosen.customdata[0][0] == "amh"
    assert figure.layout.geo.resolution == 110 and MAP_CONFIG["topojsonURL"] == TOPOJSON_URL


def test_the_maps_hover_says_name_script_premium_tokens_and_characters(rows):
    figure = atlas_map_figure(rows, declarations(), "o200k_base", "eng")
    vietnamese = next(c for c in figure.data[0].customdata if c[0] == "vie")
    row = next(r for r in rows if r.code == "vie" and r.tax.tokenizer == "o200k_base")
    assert vietnamese[1:4] == ["Vietnamese", "Latin", row.premium]
    assert vietnamese[4] == f" as written, {row.nfc_premium:.2f}× in NFC"
    assert vietnamese[5:] == [row.tax.cost.tokens, row.tax.cost.chars]
    for part in ("customdata[1]", "customdata[2]", "premium", "tokens", "characters"):
        assert part in figure.data[0].hovertemplate


def drawn_spreads(markup: str) -> dict[str, list[tuple[float, float, float, str, str]]]:
    """The script view as a reader sees it: per row, each spread's range bar
    (left and right edge, % of the row), its dot (%), colour and hover."""
    figure = re.sub(r"<style>.*?</style>", "", markup, flags=re.S)
    rows = {}
    for chunk in figure.split('<div class="bpe-hbars-name">')[1:]:
        name, spreads = chunk.split("</div>", 1)
        rows[html.unescape(name)] = [
            (float(left), float(left) + float(width), float(dot), colour, html.unescape(hover))
            for hover, left, width, colour, dot, dot_colour in re.findall(
                r'<div class="bpe-spread" title="([^"]*)"><i class="bpe-spread-range" style="left: ([\d.]+)%; '
                r'width: ([\d.]+)%; background: ([^"]*)"></i><i class="bpe-spread-median" style="left: ([\d.]+)%; '
                r'background: ([^"]*)"></i></div>', spreads)
            if dot_colour == colour
        ]
    return rows


def test_names_reach_the_figures_escaped():
    stored = precomputed()
    hostile = "<img src=x onerror=alert(1)>"
    rows = atlas_rows({hostile: TokenizerCounts("x", stored.tokenizers["gpt2"].tokens)}, stored.words)
    markup = script_spreads_html(rows, declarations(), [hostile], "eng")
    assert "<img" not in markup and "&lt;img src=x onerror=alert(1)&gt;" in markup
    assert all(hostile in spread[4] for spreads in drawn_spreads(markup).values() for spread in spreads)


def test_the_script_view_gives_each_scripts_median_and_quartiles_on_a_log_scale(rows):
    about = declarations()
    markup = script_spreads_html(rows, about, ["gpt2", "o200k_base"], "eng")
    drawn = drawn_spreads(markup)
    cyrillic = [row.premium for row in rows if row.tax.tokenizer == "gpt2" and about[row.code].script == "Cyrillic"]
    lower, median, upper = statistics.quantiles(cyrillic, n=4, method="inclusive")
    gpt2, o200k = drawn[f"Cyrillic ({len(cyrillic)})"]
    assert gpt2[4] == (f"Cyrillic ({len(cyrillic)}), gpt2\nmedian {median:.2f}×\nquartiles {lower:.2f}× – {upper:.2f}×\n"
                       f"lowest {min(cyrillic):.2f}×, highest {max(cyrillic):.2f}×")
    assert gpt2[3] != o200k[3] and "o200k_base" in o200k[4]
    # One log scale: equal ratios are equal distances (the 1× line, the range bar's ends, the dot).
    mark = float(re.search(r"--bpe-mark: ([\d.]+)%", markup).group(1))
    ticks = {label: float(left) for left, label in re.findall(r'<span style="left: ([\d.]+)%">([\d.]+)×</span>', markup)}
    per_doubling = ticks["2"] - ticks["1"]
    assert ticks["1"] == pytest.approx(mark, abs=0.01) and ticks["4"] - ticks["2"] == pytest.approx(per_doubling, abs=0.02)
    for value, position in ((lower, gpt2[0]), (median, gpt2[2]), (upper, gpt2[1])):
        assert position == pytest.approx(mark + per_doubling * math.log2(value), abs=0.05)
    medians = [float(re.search(r"median ([\d.]+)×", spreads[0][4]).group(1)) for spreads in drawn.values()]
    assert medians == sorted(medians, reverse=True)  # the most taxed script first
    assert all(0 <= left <= dot <= right <= 100 for spreads in drawn.values() for left, right, dot, *_ in spreads)


def test_the_table_has_a_row_per_declaration_the_most_taxed_first(rows):
    about = declarations()
    frame = atlas_frame(rows, about, "gpt2").set_index("code")
    assert len(frame) == len(about)
    assert frame["gpt2"].is_monotonic_decreasing
    assert frame.loc["eng", "gpt2"] == 1.0 and frame.loc["eng", "text"] == "all"
    assert math.isnan(frame.loc["eng", "NFC premium"]) and frame.loc["vie", "NFC premium"] < frame.loc["vie", "gpt2"]
    assert frame.loc["ike", "text"] == "23 of 30 articles"
    assert frame.loc["ykg", "text"] == "no preamble, 29 of 30 articles"
    assert math.isnan(frame.loc["bod", "tokens per word"]) and frame["tokens per word"].dtype == float


def test_one_language_under_every_tokenizer_and_the_maps_sentence(rows):
    frame = language_frame(rows, "mya").set_index("tokenizer")
    assert list(frame.index) == ["gpt2", "o200k_base"]
    assert frame.loc["gpt2", "premium"] > 4 * frame.loc["o200k_base", "premium"]
    summary = atlas_summary(rows, declarations(), "o200k_base", "eng")
    premiums = [row.premium for row in rows if row.tax.tokenizer == "o200k_base"]
    assert summary.startswith(f"Under o200k_base, the median declaration costs {statistics.median(premiums):.2f}×")
    assert f"{sum(p >= 2 for p in premiums)} of 527 cost twice as many or more" in summary


def test_a_declarations_view_shows_the_tokens_of_its_first_characters():
    from bpe_core.engine.tokenizer import TokenSpan

    text = "aé€𝄞b"  # 1, 2, 3, 4 and 1 bytes
    spans = [TokenSpan(1, 0, 2), TokenSpan(2, 2, 3), TokenSpan(3, 3, 6), TokenSpan(4, 6, 10), TokenSpan(5, 10, 11)]
    assert tokens_to_show(text, spans, 2) == 2  # "aé" ends at byte 3: the token holding é's last byte is in
    assert tokens_to_show(text, spans, 3) == 3 and tokens_to_show(text, spans, 0) == 0
    assert tokens_to_show(text, spans, 99) == len(spans)
