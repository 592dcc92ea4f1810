"""Encode replay and merge trees: every step is a real merge, the replay ends
in tiktoken's tokens, and every tree rebuilds its token from bytes."""

import random
import re

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from bpe_core import Tokenizer, train
from bpe_core.analysis.replay import SPECIAL, UNIT, UNSPLITTABLE, merge_tree, replay
from bpe_core.corpora.samples import catalog
from bpe_core.drawing.replay import merge_tree_html, replay_frames, replay_html, replay_state_html
from bpe_core.vocabularies.catalogue import load_encoding
from bpe_core.vocabularies.openai import tiktoken_encoding
from tests.test_render import visible_text
from tests.texts import TRICKY_TEXTS, assigned_characters

OPENAI = ["gpt2", "cl100k_base", "o200k_base"]
# Short texts: the replay keeps every state, so it is meant for a word or a phrase.
WORDS = [text[:120] for text in TRICKY_TEXTS] + [
    " strawberry", "strawberry", " unbelievably", "antidisestablishmentarianism", " こんにちは",
    "👩‍💻", " SolidGoldMagikarp", "    ", "12345678", "aaaaaaaaaaaaaaaaaaaaaaaa", "<|endoftext|>",
]


@pytest.fixture(scope="module")
def trained():
    """Byte- and character-level tokenizers trained on the English sample."""
    corpus = catalog()["english_prose"].load()[:30_000]
    return {
        "bytes": train(corpus, vocab_size=700, pattern="cl100k", special_tokens=("<|endoftext|>",)),
        "chars": train(corpus, num_merges=300, pattern="gpt2", units="chars"),
    }


def chip_ids(markup: str) -> list[int]:
    """The token ids of the chips in rendered HTML, in order."""
    return [int(token_id) for token_id in re.findall(r"<small>(\d+)</small>", markup)]


# ------------------------------------------------------------------ replay


@pytest.mark.parametrize("name", OPENAI)
def test_replay_ends_in_tiktokens_tokens(name):
    tokenizer, reference = load_encoding(name), tiktoken_encoding(name)
    for text in WORDS:
        assert replay(tokenizer, text).tokens == reference.encode_ordinary(text), text


@given(st.text(alphabet=assigned_characters(), max_size=30))
def test_replay_ends_in_tiktokens_tokens_for_any_text(text):
    assert replay(load_encoding("cl100k_base"), text).tokens == tiktoken_encoding("cl100k_base").encode_ordinary(text)


@pytest.mark.parametrize("units", ["bytes", "chars"])
def test_replay_ends_in_a_trained_tokenizers_tokens(trained, units):
    tokenizer = trained[units]
    for text in WORDS + ["Alice was beginning to get very tired", "never-seen ÆØÅ ☃"]:
        assert replay(tokenizer, text).tokens == tokenizer.encode_ordinary(text), text


@pytest.mark.parametrize("name", OPENAI)
def test_pieces_are_the_split_patterns(name):
    text = "Hello, world! It's 2024;   we'll see.\n  def f(x): return x"
    story = replay(load_encoding(name), text)
    assert [piece.text for piece in story.pieces] == regex.findall(tiktoken_encoding(name)._pat_str, text)


@pytest.mark.parametrize("name", OPENAI)
def test_merges_apply_lowest_rank_first(name):
    story = replay(load_encoding(name), " unbelievably tokenized words, こんにちは!")
    ranks = [merge.rank for merge in story.order]
    assert ranks == sorted(ranks) and len(ranks) > 10
    for index, piece in enumerate(story.pieces):  # each piece keeps its own order
        assert [merge for merge in story.order if merge.piece == index] == list(piece.merges)


@pytest.mark.parametrize("name", [*OPENAI, "bytes", "chars"])
def test_each_step_merges_two_neighbours_into_their_concatenation(name, trained):
    tokenizer = trained.get(name) or load_encoding(name)
    story = replay(tokenizer, " Unbelievably, the tokenizer's 12345 naïve merges — déjà vu")
    for piece in story.pieces:
        start = piece.states[0]
        assert [piece.part_bytes(part) for part in start] == (
            [bytes([byte]) for byte in piece.text.encode()] if tokenizer.units == "bytes"
            else [char.encode() for char in piece.text]
        )
        for before, merge, after in zip(piece.states, piece.merges, piece.states[1:]):
            left, right = before[merge.position], before[merge.position + 1]
            assert (left, right) == (merge.left, merge.right)
            assert after == before[: merge.position] + (merge.made,) + before[merge.position + 2 :]
            assert tokenizer.token_bytes(merge.made.id) == piece.part_bytes(left) + piece.part_bytes(right)
            assert b"".join(map(piece.part_bytes, after)) == piece.text.encode()


