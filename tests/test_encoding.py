"""Encoding: identical to tiktoken, lossless, and honest about offsets and steps."""

import gzip
import hashlib
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_core import PRESETS, TokenSpan, train
from bpe_core.engine import tokenizer as tokenizer_module
from bpe_core.vocabularies import openai as openai_module
from bpe_core.vocabularies.bundled_files import BundledFileError
from bpe_core.vocabularies.catalogue import list_encoding_names, load_encoding
from bpe_core.vocabularies.openai import load_ranks, tiktoken_encoding
from tests import tiktoken_oracle
from tests.texts import TRICKY_TEXTS, assigned_characters
from tests.tiktoken_oracle import tiktokens_own

NAMES = list_encoding_names()  # every OpenAI encoding tiktoken knows
unicode_text = st.text(alphabet=st.characters(codec="utf-8"), max_size=120)
assigned_text = st.text(alphabet=assigned_characters(), max_size=120)


def test_the_encodings_are_the_ones_tiktoken_knows():
    assert NAMES == tiktoken_oracle.NAMES


@pytest.mark.parametrize("name", NAMES)
def test_patterns_specials_and_hash_pins_are_tiktokens_own(name):
    """What the project wrote down of each encoding is what tiktoken's own
    constructor says, the SHA-256 of its rank file included (for gpt2, the
    pin of r50k_base's file, which it is served from: see tests/tiktoken_oracle.py)."""
    official, spec = tiktokens_own(name), openai_module.ENCODINGS[name]
    assert spec.pattern == official._pat_str
    assert spec.special_tokens == official._special_tokens
    assert spec.explicit_n_vocab in (None, official.n_vocab)
    assert tiktoken_oracle.pinned_hashes(name) == [spec.sha256]


def test_the_oracle_refuses_a_rank_file_tiktoken_does_not_pin():
    """tiktoken's loader, which builds the oracle, checks each file against
    tiktoken's pin: a file that is not OpenAI's is never the reference."""
    url = "https://openaipublic.blob.core.windows.net/encodings/r50k_base.tiktoken"
    with pytest.raises(ValueError, match="Hash mismatch"):
        tiktoken_oracle._load_shipped(url, openai_module.ENCODINGS["cl100k_base"].sha256)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("engine", ["fast", "readable"])
def test_same_ids_as_tiktoken_on_tricky_texts(name, engine):
    ours, reference = load_encoding(name), tiktokens_own(name)
    readable = engine == "readable"
    for text in TRICKY_TEXTS:
        expected = reference.encode(text, allowed_special="all")
        assert ours.encode(text, allowed_special="all", reference=readable) == expected, text
        assert ours.encode_ordinary(text, reference=readable) == reference.encode_ordinary(text), text
        assert ours.encode(text, disallowed_special=(), reference=readable) == reference.encode(text, disallowed_special=()), text
        spans = ours.encode_with_offsets(text, allowed_special="all", reference=readable)
        assert [span.id for span in spans] == expected, text
        assert spans == ours.encode_with_offsets(text, allowed_special="all", reference=not readable), text


@pytest.mark.parametrize("name", NAMES)
@given(text=unicode_text)
def test_same_ids_as_tiktoken_on_any_unicode(name, text):
    ours, reference = load_encoding(name), tiktokens_own(name)
    assert ours.encode(text, allowed_special="all") == reference.encode(text, allowed_special="all")


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
@given(text=assigned_text)
def test_the_readable_engine_gives_tiktokens_ids(name, text):
    ours, reference = load_encoding(name), tiktokens_own(name)
    assert ours.encode(text, allowed_special="all", reference=True) == reference.encode(text, allowed_special="all")


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
@given(text=unicode_text)
def test_decode_inverts_encode(name, text):
    tok = load_encoding(name)
    assert tok.decode(tok.encode_ordinary(text)) == text


def test_sizes_specials_and_every_rank_match_tiktoken():
    """The ranks as this project's parser read them are the ranks as
    tiktoken's loader reads them, every one."""
    for name in NAMES:
        ours, reference = load_encoding(name), tiktokens_own(name)
        assert ours.n_vocab == reference.n_vocab
        assert ours.special_tokens_set == reference.special_tokens_set
        assert ours.mergeable_ranks == reference._mergeable_ranks, name
        assert ours.decode_bytes(range(0, ours.n_vocab, 997)) == reference.decode_bytes(range(0, ours.n_vocab, 997))


