"""The command line's stage commands: a talk's views saved to files that need
no app.

    python -m bpe_core html train --sample english_prose --vocab-size 1000 -o train.html
    python -m bpe_core html replay --encoding cl100k_base --text "unbelievably" -o replay.html
    python -m bpe_core html view --encoding o200k_base --text "..." -o view.html
    python -m bpe_core html deck talk.deck -o talk.html
    python -m bpe_core gif train --sample english_prose --vocab-size 1000 --steps 0:40 -o merges.gif

The drawing happens in `bpe_core.drawing` (`standalone`, `merges_gif`),
loaded only when one of these runs: the other commands load no drawing
library. They run on their user's own machine, so none keeps the app's
budgets (a saved page of at most 20,000 merges, a replay of 60 characters,
a view of 200,000, a deck of 8,000, a GIF of 200 frames): each takes what
it is given.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..engine.patterns import PRESETS
from ..engine.tokenizer import Tokenizer
from ..engine.training import train
from .inputs import NamesReadLater, UserError, add_tokenizer_choice, pick_tokenizer, read_text


def add_stage_commands(commands) -> None:
    """The `html` and `gif` commands, on the command line's subcommands."""
    html = commands.add_parser("html", help="save Train, Encode replay, a token view or a deck as one HTML file",
                               description="Save a view as one self-contained HTML file: it opens from disk in "
                               "any current browser with no network, with the app's step control and keys.")
    kinds = html.add_subparsers(dest="view", required=True, metavar="VIEW")

    training = kinds.add_parser("train", help="the Train page's step-through of a training run")
    _add_training_choice(training)
    training.add_argument("--step", type=int, default=0, help="the step the page opens at (default 0)")
    training.add_argument("-o", "--output", required=True, metavar="FILE", help="the HTML file to write")
    training.set_defaults(run=command_html_train)

    replaying = kinds.add_parser("replay", help="Encode replay: one word's merges, step by step")
    add_tokenizer_choice(replaying)
    replaying.add_argument("--text", required=True, help="a word or a short phrase (a leading space is part of it)")
    replaying.add_argument("-o", "--output", required=True, metavar="FILE", help="the HTML file to write")
    replaying.set_defaults(run=command_html_replay)

    viewing = kinds.add_parser("view", help="Inspect's coloured tokens with their cards")
    add_tokenizer_choice(viewing)
    source = viewing.add_mutually_exclusive_group(required=True)
    source.add_argument("--text", help="the text to show")
    source.add_argument("--file", metavar="FILE", help="a UTF-8 text file to show ('-' for stdin)")
    viewing.add_argument("--allow-special", action="store_true", help="encode <|endoftext|> etc. as special tokens")
    viewing.add_argument("--ids", action="store_true", help="show token ids instead of text")
    viewing.add_argument("--colour-by", choices=["position", "id"], default="position",
                         help="position (neighbours differ) or id (a token always has one colour)")
    viewing.add_argument("-o", "--output", required=True, metavar="FILE", help="the HTML file to write")
    viewing.set_defaults(run=command_html_view)

    deck = kinds.add_parser("deck", help="a talk deck: the app's permalinks and saved pages, walked with a clicker",
                            description="Save a deck file (one slide a line: link | title | note) as one HTML file. "
                            "Saved pages among its slides (train.html?train_step=40) are found beside it; the app's "
                            "permalinks are shown from the app at --app.")
    deck.add_argument("file", metavar="DECK", help="the deck file ('-' for stdin)")
    deck.add_argument("--app", default="http://localhost:8501", metavar="ADDRESS",
                      help="where the app runs during the talk (default http://localhost:8501)")
    deck.add_argument("-o", "--output", required=True, metavar="FILE", help="the HTML file to write")
    deck.set_defaults(run=command_html_deck)

    gif = commands.add_parser("gif", help="an animated GIF of training merges, for slides")
    gif_kinds = gif.add_subparsers(dest="view", required=True, metavar="VIEW")
    merges = gif_kinds.add_parser("train", help="the training text as merges land, one frame per merge",
                                  description="One 16:9 frame per merge: the training text as that merge left it, "
                                  "its new token outlined, and the step counter.")
    _add_training_choice(merges)
    merges.add_argument("--steps", default="0:20", metavar="A:B",
                        help="the merges after step A up to step B, one frame each (default 0:20)")
    merges.add_argument("--seconds", type=float, default=1.0, help="how long each frame shows (default 1)")
    merges.add_argument("--width", type=int, default=1280,
                        help="frame width in pixels; height is 9/16 of it (default 1280)")
    merges.add_argument("-o", "--output", required=True, metavar="FILE", help="the GIF file to write")
    merges.set_defaults(run=command_gif_train)