def test_step_k_is_the_text_after_the_first_k_merges():
    story = replay(load_encoding("gpt2"), " strawberry fields")
    assert [len(state) for state in story.state(0)] == [len(" strawberry"), len(" fields")]
    for step in range(1, story.steps + 1):
        merge = story.order[step - 1]
        before, after = story.state(step - 1), story.state(step)
        changed = [index for index in range(len(before)) if before[index] != after[index]]
        assert changed == [merge.piece] and merge.made in after[merge.piece]
    assert [part.id for state in story.state(story.steps) for part in state] == story.tokens


def test_special_token_text_is_replayed_as_plain_text():
    text = "<|endoftext|>"
    story = replay(load_encoding("cl100k_base"), text)
    assert story.tokens == tiktoken_encoding("cl100k_base").encode(text, disallowed_special=())
    assert 100257 not in story.tokens


@pytest.mark.parametrize("name", OPENAI)
def test_a_piece_that_is_a_token_is_reported_as_encodes_shortcut(name):
    reference = tiktoken_encoding(name)
    story = replay(load_encoding(name), " strawberry everything antidisestablishmentarianism")
    for piece in story.pieces:
        is_token = piece.text.encode() in reference._mergeable_ranks
        assert piece.shortcut == (is_token and len(piece.text.encode()) > 1), piece.text
        if piece.shortcut:  # the merges that build it are still shown, and end in it
            assert len(piece.merges) == len(piece.text.encode()) - 1
            assert piece.tokens == (reference.encode_single_token(piece.text),)


def test_text_the_pattern_drops_has_no_piece():
    tokenizer = train("ab ab ab", num_merges=1, pattern=r"\p{L}+")
    story = replay(tokenizer, "ab, ab!")
    assert [piece.text for piece in story.pieces] == ["ab", "ab"]
    assert replay(tokenizer, "!!!").pieces == ()


# -------------------------------------------------------------- merge tree


def nodes(tree):
    yield tree
    for part in tree.parts:
        yield from nodes(part)


def assert_rebuilds_from_units(tree, unit_size=1):
    """Every node's bytes are its parts' bytes; every leaf is one unit."""
    for node in nodes(tree):
        if node.parts:
            assert node.token == b"".join(part.token for part in node.parts)
            assert all(part.id < node.id for part in node.parts)  # parts exist before (lower rank)
        else:
            assert node.leaf == UNIT and len(node.token.decode("utf-8", "surrogateescape")) == unit_size
    assert tree.merges == sum(1 for node in nodes(tree) if node.parts)


@pytest.mark.parametrize("name", OPENAI)
def test_merge_trees_of_openai_tokens_rebuild_them_from_bytes(name):
    tokenizer = load_encoding(name)
    sample = random.Random(name).sample(sorted(tokenizer.vocab), 300)
    for token_id in sample + [tokenizer.encode_ordinary(" strawberry")[0]]:
        tree = merge_tree(tokenizer, token_id)
        assert tree.id == token_id and tree.token == tokenizer.token_bytes(token_id)
        assert_rebuilds_from_units(tree)
        assert tree.merges == len(tree.token) - 1  # n bytes take n - 1 merges


def test_merge_tree_of_a_trained_token_follows_the_learned_merges(trained):
    tokenizer = trained["bytes"]
    for step in tokenizer.trace[-50:]:
        tree = merge_tree(tokenizer, step.new_id)
        assert tuple(part.id for part in tree.parts) == step.pair and tree.token == step.token
        assert_rebuilds_from_units(tree)


def test_merge_tree_of_a_character_tokenizer_ends_in_characters(trained):
    tokenizer = trained["chars"]
    for step in tokenizer.trace[-30:]:
        tree = merge_tree(tokenizer, step.new_id)
        assert b"".join(leaf.token for leaf in nodes(tree) if not leaf.parts) == step.token.encode()
        for node in nodes(tree):
            assert node.parts or len(node.token.decode()) == 1