def test_the_tiktoken_encoding_handed_out_is_tiktokens_own():
    """`tiktoken_encoding(name)`, what the project offers as tiktoken's
    encoding, is built as tiktoken builds it: same ranks, pattern, specials."""
    for name in NAMES:
        handed_out, reference = tiktoken_encoding(name), tiktokens_own(name)
        assert handed_out._pat_str == reference._pat_str, name
        assert handed_out._special_tokens == reference._special_tokens, name
        assert handed_out._mergeable_ranks == reference._mergeable_ranks, name
        assert handed_out.n_vocab == reference.n_vocab, name


def test_rank_file_with_wrong_hash_is_refused(tmp_path, monkeypatch):
    original = (openai_module.BUNDLED_DIR / "r50k_base.tiktoken.gz").read_bytes()
    tampered = gzip.decompress(original).replace(b"IQ== 0", b"Ig== 0", 1)
    assert hashlib.sha256(tampered).hexdigest() != openai_module.ENCODINGS["gpt2"].sha256
    (tmp_path / "r50k_base.tiktoken.gz").write_bytes(gzip.compress(tampered))
    monkeypatch.setattr(openai_module, "BUNDLED_DIR", tmp_path)
    openai_module._verified_ranks.cache_clear()  # the files are read once per process
    try:
        with pytest.raises(BundledFileError, match="SHA-256"):
            load_ranks("gpt2")
    finally:
        openai_module._verified_ranks.cache_clear()


def test_unknown_encoding_name_lists_the_choices():
    with pytest.raises(ValueError, match="cl100k_base"):
        load_encoding("gpt5")


# ----------------------------------------------------------- trained tokenizers


@pytest.fixture(scope="module")
def sample_text():
    return "\n".join(TRICKY_TEXTS[2:25]) * 3


@pytest.mark.parametrize("pattern", list(PRESETS) + [r"\p{L}+|\p{N}+|\s+|[^\s\p{L}\p{N}]+"])
@pytest.mark.parametrize("units", ["bytes", "chars"])
def test_trained_tokenizer_round_trips_its_own_and_other_text(sample_text, pattern, units):
    tok = train(sample_text, num_merges=200, pattern=pattern, units=units)
    for text in TRICKY_TEXTS:
        ids = tok.encode(text, disallowed_special=())
        if units == "bytes":
            assert tok.decode(ids) == text
        elif all(char in sample_text for char in text):
            assert tok.decode(ids) == text


@given(text=unicode_text)
def test_trained_byte_tokenizer_round_trips_any_unicode(text):
    tok = _trained_for_properties()
    assert tok.decode(tok.encode_ordinary(text)) == text


def _trained_for_properties(cache={}):
    if not cache:
        cache["tok"] = train("\n".join(TRICKY_TEXTS), num_merges=300, pattern="o200k")
    return cache["tok"]


def test_encode_at_final_step_replays_training(sample_text):
    tok = train(sample_text, num_merges=150, pattern="cl100k")
    assert len(tok.encode_at_step(sample_text, len(tok.merges))) == tok.trace[-1].corpus_tokens
    assert tok.encode_at_step(sample_text, 0) == list(sample_text.encode())


@pytest.mark.parametrize("pattern", ["none", "gpt2", "cl100k", "o200k"])
def test_every_step_of_training_is_what_encoding_at_that_step_gives_in_both_engines(sample_text, pattern, monkeypatch):
    """Training counted the corpus's length after every merge; encoding the
    corpus with the first k merges must give exactly that many tokens, by
    tiktoken over the first k ranks and by replaying the learned pairs alike,
    token for token, here and on text training never saw (short texts too,
    which are replayed unless told otherwise)."""
    monkeypatch.setattr(tokenizer_module, "_REPLAYED_CHARS", 0)
    corpus = sample_text if pattern != "none" else sample_text[:3_000]
    tok = train(corpus, num_merges=300, pattern=pattern)
    for step in sorted({0, 1, 2, 17, 150, len(tok.merges)}):
        fast = tok.encode_at_step(corpus, step)
        assert fast == tok.encode_at_step(corpus, step, reference=True), step
        assert len(fast) == (tok.trace[step - 1].corpus_tokens if step else len(corpus.encode())), step
        for text in TRICKY_TEXTS[:20]:
            assert tok.encode_at_step(text, step, allowed_special="all") == tok.encode_at_step(
                text, step, allowed_special="all", reference=True
            ), (step, text)


