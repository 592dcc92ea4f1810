"""Training merges as an animated GIF, for slides: a talk's deck can show BPE
learning without the app, a browser or a network.

One 16:9 frame per merge: at the top the merge ("h + e → he", how often the
pair occurred) and the step counter ("2 / 744"); below, the start of the
training text as that merge left it, each token a box coloured by id (a
token keeps its colour from frame to frame), the token the merge made
outlined. The text's tokens come from the same replay the Train page's step
view uses (`analysis.training_view`), and the boxes from the slides' layout
(`slides`), so the GIF, the slides and the app agree.
"""

from __future__ import annotations

import io
from collections.abc import Mapping

from PIL import Image

from ..analysis.labels import label_text
from ..analysis.training_view import window_pieces, word_list, word_pieces
from ..engine.tokenizer import Tokenizer
from .slides import BACKGROUND, NOTE_COLOUR, draw_layout, draw_text, layout_tokens, text_width
from .training_view import WINDOW_CHARS, WORDS_SHOWN

ASPECT = 9 / 16
FONT_SIZE_PER_PIXEL = 28 / 1280  # token labels 28 px high on a 1280 x 720 frame
MIN_WIDTH, MAX_WIDTH = 640, 3840
MAX_FRAMES = 200  # the app's budget (the command line sets none): a GIF of 200 merges is a few MB, seconds to draw
GIF_TEXT_CHARS = 600  # of the training text: more than a frame shows at any width


def merge_range(text: str, total: int, max_frames: int | None = MAX_FRAMES) -> range:
    """The merges "A:B" names (after step A up to step B: merges A+1 to B)
    of a run of `total` merges, or ValueError saying what it takes (at most
    `max_frames` of them; None: any number)."""
    first, colon, last = text.strip().partition(":")
    if not (colon and first.isascii() and first.isdigit() and last.isascii() and last.isdigit()
            and len(first) < 10 and len(last) < 10 and int(first) < int(last)):
        raise ValueError(f"the merges take the form A:B, whole numbers with A < B (such as 0:40), not {text!r}")
    if int(last) > total:
        raise ValueError(f"{text} asks for merges up to {int(last):,}, but training learned {total:,}")
    if max_frames is not None and int(last) - int(first) > max_frames:
        raise ValueError(f"{text} asks for {int(last) - int(first):,} frames; a GIF holds up to {max_frames}")
    return range(int(first) + 1, int(last) + 1)


def merges_gif(tokenizer: Tokenizer, corpus: str | Mapping[str, int], steps: range, *, opening: int = 0,
               width: int = 1280, seconds: float = 1.0, max_frames: int | None = MAX_FRAMES) -> bytes:
    """A GIF with one frame per merge in `steps` (merge numbers, 1 to the
    number learned) of `tokenizer`'s training on `corpus` (`opening`: where
    its text proper starts), each shown `seconds`, the last three times as
    long; `width` pixels wide, 16:9; at most `max_frames` (None: any number)."""
    total = len(tokenizer.trace)
    if not total:
        raise ValueError("this tokenizer learned no merges, so there is nothing to draw")
    if not steps or steps.step != 1 or steps.start < 1 or steps[-1] > total:
        raise ValueError(f"the merges to draw must be a range within 1 to {total:,}")
    if max_frames is not None and len(steps) > max_frames:
        raise ValueError(f"{len(steps):,} frames asked for; a GIF holds up to {max_frames:,}")
    if not MIN_WIDTH <= width <= MAX_WIDTH:
        raise ValueError(f"the width must be from {MIN_WIDTH} to {MAX_WIDTH} pixels, not {width}")
    if not 0.02 <= seconds <= 60:
        raise ValueError(f"a frame may show from 0.02 to 60 seconds, not {seconds:g}")
    text, pieces = _shown_text(tokenizer, corpus, opening)
    frames = [_frame(tokenizer, text, pieces, step, total, width) for step in steps]
    durations = [round(1000 * seconds)] * len(frames)
    durations[-1] *= 3  # the last merge stays up a while before the loop starts again
    buffer = io.BytesIO()
    frames[0].save(buffer, format="GIF", save_all=True, append_images=frames[1:], duration=durations, loop=0)
    return buffer.getvalue()


def _shown_text(tokenizer: Tokenizer, corpus, opening: int):
    """The start of the training text, cut as training cut it (a word-count
    corpus: its first words)."""
    if isinstance(corpus, str):
        text = corpus[opening : opening + min(GIF_TEXT_CHARS, WINDOW_CHARS)]
        return text, window_pieces(tokenizer, text)
    text, spans = word_list(corpus, WORDS_SHOWN)
    return text, word_pieces(tokenizer, text, spans)


def _frame(tokenizer: Tokenizer, text: str, pieces, step: int, total: int, width: int) -> Image.Image:
    height = round(width * ASPECT)
    font_size = round(FONT_SIZE_PER_PIXEL * width)
    merge = tokenizer.trace[step - 1]
    left, right = (label_text(tokenizer.token_bytes(token_id)) for token_id in merge.pair)
    made = label_text(tokenizer.token_bytes(merge.new_id))
    image = Image.new("RGB", (width, height), BACKGROUND)
    margin = round(0.6 * font_size)
    heading_size = round(1.3 * font_size)
    counter = f"{step:,} / {total:,}"
    counter_width = text_width(counter, heading_size)
    draw_text(image, counter, width - margin - counter_width, margin, font_size=heading_size)
    draw_text(image, f"Merge {step:,}: {left} + {right} → {made}", margin, margin, font_size=heading_size,
              width=width - 3 * margin - counter_width)
    draw_text(image, f"the pair occurred {merge.count:,} times · the corpus is now {merge.corpus_tokens:,} tokens",
              margin, margin + round(2.1 * font_size), font_size=round(0.8 * font_size), colour=NOTE_COLOUR)
    top = margin + round(3.5 * font_size)
    spans = [token for piece in pieces for token in piece.tokens_at(step)]
    row_pitch = round(1.5 * font_size) + round(0.35 * font_size)  # as the layout spaces rows
    rows = max(1, (height - top - margin) // row_pitch - 1)  # and one row for "… and N more tokens"
    layout = layout_tokens(text, spans, colour_by="id", highlight_ids={merge.new_id}, width=width,
                           font_size=font_size, max_tokens=None, max_rows=rows)
    draw_layout(image, layout, top=top - margin)
    return image
