"""Training merges as an animated GIF for slides: one 16:9 frame per merge
asked for, the new token outlined, and a clear message for a bad range."""

import io

import pytest
from PIL import Image

from bpe_core import train
from bpe_core.corpora.samples import catalog
from bpe_core.drawing.merges_gif import MAX_FRAMES, merge_range, merges_gif
from bpe_core.drawing.slides import HIGHLIGHT_OUTLINE, layout_tokens, tokens_png
from tests.apptest import messages, open_page
from tests.cli import run_cli as run

TEXT = "low lower lowest newer wider newest widest " * 20


@pytest.fixture(scope="module")
def tokenizer():
    return train(TEXT, vocab_size=300, pattern="gpt2")


def frames(gif: bytes) -> list[Image.Image]:
    image = Image.open(io.BytesIO(gif))
    found = []
    for index in range(image.n_frames):
        image.seek(index)
        found.append((image.convert("RGB"), image.info["duration"]))
    return found


@pytest.mark.slow
def test_one_frame_per_merge_asked_for_at_16_to_9(tokenizer):
    drawn = frames(merges_gif(tokenizer, TEXT, range(3, 11), seconds=0.5))
    assert len(drawn) == 8
    assert {frame.size for frame, _ in drawn} == {(1280, 720)}
    assert [duration for _, duration in drawn] == [500] * 7 + [1500]  # the last merge stays up longer
    assert len({frame.tobytes() for frame, _ in drawn}) == 8  # every merge changes the picture
    wide = frames(merges_gif(tokenizer, TEXT, range(1, 2), width=1920))
    assert wide[0][0].size == (1920, 1080)


def test_the_merges_of_a_word_count_corpus():
    corpus = catalog()["textbook_word_counts"].load()
    words = train(corpus, vocab_size=270, pattern="gpt2")
    assert len(frames(merges_gif(words, corpus, range(1, 4)))) == 3


def test_the_new_token_is_outlined(tokenizer):
    made = tokenizer.trace[4].new_id
    spans = tokenizer.encode_with_offsets(TEXT[:60], step=5)
    layout = layout_tokens(TEXT[:60], spans, highlight_ids={made}, colour_by="id")
    assert [box.highlighted for box in layout.boxes] == [span.id == made for span in spans]
    assert any(box.highlighted for box in layout.boxes)
    picture = Image.open(io.BytesIO(tokens_png(TEXT[:60], spans, highlight_ids={made}, colour_by="id"))).convert("RGB")
    outline = tuple(int(HIGHLIGHT_OUTLINE[i : i + 2], 16) for i in (1, 3, 5))
    for box in layout.boxes:  # the left edge, half way down: the outline's colour only where highlighted
        edge = picture.getpixel((box.x + 1, box.y + box.height // 2))
        assert (edge == outline) == box.highlighted


@pytest.mark.parametrize("asked, total, message", [
    ("5", 10, "the form A:B"),
    ("3:2", 10, "the form A:B"),
    ("-1:4", 10, "the form A:B"),
    ("0:11", 10, "up to 11, but training learned 10"),
    (f"0:{MAX_FRAMES + 1}", 10_000, f"a GIF holds up to {MAX_FRAMES}"),
])
def test_a_bad_range_of_merges_is_explained(asked, total, message):
    with pytest.raises(ValueError, match=message):
        merge_range(asked, total)


def test_a_range_names_the_merges_after_a_up_to_b():
    assert merge_range("0:40", 744) == range(1, 41)
    assert merge_range(" 10:12 ", 744) == range(11, 13)


@pytest.mark.slow
def test_the_command_line_draws_one_frame_per_merge(tmp_path):
    gif = tmp_path / "merges.gif"
    code, _, err = run("gif", "train", "--sample", "english_prose", "--vocab-size", 300, "--steps", "0:6", "-o", gif)
    assert code == 0, err
    assert len(frames(gif.read_bytes())) == 6
    for args, message in [(["--steps", "0:100"], "training learned 44"), (["--steps", "x"], "the form A:B"),
                          (["--width", "100"], "from 640 to 3840 pixels")]:
        code, _, err = run("gif", "train", "--sample", "english_prose", "--vocab-size", 300, *args, "-o", gif)
        assert code == 1 and err.startswith("error: ") and message in err


@pytest.mark.slow
def test_the_train_page_offers_the_gif_and_explains_a_bad_range():
    at = open_page("pages/train.py")
    assert "Merges as a GIF" in {button.proto.label for button in at.download_button}
    at.text_input(key="train_gif").set_value("40:20").run()
    assert any("the form A:B" in caption for caption in messages(at.caption))
    assert "Merges as a GIF" not in {button.proto.label for button in at.download_button}
