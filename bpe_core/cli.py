"""Command line: python -m bpe_core {train,encode,decode,compare,tax} ...

Errors in the user's input (a missing file, invalid UTF-8, a bad pattern, an
unknown token id) print one line starting with "error:" and exit with 1;
wrong usage exits with 2, as argparse does.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from .analysis.tax import languages, premiums
from .encodings import ENCODINGS, load_encoding
from .formats import load_tokenizer, save_tokenizer
from .formats.reading import parse_json
from .patterns import PRESETS
from .specials import found_in
from .token_ids import parse_token_ids
from .tokenizer import Tokenizer
from .training import train

DEFAULT_TAX_ENCODINGS = ["gpt2", "cl100k_base", "o200k_base"]


class UserError(Exception):
    """Bad input from the user: reported in one line, exit status 1."""


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


def read_corpus(source: str) -> str | dict[str, int]:
    """A text file, or a JSON file of word counts ({"low": 5, ...})."""
    text = read_text(source)
    if source.endswith(".json"):
        counts = parse_json(text, source)
        if not isinstance(counts, dict):
            raise UserError(f'{source} must hold word counts, e.g. {{"low": 5, "lower": 2}}')
        return counts
    return text


def pick_tokenizer(args: argparse.Namespace) -> Tokenizer:
    if args.tokenizer:
        return load_tokenizer(args.tokenizer)
    return load_encoding(args.encoding)


def _add_tokenizer_choice(parser: argparse.ArgumentParser) -> None:
    choice = parser.add_mutually_exclusive_group(required=True)
    choice.add_argument("--encoding", choices=sorted(ENCODINGS), help="a bundled OpenAI encoding")
    choice.add_argument("--tokenizer", metavar="FILE", help="a tokenizer saved by 'train'")


def command_train(args: argparse.Namespace) -> None:
    corpus = read_corpus(args.corpus)
    tokenizer = train(
        corpus,
        vocab_size=args.vocab_size,
        num_merges=args.merges,
        pattern=args.pattern,
        units=args.units,
        special_tokens=args.special,
        min_count=args.min_count,
    )
    try:
        save_tokenizer(tokenizer, args.output)
    except OSError as error:
        raise UserError(f"cannot write {args.output}: {error.strerror or error}") from None
    print(f"learned {len(tokenizer.merges)} merges; saved to {args.output}", file=sys.stderr)
    if tokenizer.stop_reason:
        print(f"stopped early: {tokenizer.stop_reason}", file=sys.stderr)


def command_encode(args: argparse.Namespace) -> None:
    tokenizer = pick_tokenizer(args)
    text = read_text(args.file)
    if args.allow_special:
        ids = tokenizer.encode(text, allowed_special="all")
    else:
        found = found_in(text, tokenizer.special_tokens)
        if found:
            raise UserError(
                f"the text contains the special token {found[0]!r}; pass --allow-special "
                "to encode it as that special token"
            )
        ids = tokenizer.encode_ordinary(text)
    print(json.dumps(ids) if args.json else " ".join(map(str, ids)))


def command_decode(args: argparse.Namespace) -> None:
    tokenizer = pick_tokenizer(args)
    ids = parse_token_ids(" ".join(args.ids) if args.ids else read_text("-"))
    sys.stdout.write(tokenizer.decode(ids))
    sys.stdout.write("\n")


def command_compare(args: argparse.Namespace) -> None:
    text = read_text(args.file)
    tokenizers = [load_encoding(name) for name in args.with_]
    tokenizers += [load_tokenizer(path) for path in args.tokenizer]
    if not tokenizers:
        raise UserError("name at least one tokenizer: --with cl100k_base, or --tokenizer FILE")
    rows = [(tok.name, len(tok.encode(text, disallowed_special=()))) for tok in tokenizers]
    fewest = min(count for _, count in rows)
    size = len(text.encode("utf-8"))
    if args.json:
        print(json.dumps({name: count for name, count in rows}))
        return
    width = max(len(name) for name, _ in rows)
    print(f"{'tokenizer':<{width}}  {'tokens':>9}  {'bytes/token':>11}  {'chars/token':>11}  {'vs best':>7}")
    for name, count in rows:
        per = lambda amount: f"{amount / count:.2f}" if count else "-"
        versus = f"{count / fewest:>6.2f}x" if fewest else "      -"
        print(f"{name:<{width}}  {count:>9,}  {per(size):>11}  {per(len(text)):>11}  {versus}")


def command_tax(args: argparse.Namespace) -> None:
    names = args.encoding or DEFAULT_TAX_ENCODINGS
    if args.base not in languages():
        raise UserError(f"unknown base language {args.base!r}; choose one of {', '.join(languages())}")
    table = premiums({name: load_encoding(name) for name in names}, base=args.base)
    if args.json:
        print(json.dumps(table))
        return
    print(f"Token premium relative to {languages()[args.base].name} (same passage, tokens_L / tokens_{args.base})")
    print(f"{'language':<22}" + "".join(f"{name:>13}" for name in names))
    for code, language in languages().items():
        print(f"{language.name + ' (' + code + ')':<22}" + "".join(f"{table[name][code]:>13.2f}" for name in names))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bpe_core",
        description="Train, run and compare byte pair encoding tokenizers (offline).",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    trainer = commands.add_parser("train", help="learn a tokenizer from a text (or a .json of word counts)")
    trainer.add_argument("corpus", metavar="CORPUS", help="UTF-8 text file, '-' for stdin, or word counts as .json")
    size = trainer.add_mutually_exclusive_group(required=True)
    size.add_argument("--vocab-size", type=int, help="256 + number of merges (bytes)")
    size.add_argument("--merges", type=int, help="number of merges to learn")
    trainer.add_argument("--pattern", default="cl100k", help=f"{', '.join(PRESETS)} or a regex (default cl100k)")
    trainer.add_argument("--units", choices=["bytes", "chars"], default="bytes")
    trainer.add_argument("--special", action="append", default=[], metavar="TOKEN", help="a special token (repeatable)")
    trainer.add_argument("--min-count", type=int, default=1, help="stop when the best pair is rarer")
    trainer.add_argument("-o", "--output", required=True, metavar="FILE", help="where to save the tokenizer (JSON)")
    trainer.set_defaults(run=command_train)

    encoder = commands.add_parser("encode", help="text to token ids")
    _add_tokenizer_choice(encoder)
    encoder.add_argument("file", nargs="?", default="-", metavar="FILE", help="text to encode (default stdin)")
    encoder.add_argument("--json", action="store_true", help="print a JSON list")
    encoder.add_argument("--allow-special", action="store_true", help="encode <|endoftext|> etc. as special tokens")
    encoder.set_defaults(run=command_encode)

    decoder = commands.add_parser("decode", help="token ids to text")
    _add_tokenizer_choice(decoder)
    decoder.add_argument("ids", nargs="*", metavar="ID", help="ids (default: read them from stdin)")
    decoder.set_defaults(run=command_decode)

    comparer = commands.add_parser("compare", help="token counts of one text under several tokenizers")
    comparer.add_argument("file", metavar="FILE", help="text to tokenize ('-' for stdin)")
    comparer.add_argument("--with", dest="with_", action="append", default=[], choices=sorted(ENCODINGS), metavar="NAME")
    comparer.add_argument("--tokenizer", action="append", default=[], metavar="FILE", help="a saved tokenizer")
    comparer.add_argument("--json", action="store_true", help="print {tokenizer: token count}")
    comparer.set_defaults(run=command_compare)

    tax = commands.add_parser("tax", help="token premium per language on the bundled parallel corpus")
    tax.add_argument("--encoding", action="append", choices=sorted(ENCODINGS), metavar="NAME",
                     help="an encoding to measure (repeatable; default gpt2, cl100k_base, o200k_base)")
    tax.add_argument("--base", default="en", metavar="CODE", help="the language premiums are relative to (default en)")
    tax.add_argument("--json", action="store_true", help='print {"encoding": {"language code": premium}}')
    tax.set_defaults(run=command_tax)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.run(args)
    except (UserError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # the reader stopped early (`| head`): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0