def test_leaves_say_why_they_have_no_parts():
    cl100k = load_encoding("cl100k_base")
    assert merge_tree(cl100k, 100257).leaf == SPECIAL and merge_tree(cl100k, 100257).token == b"<|endoftext|>"
    assert merge_tree(cl100k, 65).leaf == UNIT
    # A rank file whose "abc" cannot be built from two lower-ranked tokens.
    odd = Tokenizer(name="odd", pattern="none", vocab={**{byte: bytes([byte]) for byte in range(256)}, 256: b"abc"})
    tree = merge_tree(odd, 256)
    assert tree.leaf == UNSPLITTABLE and tree.parts == ()
    assert "no merge made this token" in merge_tree_html(tree)


def test_merge_tree_of_an_unknown_id_says_which_ids_exist():
    with pytest.raises(ValueError, match="ids run from 0 to"):
        merge_tree(load_encoding("gpt2"), 10**9)


# --------------------------------------------------------------- rendering


def test_state_view_shows_units_then_the_final_tokens():
    reference = tiktoken_encoding("cl100k_base")
    story = replay(load_encoding("cl100k_base"), " strawberry")
    byte_ids = [reference.encode_single_token(bytes([byte])) for byte in b" strawberry"]
    assert chip_ids(replay_state_html(story, 0)) == byte_ids
    assert chip_ids(replay_state_html(story, story.steps)) == reference.encode(" strawberry")
    middle = replay_state_html(story, 3)
    assert middle.count('class="bpe-made"') == 1  # the token step 3 made, framed
    assert f"<small>{story.order[2].rank}</small>" in middle.split('class="bpe-made"')[1][:400]


def test_step_list_has_a_row_per_merge_with_its_rank_and_the_pair_boxed():
    story = replay(load_encoding("gpt2"), " strawberry fields")
    markup = replay_html(story)
    rows = re.findall(r'<div class="bpe-step"( data-step="\d+")?>', markup)
    assert len(rows) == story.steps + 2  # start, one per merge, result
    assert rows[:-1] == [f' data-step="{step}"' for step in range(story.steps + 1)]  # the step control marks the current one
    assert markup.count('class="bpe-pair"') == story.steps
    for step, merge in enumerate(story.order, start=1):
        assert f"step {step} · rank {merge.rank:,}" in markup
    result = markup.split(">result<")[1]
    assert chip_ids(result) == tiktoken_encoding("gpt2").encode(" strawberry fields")


def test_step_list_reports_the_shortcut():
    markup = replay_html(replay(load_encoding("cl100k_base"), " strawberry"))
    assert "Encode takes a shortcut for “·strawberry”" in visible_text(markup)
    assert "shortcut" not in visible_text(replay_html(replay(load_encoding("cl100k_base"), "strawberry")))


def test_user_markup_is_escaped_everywhere():
    tokenizer = load_encoding("cl100k_base")
    payload = "<script>alert(1)</script>"
    story = replay(tokenizer, payload)
    tree = merge_tree(tokenizer, tokenizer.encode_ordinary("<script")[0])
    for markup in (replay_html(story), replay_state_html(story, story.steps), merge_tree_html(tree)):
        body = re.sub(r"<style>.*?</style>", "", markup, flags=re.DOTALL)
        assert "<script" not in body and "&lt;script" in body


def test_tree_shows_bytes_of_partial_characters():
    tokenizer = load_encoding("cl100k_base")
    tree = merge_tree(tokenizer, tokenizer.encode_ordinary("こんにちは")[0])
    shown = visible_text(merge_tree_html(tree))
    assert "<E3>" in shown and "<81>" in shown  # the leaves: single bytes
    assert "\ufffd" not in shown
    nested = re.findall(r'<div class="bpe-node">', merge_tree_html(tree))
    assert len(nested) == 2 * len(tree.token) - 1  # n leaves, n - 1 merges


def test_the_steps_carry_their_styles_once():
    story = replay(load_encoding("cl100k_base"), " strawberry")
    drawn = replay_frames(story)
    assert len(drawn["frames"]) == story.steps + 1
    assert not any("<style>" in frame for frame in drawn["frames"])  # each step is drawn without restyling
    assert drawn["table"].count(".bpe-pair {") == 1 and drawn["table"].count(".bpe-chip {") == 1  # styled by the rows
    assert all("bpe-chip" in frame for frame in drawn["frames"])
