"""BPE-dropout's merge table: made once per tokenizer, and for a tokenizer
that keeps ranks alone (tiktoken's files) recovered only where a text needs
it, drawing exactly as the whole table does."""

import gc
import weakref
from pathlib import Path

import pytest

from bpe_core.algorithms.dropout import encode_with_dropout, sampled_ids
from bpe_core.engine.tokenizer import Tokenizer
from bpe_core.engine.training import train

ENGLISH_SAMPLE = (Path(__file__).parent.parent / "sample_corpora" / "english_prose.txt").read_text(encoding="utf-8")
TEXT = ENGLISH_SAMPLE[40_000:41_500]


@pytest.fixture(scope="module")
def learned():
    """Plain BPE, whose merges are learned: the oracle's merge table."""
    return train(ENGLISH_SAMPLE[:30_000], vocab_size=600, pattern="cl100k")


def ranks_alone(tokenizer: Tokenizer) -> Tokenizer:
    """The same vocabulary as a rank file gives it: no merges recorded."""
    return Tokenizer(name="ranks", pattern=tokenizer.pattern, vocab=tokenizer.vocab, ranks=dict(tokenizer.mergeable_ranks))


def test_ranks_alone_draw_as_the_learned_merges_do(learned):
    tokenizer = ranks_alone(learned)
    assert not tokenizer.merges_recorded and learned.merges_recorded
    for seed in range(3):
        assert encode_with_dropout(tokenizer, TEXT, 0.2, seed) == encode_with_dropout(learned, TEXT, 0.2, seed)
    assert sampled_ids(tokenizer, " unbelievably", 0.3, 300) == sampled_ids(learned, " unbelievably", 0.3, 300)


def test_dropout_on_ranks_alone_does_not_recover_every_merge(learned, monkeypatch):
    # Recovering every merge of cl100k_base took 2.5 s before the first draw.
    tokenizer = ranks_alone(learned)

    def recover_all():
        raise AssertionError("every merge recovered for one text")

    monkeypatch.setattr(tokenizer, "_recover_merges", recover_all)
    assert tokenizer.decode(encode_with_dropout(tokenizer, TEXT, 0.2, 1)) == TEXT


def test_a_rerun_reuses_the_tokenizers_merge_table(learned, monkeypatch):
    tokenizer = train(ENGLISH_SAMPLE[:10_000], vocab_size=400)
    reads = []
    merges = Tokenizer.merges

    def counted(self):
        reads.append(self)
        return merges.fget(self)

    monkeypatch.setattr(Tokenizer, "merges", property(counted))
    first = sampled_ids(tokenizer, " the queen", 0.3, 50)
    assert sampled_ids(tokenizer, " the queen", 0.3, 50) == first  # a page's rerun: same draws
    encode_with_dropout(tokenizer, TEXT, 0.3, 2)
    assert reads == [tokenizer]  # the table of 100,000s of merges made once, not at every rerun


@pytest.mark.parametrize("merges", ["learned", "ranks alone"])
def test_the_table_kept_for_a_tokenizer_does_not_keep_it_alive(merges):
    tokenizer = train(ENGLISH_SAMPLE[:5_000], vocab_size=300)
    if merges == "ranks alone":
        tokenizer = ranks_alone(tokenizer)
    sampled_ids(tokenizer, " the queen", 0.3, 10)
    gone = weakref.ref(tokenizer)
    del tokenizer
    gc.collect()
    assert gone() is None
