"""The step-through view of training, computed once for a span of steps: the
text as training had it after every merge, the leading pairs before each
merge, and the data the browser steps through."""

import json

import pytest

from bpe_core import train
from bpe_core.analysis.training_view import (
    held_steps,
    leading_pairs,
    piece_versions,
    window_pieces,
    word_list,
    word_pieces,
)
from bpe_core.corpora.samples import catalog
from bpe_core.drawing.training_view import training_view_data
from bpe_core.engine.corpus import corpus_size, count_pieces
from tests.apptest import training_text_at
from tests.test_render import visible_text

TEXT = catalog()["english_prose"].load()[:60_000]


def recounted_pairs(tokenizer, pieces, step, top):
    """The leading pairs after `step` merges, counted afresh on every piece:
    the definition the replay must meet (count, then first occurrence)."""
    counts = {}
    for piece, weight in pieces.items():
        ids = tokenizer.piece_at_step(piece, step)
        for pair in zip(ids, ids[1:]):
            counts[pair] = counts.get(pair, 0) + weight
    return sorted(counts.items(), key=lambda item: -item[1])[:top]  # stable: ties keep first occurrence


@pytest.fixture(scope="module")
def trained():
    return train(TEXT, num_merges=120, pattern="cl100k")


@pytest.mark.parametrize("pattern, units", [("cl100k", "bytes"), ("none", "bytes"), ("gpt2", "chars")])
def test_the_text_at_every_step_is_what_training_had_then(pattern, units):
    tokenizer = train(TEXT[:20_000], num_merges=150, pattern=pattern, units=units, special_tokens=["<|x|>"])
    window = TEXT[600:1800] + "<|x|>" + TEXT[1800:1900]
    pieces = window_pieces(tokenizer, window)
    for step in (0, 1, 7, 60, 150):
        shown = [span for piece in pieces for span in piece.tokens_at(step)]
        assert shown == list(tokenizer.encode_with_offsets(window, step=step, allowed_special="all", reference=True))


def test_a_long_piece_keeps_one_history_per_final_token():
    """With no split pattern the whole text is one piece; its history is kept
    per token it ends as, so its size grows with the tokens, not the text."""
    tokenizer = train(TEXT[:20_000], num_merges=200, pattern="none")
    histories = piece_versions(tokenizer, TEXT[:1_500])
    assert len(histories) == len(tokenizer.encode(TEXT[:1_500]))
    assert all(versions[0][0] == 0 and len(versions[-1][1]) == 1 for versions in histories)


@pytest.mark.slow  # seconds: worker processes or whole vocabularies
def test_leading_pairs_by_replay_equal_a_fresh_count_at_every_step(trained):
    pieces = count_pieces(TEXT, trained.pattern, ())
    steps = range(0, len(trained.merges) + 1)
    replayed = leading_pairs(trained, pieces, steps, top=10)
    for step in steps:
        assert replayed[step] == recounted_pairs(trained, pieces, step, 10), step
        if step < len(trained.merges):  # on the whole corpus, the first is the merge training made
            assert replayed[step][0] == (trained.trace[step].pair, trained.trace[step].count)


def test_leading_pairs_of_a_word_count_corpus():
    corpus = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    tokenizer = train(corpus, num_merges=3, pattern="none", units="chars")
    top = leading_pairs(tokenizer, corpus, range(0, 1), top=3)[0]
    assert [(tokenizer.vocab[a] + tokenizer.vocab[b], n) for (a, b), n in top] == [("es", 9), ("st", 9), ("we", 8)]


def test_the_steps_held_lie_mostly_ahead_and_within_the_run():
    assert held_steps(0, 744) == range(0, 745)
    assert held_steps(900, 5_000) == range(700, 1_700)
    assert held_steps(4_990, 5_000) == range(4_001, 5_001)


