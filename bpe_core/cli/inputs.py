"""What every command of the command line reads from its user: a text (a
file or standard input), a tokenizer (a bundled encoding by name, or a file
of any format the app's upload takes), and the errors in them, which the
command line reports in one line (`UserError`). Shared by `cli` and
`stage_commands`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..engine.patterns import PRESETS
from ..engine.tokenizer import Tokenizer
from ..formats import tokenizer_from_file
from ..vocabularies.catalogue import ENCODING_NAMES, load_encoding


class UserError(Exception):
    """Bad input from the user: reported in one line, exit status 1."""


def positive_number(text: str) -> int:
    """A flag's whole number from 1 up (argparse reports anything else)."""
    if not (text.isascii() and text.isdigit() and int(text) >= 1):
        raise argparse.ArgumentTypeError(f"takes a whole number from 1 up, not {text!r}")
    return int(text)


def read_text(source: str) -> str:
    """The UTF-8 text of a file, or of standard input for "-"."""
    try:
        data = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except OSError as error:
        raise UserError(f"cannot read {source}: {error.strerror or error}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UserError(
            f"{'standard input' if source == '-' else source} is not UTF-8 text "
            f"(byte 0x{data[error.start]:02x} at offset {error.start})"
        ) from None


def read_tokenizer_file(path: str, pattern: str) -> Tokenizer:
    """Any tokenizer file the app takes as an upload: one saved by 'train', a
    Hugging Face tokenizer.json, or a .tiktoken rank file (split by `pattern`,
    as rank files name none); plain or gzip-compressed."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise UserError(f"cannot read {path}: {error.strerror or error}") from None
    return tokenizer_from_file(Path(path).name, data, pattern)


def pick_tokenizer(args: argparse.Namespace) -> Tokenizer:
    if args.tokenizer:
        return read_tokenizer_file(args.tokenizer, args.rank_file_pattern)
    return load_encoding(args.encoding)


TOKENIZER_FILE_HELP = "a tokenizer file: saved by 'train', a Hugging Face tokenizer.json or a .tiktoken rank file"


def add_rank_file_pattern(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rank-file-pattern", default="cl100k", metavar="PATTERN",
                        help=f"how a .tiktoken rank file splits text: {', '.join(PRESETS)} or a regex (default cl100k)")


def add_tokenizer_choice(parser: argparse.ArgumentParser) -> None:
    choice = parser.add_mutually_exclusive_group(required=True)
    choice.add_argument("--encoding", choices=ENCODING_NAMES, metavar="NAME",
                        help=f"a bundled OpenAI encoding or a model's ({', '.join(ENCODING_NAMES)})")
    choice.add_argument("--tokenizer", metavar="FILE", help=TOKENIZER_FILE_HELP)
    add_rank_file_pattern(parser)
