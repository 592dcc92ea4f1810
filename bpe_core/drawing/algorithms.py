"""The Algorithms page's tables, bars and chips: pure functions, no Streamlit.

Algorithm names are the analysis's own (`ALGORITHMS`); tokens are drawn with
the chips every page uses, so a piece looks the same here as in Inspect.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..analysis.algorithms import ALGORITHMS, AlgorithmCost, LanguageEffect, OnlyHere, Removal, Superword
from ..analysis.tax import languages
from .bars import Bar, bars_html, bars_panel
from .palette import PALETTE, colour_for
from .tokens import CHIP_CSS, chip_html, label_html, vocabulary_html


def algorithm_rows(costs: Sequence[AlgorithmCost]) -> list[dict]:
    """One row per algorithm: its vocabulary, and what it made of the text."""
    return [
        {
            "algorithm": ALGORITHMS[cost.algorithm],
            "vocabulary": cost.n_vocab,
            "tokens": cost.cost.tokens,
            "bytes per token": cost.cost.bytes_per_token,
            "chars per token": cost.cost.chars_per_token,
            "tokens per word": cost.cost.fertility,
            "words split": cost.cost.split_share,
            "unknown tokens": cost.unknown_tokens,
            "characters lost": cost.unknown_chars,
            "decodes to the text": cost.round_trip,
        }
        for cost in costs
    ]


def bar_name(algorithm: str) -> str:
    """An algorithm's name under a narrow bar: "BoundlessBPE" may break as
    "Boundless-" "BPE" (a soft hyphen), not anywhere."""
    name = ALGORITHMS[algorithm]
    return name.replace("BPE", "\u00adBPE") if name.endswith("BPE") and not name.startswith("BPE") else name


def algorithm_bars(costs: Sequence[AlgorithmCost]) -> str:
    """Side by side, as HTML: bytes per token (compression, higher is better)
    and tokens per word (fertility, lower is better), a bar per algorithm."""
    colours = [PALETTE[index % len(PALETTE)] for index in range(len(costs))]

    def panel(title: str, values: list[float], unit: str) -> str:
        return bars_panel(title, [
            Bar(bar_name(cost.algorithm), value, colour, f"{value:.2f}", f"{ALGORITHMS[cost.algorithm]}: {value:.2f} {unit}")
            for cost, value, colour in zip(costs, values, colours)
        ])

    return bars_html(
        panel("Bytes per token (higher: shorter text)", [cost.cost.bytes_per_token for cost in costs], "bytes per token"),
        panel("Tokens per word (lower: fewer splits)", [cost.cost.fertility or 0.0 for cost in costs], "tokens per word"),
    )


def only_here_html(items: Sequence[OnlyHere]) -> str:
    """The pieces only one algorithm learned, as chips (most used first)."""
    return vocabulary_html([(item.token_id, item.text) for item in items], colour_by="id")


def superwords_html(words: Sequence[Superword]) -> str:
    """Tokens that span words, as chips, each with how often it was used."""
    chips = "".join(
        f'<span class="bpe-counted">{chip_html(word.text, word.token_id, colour_for(0, word.token_id, "id"))}'
        f"<small>×{word.uses:,}</small></span>"
        for word in words
    )
    return f"{CHIP_CSS}{COUNTED_CSS}<div class=\"bpe-chips bpe-vocab\">{chips}</div>"


COUNTED_CSS = """<style>
.bpe-counted { display: inline-flex; align-items: baseline; gap: 0.15em; margin-right: 0.4em; }
.bpe-counted > small { color: #555; font-size: 0.75em; }
.bpe-removals { list-style: none; padding: 0; margin: 0 0 1rem; font-family: inherit; }
.bpe-removals li { margin: 0.15rem 0; }
.bpe-removals .bpe-chip { font-family: ui-monospace, "DejaVu Sans Mono", "Noto Sans Mono", monospace; }
</style>"""


def removal_line(removal: Removal) -> str:
    """One removal in words, as HTML: "ould removed after merge 812 ( w +
    ould → would): 0.97 of its uses were inside would"."""
    left, right, made = (f'<span class="bpe-chip" style="background:#eee">{label_html(text)}</span>'
                         for text in removal.merged)
    removed = chip_html(removal.text, removal.token_id, colour_for(0, removal.token_id, "id"))
    return (f"{removed} removed after merge {removal.step:,} ({left} + {right} → {made}): "
            f"{removal.ios:.2f} of its uses were inside {made}")


def removals_html(removed: Sequence[Removal]) -> str:
    """Picky BPE's removals, a line each (`removal_line`)."""
    lines = "".join(f"<li>{removal_line(removal)}</li>" for removal in removed)
    return f'{CHIP_CSS}{COUNTED_CSS}<ul class="bpe-chips bpe-removals">{lines}</ul>'


def gini_bars(effects: Sequence[LanguageEffect]) -> str:
    """The Gini coefficient of each algorithm's tokens per language (lower:
    more even), and its English tokens' premium spread, as bars."""
    colours = [PALETTE[index % len(PALETTE)] for index in range(len(effects))]
    return bars_html(bars_panel("Gini of tokens per language (lower: more even)", [
        Bar(bar_name(effect.algorithm), effect.gini, colour, f"{effect.gini:.3f}",
            f"{ALGORITHMS[effect.algorithm]}: Gini {effect.gini:.3f}")
        for effect, colour in zip(effects, colours)
    ]), bars_panel("Highest premium (tokens over English's)", [
        Bar(bar_name(effect.algorithm), max(effect.premiums.values()), colour,
            f"{max(effect.premiums.values()):.2f}×", f"{ALGORITHMS[effect.algorithm]}: {max(effect.premiums.values()):.2f}×")
        for effect, colour in zip(effects, colours)
    ]))


def language_rows(effects: Sequence[LanguageEffect]) -> list[dict]:
    """A row per language (the highest premium under the first effect's
    algorithm first): its premium under each algorithm, and for each after
    the first, its tokens against the first's (plain BPE's)."""
    names = {code: language.name for code, language in languages().items()}
    base = effects[0]
    rows = []
    for code in sorted(base.premiums, key=lambda code: -base.premiums[code]):
        row = {"language": names.get(code, code)}
        for effect in effects:
            row[f"{ALGORITHMS[effect.algorithm]} premium"] = f"{effect.premiums[code]:.2f}×"
        for effect in effects[1:]:
            change = effect.tokens[code] / base.tokens[code] - 1
            row[f"{ALGORITHMS[effect.algorithm]} vs {ALGORITHMS[base.algorithm]}"] = f"{change:+.1%}"
        rows.append(row)
    return rows