def _add_training_choice(parser: argparse.ArgumentParser) -> None:
    corpus = parser.add_mutually_exclusive_group(required=True)
    corpus.add_argument("--sample", choices=NamesReadLater(lambda: list(_samples())), metavar="NAME",
                        help="a bundled sample (%(choices)s)")
    corpus.add_argument("--file", metavar="FILE", help="a UTF-8 text file to train on ('-' for stdin)")
    parser.add_argument("--vocab-size", type=int, default=1_000,
                        help="256 + number of merges, with bytes (default 1000)")
    parser.add_argument("--pattern", default="cl100k", help=f"{', '.join(PRESETS)} or a regex (default cl100k)")
    parser.add_argument("--units", choices=["bytes", "chars"], default="bytes")
    parser.add_argument("--special", action="append", default=[], metavar="TOKEN", help="a special token (repeatable)")


def _samples() -> dict:
    from ..corpora.samples import catalog

    return catalog()


def _trained(args: argparse.Namespace) -> tuple[Tokenizer, str | dict, str, int]:
    """The tokenizer the arguments describe, trained, with its corpus, the
    corpus's name and where its text proper starts."""
    if args.sample:
        sample = _samples()[args.sample]
        corpus, label = sample.load(), sample.title
        opening = sample.opening_offset(corpus) if isinstance(corpus, str) else 0
    else:
        corpus, label, opening = read_text(args.file), "standard input" if args.file == "-" else Path(args.file).name, 0
        if not corpus.strip():
            raise UserError(f"{args.file} has no text to train on")
    tokenizer = train(corpus, vocab_size=args.vocab_size, pattern=args.pattern, units=args.units,
                      special_tokens=args.special)
    return tokenizer, corpus, label, opening


def command_html_train(args: argparse.Namespace) -> None:
    from ..drawing.standalone import training_page

    if args.step < 0:
        raise UserError(f"--step takes a number of merges from 0 on, not {args.step}")
    tokenizer, corpus, label, opening = _trained(args)
    _write(args.output, training_page(tokenizer, corpus, corpus_label=label, opening=opening, step=args.step,
                                      max_steps=None))


def command_html_replay(args: argparse.Namespace) -> None:
    from ..drawing.standalone import replay_page

    _write(args.output, replay_page(pick_tokenizer(args), args.text, max_chars=None))


def command_html_view(args: argparse.Namespace) -> None:
    from ..drawing.standalone import token_view_page

    text = args.text if args.text is not None else read_text(args.file)
    page = token_view_page(pick_tokenizer(args), text, allow_special=args.allow_special, show_ids=args.ids,
                           colour_by=args.colour_by, max_chars=None, seconds=None)
    _write(args.output, page)


def command_html_deck(args: argparse.Namespace) -> None:
    from ..analysis.deck import parse_deck
    from ..drawing.standalone import deck_page

    slides = parse_deck(read_text(args.file), max_chars=None, max_slides=None)
    _write(args.output, deck_page(slides, app_address=args.app))


def command_gif_train(args: argparse.Namespace) -> None:
    from ..drawing.merges_gif import merge_range, merges_gif

    merge_range(args.steps, sys.maxsize, max_frames=None)  # a malformed range is told before training
    tokenizer, corpus, _, opening = _trained(args)
    steps = merge_range(args.steps, len(tokenizer.trace), max_frames=None)
    _write(args.output, merges_gif(tokenizer, corpus, steps, opening=opening, width=args.width, seconds=args.seconds,
                                   max_frames=None))


def _write(path: str, content: str | bytes) -> None:
    try:
        if isinstance(content, bytes):
            Path(path).write_bytes(content)
        else:
            Path(path).write_text(content, encoding="utf-8")
    except OSError as error:
        raise UserError(f"cannot write {path}: {error.strerror or error}") from None
    print(f"saved {path} ({len(content.encode('utf-8') if isinstance(content, str) else content) / 1e6:.2f} MB)",
          file=sys.stderr)
