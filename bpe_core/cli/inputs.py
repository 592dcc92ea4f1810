"""What every command of the command line reads from its user: a text (a
file or standard input), a tokenizer (a bundled encoding by name; a file of
any format the app's upload takes; a Hugging Face model folder, a .zip of
one, or a model id in the local Hugging Face cache), and the errors in
them, which the command line reports in one line (`UserError`). Shared by
the commands (`main`) and the stage commands (`stage`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.encoding_base import EncodingBase
from ..engine.patterns import PRESETS
from ..formats import tokenizer_from_file

if TYPE_CHECKING:  # a model folder's readers are imported by the commands given one
    from ..formats.hf_folder import ModelFolder
    from ..vocabularies.chat import Template


class UserError(Exception):
    """Bad input from the user: reported in one line, exit status 1."""


class OptionError(UserError):
    """An option's value out of its range, found before any work: reported
    in one line, exit status 2 (wrong usage, as argparse's own)."""


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


def read_tokenizer_file(path: str, pattern: str) -> EncodingBase:
    """Any tokenizer file the app takes as an upload: one saved by 'train', a
    Hugging Face tokenizer.json, or a .tiktoken rank file (split by `pattern`,
    as rank files name none); plain or gzip-compressed. Or a model: see
    `read_model_folder`."""
    folder = read_model_folder(path)
    if folder is not None:
        from ..vocabularies.model_folders import tokenizer_from_folder

        return tokenizer_from_folder(folder, probe=False)
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise UserError(f"cannot read {path}: {error.strerror or error}") from None
    return tokenizer_from_file(Path(path).name, data, pattern)


def read_model_folder(path: str) -> ModelFolder | None:
    """A Hugging Face model folder named by `path`: a folder, a .zip of
    one, or (where no such file or folder exists) a model id in the local
    Hugging Face cache, read offline; None for a path that names a single
    file, or none."""
    from ..formats.hf_folder import cached_model_folder, read_folder, read_zip

    place = Path(path)
    if place.is_dir():
        return read_folder(place)
    if place.suffix == ".zip" and place.is_file():
        try:
            return read_zip(place.name, place.read_bytes())
        except OSError as error:
            raise UserError(f"cannot read {path}: {error.strerror or error}") from None
    owner = path.split("/")[0]
    if not place.exists() and path.count("/") == 1 and not owner.startswith((".", "~")) and not Path(owner).is_dir():
        return cached_model_folder(path)  # "google/gemma-3-1b-it", not a path such as "texts/missing.json"
    return None


def model_chat(path: str) -> tuple[EncodingBase, Template]:
    """A model folder's tokenizer and its chat template (see `read_model_folder`)."""
    folder = read_model_folder(path)
    if folder is None:
        raise UserError(f"{path} is a file; a chat template comes with a model folder (tokenizer.json beside "
                        "tokenizer_config.json or chat_template.jinja), a .zip of one, or a cached model id")
    from ..vocabularies.model_folders import tokenizer_from_folder

    tokenizer = tokenizer_from_folder(folder, probe=False)
    if tokenizer.chat is None:
        raise UserError(f"{path} has no chat template (tokenizer_config.json's chat_template, or chat_template.jinja)")
    return tokenizer, tokenizer.chat


def pick_tokenizer(args: argparse.Namespace) -> EncodingBase:
    if args.tokenizer:
        return read_tokenizer_file(args.tokenizer, args.rank_file_pattern)
    from ..vocabularies.catalogue import load_encoding

    return load_encoding(args.encoding)


class NamesReadLater(Sequence[str]):
    """A list of names that `read()` gives, read when first asked for. The
    parser offers names of encodings, chat templates and samples as choices
    and shows them in help, but only a command given such a name looks at
    them: `train` starts without loading every vocabulary, chat template
    and sample there is (a fifth of its start)."""

    def __init__(self, read: Callable[[], Sequence[str]]):
        self._read = read

    def __getitem__(self, index):
        return self._read()[index]

    def __len__(self) -> int:
        return len(self._read())


def _encoding_names() -> list[str]:
    from ..vocabularies.catalogue import ENCODING_NAMES

    return ENCODING_NAMES


def _chat_names() -> list[str]:
    from ..vocabularies.catalogue import CHAT_NAMES

    return CHAT_NAMES


ENCODING_NAMES = NamesReadLater(_encoding_names)
CHAT_NAMES = NamesReadLater(_chat_names)


TOKENIZER_FILE_HELP = ("a tokenizer file (saved by 'train', a Hugging Face tokenizer.json or a .tiktoken rank file), "
                       "a Hugging Face model folder or a .zip of one, or a model id in the local Hugging Face cache")


def add_rank_file_pattern(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rank-file-pattern", default="cl100k", metavar="PATTERN",
                        help=f"how a .tiktoken rank file splits text: {', '.join(PRESETS)} or a regex (default cl100k)")


def add_tokenizer_choice(parser: argparse.ArgumentParser) -> None:
    choice = parser.add_mutually_exclusive_group(required=True)
    choice.add_argument("--encoding", choices=ENCODING_NAMES, metavar="NAME",
                        help="a bundled OpenAI encoding or a model's (%(choices)s)")
    choice.add_argument("--tokenizer", metavar="PATH", help=TOKENIZER_FILE_HELP)
    add_rank_file_pattern(parser)