def test_the_browsers_data_holds_every_step_and_escapes_every_text(trained):
    window = "<b>hello</b> " + TEXT[600:1200]
    pieces = count_pieces(TEXT, trained.pattern, ())
    steps = range(0, len(trained.merges) + 1)
    size_bytes, size_chars = corpus_size(pieces)
    view = training_view_data(trained, window, window_pieces(trained, window), leading_pairs(trained, pieces, steps),
                              steps, corpus_bytes=size_bytes, corpus_chars=size_chars)
    json.dumps(view)  # it travels as JSON
    assert view["total"] == len(trained.trace) and len(view["merges"]) == len(view["pairs"]) == len(steps)
    merge = trained.trace[9]
    assert view["merges"][10] == [*merge.pair, merge.new_id, merge.count, merge.corpus_tokens]
    assert view["initialTokens"] == size_bytes
    assert all(str(token_id) in json.dumps(view["labels"]) for token_id in merge.pair)
    drawn = "".join(view["fragments"])
    assert "<b>" not in drawn and "&lt;" in drawn and "&gt;" in drawn
    text_at_end = training_text_at(view, len(trained.merges))
    assert visible_text(text_at_end) == window.replace(" ", "·").replace("\n", "↵\n")
    assert view["curve"][0] == [0, size_bytes] and view["curve"][-1] == [len(trained.trace), trained.trace[-1].corpus_tokens]


def test_a_long_tokens_versions_share_the_markup_of_what_each_merge_left_alone():
    # Each merge below grows a word by one letter, so a word of n letters has
    # n versions of up to n units: drawn whole, its markup would grow with n².
    def markup_size(word):
        text = (word + " ") * 50
        window = text[: 4 * len(word + " ")]
        tokenizer = train(text, num_merges=len(word) - 1, pattern="gpt2")
        assert tokenizer.encode(word) == [tokenizer.n_vocab - 1]
        steps = range(0, len(word))
        view = training_view_data(tokenizer, window, window_pieces(tokenizer, window),
                                  leading_pairs(tokenizer, {word: 50}, steps), steps, corpus_bytes=1, corpus_chars=1)
        assert visible_text(training_text_at(view, steps[-1])) == window.replace(" ", "·")
        assert visible_text(training_text_at(view, 0)) == window.replace(" ", "·")
        return len("".join(view["fragments"]))

    assert markup_size("abcdefghijklmnopqrstuvwxyzABCDEF") < 2.5 * markup_size("abcdefghijklmnop")


def test_a_word_list_shows_each_word_with_its_count():
    corpus = {"low": 5, "lower": 2, "<newest>": 6}
    tokenizer = train(corpus, num_merges=3, pattern="none")
    text, spans = word_list(corpus, limit=2)
    assert text == "low ×5\nlower ×2\n" and spans == [(0, 3), (7, 12)]
    pieces = word_pieces(tokenizer, text, spans)
    steps = range(0, 4)
    view = training_view_data(tokenizer, text, pieces, leading_pairs(tokenizer, corpus, steps), steps,
                              corpus_bytes=1, corpus_chars=1, words=True)
    assert '<span class="trn-count"> ×5\n</span>' in view["fragments"]


def test_views_are_drawn_one_at_a_time_however_many_visitors_ask():
    """Python runs one thread at a time: views drawn side by side take no
    less time, but each holds its working memory, and a step waits behind
    them all. Visitors asking at once get their views one after another."""
    import threading

    from pages.common.stepper import drawn_alone

    drawing, most_at_once, lock = [0], [0], threading.Lock()

    def draw() -> str:
        with lock:
            drawing[0] += 1
            most_at_once[0] = max(most_at_once[0], drawing[0])
        threading.Event().wait(0.01)  # a drawing that takes a while: other threads run meanwhile
        with lock:
            drawing[0] -= 1
        return "view"

    views = []
    visitors = [threading.Thread(target=lambda: views.append(drawn_alone(draw))) for _ in range(8)]
    for visitor in visitors:
        visitor.start()
    for visitor in visitors:
        visitor.join()
    assert views == ["view"] * 8 and most_at_once[0] == 1