def test_a_short_text_at_a_step_is_replayed_and_leaves_no_engine_behind(sample_text):
    """Stepping through training redraws a short try-it text at every step:
    building an encoder for each step would cost more time than the replay
    and keep a copy of the ranks per step, in a tokenizer that every
    visitor of the same training shares."""
    tok = train(sample_text, num_merges=60, pattern="cl100k")
    text = "The lowest, newest and widest."
    for step in range(0, 61, 5):
        assert tok.encode_at_step(text, step) == tok.encode_at_step(text, step, reference=True)
        assert list(tok.encode_with_offsets(text, step=step)) == list(tok.encode_with_offsets(text, step=step, reference=True))
    assert not tok._encoders_by_step
    tok.encode_at_step(sample_text, 30)  # a long text is worth an engine
    assert list(tok._encoders_by_step) == [30]


def test_offsets_cover_every_byte_in_order():
    tok = load_encoding("cl100k_base")
    text = "Hi 👋🏽 你好 naïve <|endoftext|>\r\n"
    spans = tok.encode_with_offsets(text, allowed_special="all")
    data = text.encode()
    assert [span.id for span in spans] == tok.encode(text, allowed_special="all")
    assert spans[0].start == 0 and spans[-1].end == len(data)
    assert all(a.end == b.start for a, b in zip(spans, spans[1:]))
    assert all(data[s.start : s.end] == tok.token_bytes(s.id) for s in spans)


def test_offsets_show_tokens_holding_part_of_a_character():
    tok = train("ab", num_merges=0, pattern="none")
    spans = tok.encode_with_offsets("é")
    assert [(s.start, s.end) for s in spans] == [(0, 1), (1, 2)]
    assert [tok.token_bytes(s.id) for s in spans] == [b"\xc3", b"\xa9"]


def test_offsets_in_character_mode_are_utf8_byte_offsets():
    tok = train("héllo wörld", num_merges=5, pattern="gpt2", units="chars")
    text = "héllo ∑"
    spans = tok.encode_with_offsets(text)
    assert spans[-1].end == len(text.encode())
    assert spans[-1].id == tok.unknown_id
    assert text.encode()[spans[-1].start : spans[-1].end] == "∑".encode()


def test_offsets_at_a_step_follow_that_step():
    tok = train("aaabdaaabac", num_merges=3, pattern="none")
    assert [s.end for s in tok.encode_with_offsets("aaab", step=1)] == [2, 3, 4]
    assert [s.end for s in tok.encode_with_offsets("aaab", step=3)] == [4]


def test_special_tokens_follow_tiktoken_rules():
    tok = load_encoding("cl100k_base")
    text = "a<|endoftext|>b"
    with pytest.raises(ValueError, match="disallowed special token"):
        tok.encode(text)
    assert tok.encode(text, allowed_special={"<|endoftext|>"})[1] == 100257
    assert 100257 not in tok.encode(text, disallowed_special=())
    assert tok.encode_ordinary(text) == tok.encode(text, disallowed_special=())
    assert tok.decode(tok.encode(text, allowed_special="all")) == text


def test_lone_surrogates_become_replacement_characters_like_tiktoken():
    text = "a\ud800b"
    assert load_encoding("gpt2").encode(text) == tiktokens_own("gpt2").encode(text)


@pytest.mark.parametrize(("bad", "error"), [([10**9], ValueError), ([-1], ValueError),
                                            (["12"], TypeError), ([1.5], TypeError), ([None], TypeError), ([True], TypeError)])
