"""The Gini coefficient of per-language token cost (`tax.gini`, `cost_gini`,
`passage_gini`, `atlas.declarations_gini`), the fairness measure of
parity-aware BPE: against two textbook definitions written here, on
examples worked by hand, and in `tax --json` against counts by tiktoken."""

import json
import random

import pytest

from bpe_core.analysis.atlas import counts_for, declarations_gini
from bpe_core.analysis.tax import Cost, corpus_table, cost_gini, gini, languages, parallel_text, passage_gini
from bpe_core.corpora.udhr import declaration_texts, declarations
from bpe_core.vocabularies.catalogue import load_encoding
from bpe_core.vocabularies.openai import tiktoken_encoding
from tests.cli import run_cli


def mean_absolute_difference_gini(values):
    """The textbook definition: the mean absolute difference of every
    ordered pair, over twice the mean."""
    n = len(values)
    mean = sum(values) / n
    return sum(abs(x - y) for x in values for y in values) / (n * n) / (2 * mean)


def lorenz_gini(values):
    """The other textbook definition: one minus twice the area under the
    Lorenz curve (cumulative share of the total against share of the
    population, values ascending), the area summed as trapezoids."""
    ordered = sorted(values)
    total, n = sum(ordered), len(ordered)
    area, before = 0.0, 0.0
    for value in ordered:
        after = before + value / total
        area += (before + after) / (2 * n)
        before = after
    return 1 - 2 * area


@pytest.mark.parametrize("values, by_hand", [
    ([3, 3, 3, 3], 0.0),  # parity
    ([0, 0, 0, 1], 3 / 4),  # one language pays everything: 1 - 1/n
    ([1, 2, 3], 8 / 36),  # |differences| over ordered pairs: 2 x (1 + 2 + 1) = 8; 2 n^2 mean = 2 x 9 x 2
    ([2, 4], 1 / 6),  # English 2 tokens a line, another language 4: 2 x 2 / (2 x 4 x 3)
    ([1, 1, 1, 3.4], 2.4 * 2 * 3 / (2 * 16 * 1.6)),  # three at English's cost, one at 3.4x
])
def test_gini_on_examples_worked_by_hand(values, by_hand):
    assert gini(values) == pytest.approx(by_hand)
    assert mean_absolute_difference_gini(values) == pytest.approx(by_hand)
    assert lorenz_gini(values) == pytest.approx(by_hand)


def test_gini_equals_both_textbook_definitions_on_random_costs():
    generator = random.Random(31)
    for _ in range(200):
        values = [generator.uniform(0.5, 12) for _ in range(generator.randint(1, 40))]
        assert gini(values) == pytest.approx(mean_absolute_difference_gini(values), abs=1e-12)
        assert gini(values) == pytest.approx(lorenz_gini(values), abs=1e-12)
        shuffled = generator.sample(values, len(values))
        assert gini([7 * value for value in shuffled]) == pytest.approx(gini(values), abs=1e-12)  # order, unit


def test_gini_refuses_what_it_cannot_measure():
    with pytest.raises(ValueError, match="no values"):
        gini([])
    with pytest.raises(ValueError, match="0 or more"):
        gini([1, -1])
    assert gini([0, 0]) == 0.0


def test_cost_is_tokens_per_parallel_unit_not_tokens():
    """Two languages with the same tokens over different numbers of units
    pay differently: 40 tokens over 20 lines is 2 a line, over 10 is 4."""
    costs = {"en": Cost(tokens=40, bytes=0, chars=0, words=0, split_words=0),
             "xx": Cost(tokens=40, bytes=0, chars=0, words=0, split_words=0)}
    assert cost_gini(costs, {"en": 20, "xx": 20}) == 0.0
    assert cost_gini(costs, {"en": 20, "xx": 10}) == pytest.approx(1 / 6)


def test_tax_json_gives_each_tokenizers_gini_over_the_passage_as_tiktoken_counts_it():
    code, out, err = run_cli("tax", "--json", "--with", "gpt2", "--with", "o200k_base")
    assert code == 0, err
    printed = json.loads(out)
    for name in ("gpt2", "o200k_base"):
        encoding = tiktoken_encoding(name)
        costs = [len(encoding.encode(parallel_text(code), disallowed_special=())) / 20 for code in languages()]
        assert printed["gini"][name] == pytest.approx(mean_absolute_difference_gini(costs), abs=1e-12)
    assert printed["gini"]["o200k_base"] < printed["gini"]["gpt2"]  # the multilingual vocabulary is fairer
    assert "per line" in printed["gini_cost"]
    rows = corpus_table({"gpt2": load_encoding("gpt2")})
    assert passage_gini(rows) == {"gpt2": printed["gini"]["gpt2"]}


def test_tax_json_over_the_udhr_gives_each_tokenizers_gini_over_the_complete_declarations():
    code, out, err = run_cli("tax", "--corpus", "udhr", "--json", "--with", "cl100k_base")
    assert code == 0, err
    printed = json.loads(out)
    encoding = tiktoken_encoding("cl100k_base")
    texts = declaration_texts()
    whole = [code for code, declaration in declarations().items() if declaration.whole]
    assert 400 < len(whole) < len(texts)
    costs = [len(encoding.encode(texts[code], disallowed_special=())) for code in whole]
    assert printed["gini"]["cl100k_base"] == pytest.approx(mean_absolute_difference_gini(costs), abs=1e-12)
    assert declarations_gini(counts_for("cl100k_base", load_encoding("cl100k_base"))) == printed["gini"]["cl100k_base"]
    assert "complete declaration" in printed["gini_cost"]


def test_the_tax_table_ends_with_each_tokenizers_gini():
    code, out, err = run_cli("tax", "--encoding", "gpt2", "--encoding", "o200k_base")
    assert code == 0, err
    expected = passage_gini(corpus_table({"gpt2": load_encoding("gpt2"), "o200k_base": load_encoding("o200k_base")}))
    gini_line = next(line for line in out.splitlines() if line.startswith("Gini"))
    assert gini_line.split()[1:] == [f"{expected['gpt2']:.3f}", f"{expected['o200k_base']:.3f}"]
    assert "0 is parity" in out