def test_decoding_an_invalid_id_says_which_and_the_valid_range(bad, error):
    """A number that is no id is a ValueError; anything else a TypeError, as
    tiktoken's decode makes it."""
    tok = load_encoding("gpt2")
    with pytest.raises(error, match="is not a token id of 'gpt2': ids run from 0 to 50256"):
        tok.decode(bad)


def test_character_mode_maps_unseen_characters_to_unknown():
    tok = train("abcabc", num_merges=2, pattern="none", units="chars")
    ids = tok.encode("abz")
    assert ids[-1] == tok.unknown_id
    assert tok.decode(ids) == "ab\N{REPLACEMENT CHARACTER}"


@pytest.mark.slow
def test_recovered_merges_rebuild_every_token():
    tok = load_encoding("gpt2")
    merges = tok.merges
    assert len(merges) == 50256 - 256
    for (left, right), new_id in merges[:2000]:
        assert tok.vocab[left] + tok.vocab[right] == tok.vocab[new_id]


# --------------------------------------------- the fast engine, every kind of tokenizer

CUSTOM = r"\p{L}+|\p{N}+|\s+|[^\s\p{L}\p{N}]+"
DROPPING = r"\p{L}+|\p{N}"  # keeps letters and single digits, drops everything else


@pytest.fixture(scope="module", params=[(pattern, units) for pattern in [*PRESETS, CUSTOM, DROPPING] for units in ("bytes", "chars")],
                ids=lambda param: f"{param[0][:6]}-{param[1]}")
def every_kind(request, sample_text):
    pattern, units = request.param
    corpus = sample_text if pattern != "none" else sample_text[:3_000]
    return train(corpus, num_merges=300, pattern=pattern, units=units, special_tokens=["<|endoftext|>"])


def test_every_kind_of_tokenizer_encodes_fast_as_the_merge_loop_does(every_kind):
    tok = every_kind
    assert (tok._text_encoder is None) != (tok._pieces_bpe is None)
    texts = TRICKY_TEXTS + ["Ωmega ж 漢字 <|endoftext|> 🤖 ∑ 12345", "\u0e01\u0e31" * 3 + " x" * 5]
    for text in texts:
        assert tok.encode(text, allowed_special="all") == tok.encode(text, allowed_special="all", reference=True), text
        assert tok.encode_with_offsets(text, allowed_special="all") == tok.encode_with_offsets(
            text, allowed_special="all", reference=True
        ), text
        for step in (0, 1, 150, 300):
            assert tok.encode_at_step(text, step, allowed_special="all") == tok.encode_at_step(
                text, step, allowed_special="all", reference=True
            ), (step, text)


@pytest.mark.parametrize("units", ["bytes", "chars"])
@given(text=unicode_text)
def test_custom_patterns_and_characters_encode_in_rust_as_the_merge_loop_does(units, text):
    tok = _trained_on_tricky_texts(units)
    assert tok.encode(text, allowed_special="all") == tok.encode(text, allowed_special="all", reference=True)
    assert tok.encode_with_offsets(text, allowed_special="all") == tok.encode_with_offsets(
        text, allowed_special="all", reference=True
    )


def _trained_on_tricky_texts(units, cache={}):
    if units not in cache:
        cache[units] = train("\n".join(TRICKY_TEXTS), num_merges=300, pattern=CUSTOM, units=units, special_tokens=["<|endoftext|>"])
    return cache[units]


def test_a_character_vocabulary_in_any_id_order_encodes_in_rust_as_the_merge_loop_does():
    from bpe_core import Tokenizer

    # "ab" (id 0) and "bc" (id 1) rank below the characters, "abc" (id 5) above them.
    tok = Tokenizer(name="hand-made", pattern="none", units="chars",
                    vocab={0: "ab", 1: "bc", 2: "a", 3: "b", 4: "c", 5: "abc", 6: "あ", 7: "あa"}, unknown_id=None)
    for text in ["abc", "abcbc", "cabc", "aあab", "あaあa", "bbcab"]:
        assert tok.encode(text) == tok.encode(text, reference=True), text


def test_offsets_leave_out_what_the_pattern_drops_in_both_engines():
    tok = train("hello 123 world, again!", num_merges=5, pattern=DROPPING)
    text = "hello, 42 worlds!"
    spans = tok.encode_with_offsets(text)
    assert spans == tok.encode_with_offsets(text, reference=True)
    data = text.encode()
    assert b"".join(data[span.start : span.end] for span in spans) == b"hello42worlds"
    assert all(tok.token_bytes(span.id) == data[span.start : span.end] for span in spans)


@given(sizes=st.lists(st.integers(1, 4), min_size=1, max_size=50), reads=st.lists(st.integers(-60, 60), max_size=8))
def test_spans_of_tiling_tokens_are_added_up_as_far_as_read_and_always_agree(sizes, reads):
    from bpe_core.engine.tokenizer import TokenSpans

    ids = list(range(len(sizes)))
    ends = list(itertools.accumulate(sizes))
    expected = [TokenSpan(token_id, end - size, end) for token_id, size, end in zip(ids, sizes, ends)]
    spans = TokenSpans.tiling(ids, sizes)
    for index in reads:  # any order of reads, each extending what is known
        if -len(ids) <= index < len(ids):
            assert spans[index] == expected[index]
        else:
            with pytest.raises(IndexError):
                spans[index]
        assert spans[index % 7 : index % 11] == expected[index % 7 : index % 11]
    assert len(spans) == len(ids) and list(spans) == expected


def test_a_bundled_encoding_keeps_its_ranks_once():
    """200,000 ranks held twice would be a third of an encoding's memory:
    the rank file as read (shared by the encodings built on it) and the
    table encoding looks tokens up in are one dict; `vocab` is that table
    the other way round. (The C encoder keeps a compact table of its own.)"""
    ranks = load_ranks("o200k_base")
    for name in ("o200k_base", "o200k_harmony"):
        encoding = openai_module.openai_encoding(name)  # built now: another test may have emptied the ranks' cache
        assert encoding._ids_by_token is ranks
        assert encoding.mergeable_ranks == ranks
        assert len(encoding.vocab) == len(ranks)
        assert all(encoding.vocab[token_id] == token for token, token_id in ranks.items())


def test_ranks_that_name_a_token_twice_are_not_taken_as_the_table():
    """A constructed Encoding whose ranks give two tokens one id keeps a
    table of its own, as `vocab` has it (one token per id)."""
    ranks = {bytes([byte]): byte for byte in range(256)} | {b"ab": 256, b"ba": 256}
    encoding = openai_module.Encoding("twice", pat_str=PRESETS["gpt2"], mergeable_ranks=ranks, special_tokens={})
    assert encoding._ids_by_token is not ranks
    assert encoding.decode(encoding.encode("ab ba")) == "ab ba"


def test_threads_asking_for_an_encoding_at_once_share_one_load(monkeypatch):
    """A server's visits and its warm-up ask at the same moment: the
    vocabulary is read once, and every thread gets the same tokenizer."""
    import dataclasses
    import threading

    from bpe_core.vocabularies import catalogue

    loads, release = [], threading.Event()
    real = catalogue.CATALOGUE["p50k_base"]

    def slow_load(name):
        loads.append(name)
        release.wait(10)
        return real.load(name)

    # A new entry is loaded afresh (the cache is keyed by it), and what this process loaded
    # before stays loaded: clearing the cache made the worker's next tests load gemma3 and
    # the zoo again.
    monkeypatch.setitem(catalogue.CATALOGUE, "p50k_base", dataclasses.replace(real, load=slow_load))
    got = []
    threads = [threading.Thread(target=lambda: got.append(catalogue.load_encoding("p50k_base"))) for _ in range(4)]
    for thread in threads:
        thread.start()
    release.set()
    for thread in threads:
        thread.join(60)
    assert loads == ["p50k_base"] and len(got) == 4 and all(encoding is got[0] for encoding in got)


def test_the_catalogue_says_each_openai_encodings_size_as_tiktoken_counts_it():
    from bpe_core.vocabularies.catalogue import CATALOGUE

    for name in openai_module.ENCODINGS:
        assert CATALOGUE[name].n_vocab == tiktokens_own(name).n_vocab, name
