"""Command line: python -m bpe_core {train,encode,decode,compare,tax,chat,vocab-health,tiktoken-cache} ...

Errors in the user's input (a missing file, invalid UTF-8, a bad pattern, an
unknown token id) print one line starting with "error:" and exit with 1;
wrong usage exits with 2, as argparse does, and so does an option's value
out of its range (SuperBPE's transition, Picky BPE's threshold, a dropout),
in one line, before any work; Ctrl+C ends with one line and 130, as a shell
reports a command stopped by it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

# What every command needs, and what the parser shows (the names of the
# encodings); what only one command needs it imports when it runs, so that
# `train`, the command that counts its time, starts without the research
# algorithms, the language tables and the chat templates.
from ..corpora.corpus_files import corpus_paths, count_files, readable_chunks, write_counts
from ..engine.corpus import count_chunks, worker_count
from ..engine.patterns import PRESETS, compile_pattern
from ..engine.specials import found_in
from ..engine.training import train
from ..formats import save_tokenizer
from .inputs import (
    CHAT_NAMES,
    ENCODING_NAMES,
    TOKENIZER_FILE_HELP,
    OptionError,
    UserError,
    add_rank_file_pattern,
    add_tokenizer_choice,
    model_chat,
    pick_tokenizer,
    read_text,
    read_tokenizer_file,
)
from .stage import add_stage_commands

MAX_PARITY_MERGES = 20_000  # far more than the corpus's pairs seen twice
EXAMPLES = 10  # tokens of each kind the vocab-health summary names
TAX_MEASURES = {"premium": "Token premium", "fertility": "Tokens per word", "split_share": "Share of words split into several tokens"}


def command_train(args: argparse.Namespace) -> None:
    if args.algorithm in RESEARCH_ALGORITHMS:
        train_research(args)
        return
    if args.algorithm != "bpe":
        if args.dask:
            raise UserError(f"--dask counts pieces for BPE; {args.algorithm} trains on the text itself, here")
        train_hugging_face(args)
        return
    if args.dask:
        counts = count_on_dask(args.dask, args.corpus, args.pattern, tuple(args.special))
    else:
        counts = count_corpus(args.corpus, args.pattern, tuple(args.special))
    if args.save_counts:
        try:
            write_counts(counts, Path(args.save_counts))
        except OSError as error:
            raise UserError(f"cannot write {args.save_counts}: {error.strerror or error}") from None
        print(f"saved the counts of {len(counts):,} distinct pieces to {args.save_counts}", file=sys.stderr)
    bar = ProgressBar("training", "merges")
    tokenizer = train(
        counts,
        vocab_size=args.vocab_size,
        num_merges=args.merges,
        pattern=args.pattern,
        units=args.units,
        special_tokens=args.special,
        min_count=args.min_count,
        progress=bar.show,
    )
    bar.done()
    try:
        save_tokenizer(tokenizer, args.output)
    except OSError as error:
        raise UserError(f"cannot write {args.output}: {error.strerror or error}") from None
    print(f"learned {len(tokenizer.merges)} merges; saved to {args.output}", file=sys.stderr)
    if tokenizer.stop_reason:
        print(f"stopped early: {tokenizer.stop_reason}", file=sys.stderr)


RESEARCH_ALGORITHMS = ("superbpe", "boundless", "picky")


def train_research(args: argparse.Namespace) -> None:
    """SuperBPE, BoundlessBPE or Picky BPE on this engine (`bpe_core.algorithms`),
    saved in this engine's format. Their options are checked before any work."""
    from ..algorithms.boundless import train_boundless
    from ..algorithms.picky import check_threshold, train_picky
    from ..algorithms.superbpe import check_transition, train_superbpe

    vocab_size = args.vocab_size if args.vocab_size is not None else 256 + args.merges
    try:
        if args.algorithm == "superbpe":
            check_transition(args.transition if args.transition is not None else vocab_size * 4 // 5, vocab_size)
        if args.algorithm == "picky":
            check_threshold(args.picky_threshold)
    except ValueError as error:
        raise OptionError(str(error)) from None
    if args.units != "bytes" and args.algorithm != "picky":
        raise OptionError(f"{args.algorithm} is byte-level: --units chars is Picky BPE's or plain BPE's")
    if args.dask or args.save_counts:
        raise UserError(f"--dask and --save-counts count pieces for BPE and Picky BPE's own run, not {args.algorithm}")
    bar = ProgressBar("training", "merges")
    common = {"vocab_size": vocab_size, "pattern": args.pattern, "special_tokens": args.special, "progress": bar.show}
    if args.algorithm == "picky":
        counts = count_corpus(args.corpus, args.pattern, tuple(args.special))
        tokenizer = train_picky(counts, threshold=args.picky_threshold, units=args.units, **common)
        made = f"{len(tokenizer.merges):,} merges and {len(tokenizer.removals):,} removals"
    else:
        text = corpus_text(args.corpus, args.algorithm)
        if args.algorithm == "superbpe":
            transition = args.transition if args.transition is not None else vocab_size * 4 // 5
            tokenizer = train_superbpe(text, transition=transition, **common)
            made = f"{transition - 256:,} merges, then {len(tokenizer.merges) - transition + 256:,} across words"
        else:
            tokenizer = train_boundless(text, **common)
            made = f"{len(tokenizer.merges):,} merges, {len(tokenizer.supermerges):,} of them supermerges"
    bar.done()
    try:
        save_tokenizer(tokenizer, args.output)
    except OSError as error:
        raise UserError(f"cannot write {args.output}: {error.strerror or error}") from None
    print(f"learned {made}; saved to {args.output}", file=sys.stderr)
    if tokenizer.stop_reason:
        print(f"stopped early: {tokenizer.stop_reason}", file=sys.stderr)


def corpus_text(specs: list[str], algorithm: str) -> str:
    """The text of the corpus named (files in order, a line break between),
    for an algorithm that learns from the text itself, not piece counts."""
    paths = [Path("-")] if specs == ["-"] else corpus_paths(specs)
    counts = [path for path in paths if path.suffix == ".json"]
    if counts:
        raise UserError(f"{algorithm} learns from adjacent pieces of text, not counts: {counts[0]} is a counts file")
    return "\n".join(read_text(str(path)) for path in paths)


def train_hugging_face(args: argparse.Namespace) -> None:
    """WordPiece or Unigram by Hugging Face's trainers, saved as its tokenizer.json."""
    from ..algorithms.hf_trainers import train_unigram, train_wordpiece

    if args.vocab_size is None:
        raise UserError(f"{args.algorithm} learns a vocabulary of a size, not merges: give --vocab-size")
    paths = [Path("-")] if args.corpus == ["-"] else corpus_paths(args.corpus)
    counts = [path for path in paths if path.suffix == ".json"]
    if counts:
        raise UserError(f"{args.algorithm} trains on text, not counts: {counts[0]} is a counts file")
    lines = (line for path in paths for line in read_text(str(path)).splitlines(keepends=True))
    trainer = train_wordpiece if args.algorithm == "wordpiece" else train_unigram
    tokenizer = trainer(lines, args.vocab_size, show_progress=sys.stderr.isatty())
    try:
        Path(args.output).write_text(tokenizer.to_json(), encoding="utf-8")
    except OSError as error:
        raise UserError(f"cannot write {args.output}: {error.strerror or error}") from None
    print(f"learned {tokenizer.n_vocab:,} {args.algorithm} tokens; saved Hugging Face's tokenizer.json to "
          f"{args.output}", file=sys.stderr)


def count_corpus(specs: list[str], pattern: str, special_tokens: tuple[str, ...]) -> dict[str, int]:
    """The piece counts of every corpus named: text from standard input
    ("-"), text files, folders and globs read block by block, and counts
    (`*.json`), merged in the order given."""
    compile_pattern(pattern)  # a bad pattern is one line now, not after reading gigabytes
    bar = ProgressBar("counting", "MB", scale=1e6)
    if specs == ["-"]:
        chunks = readable_chunks(sys.stdin.buffer, "standard input", pattern, special_tokens, bar.advance)
        counts = count_chunks(chunks, pattern, special_tokens, workers=worker_count(None))
    else:
        paths = corpus_paths(specs)
        bar.total = sum(path.stat().st_size for path in paths)
        counts = count_files(paths, pattern, special_tokens, progress=bar.advance)
    bar.done()
    return counts


def count_on_dask(address: str, specs: list[str], pattern: str, special_tokens: tuple[str, ...]) -> dict[str, int]:
    """The piece counts of the files `specs` name, counted by the Dask
    cluster at `address` (or "local:N"): the same counts as `count_corpus`."""
    compile_pattern(pattern)
    try:
        from ..corpora import dask_counting
    except ImportError as error:
        raise UserError(f"--dask needs Dask ({error}): pip install -r requirements-dask.txt") from None
    bar = ProgressBar("counting", "MB", scale=1e6)

    def show(tasks_done: int, tasks: int, bytes_done: int, total_bytes: int) -> None:
        bar.note = f", {tasks_done:,} / {tasks:,} tasks"
        bar.show(bytes_done, total_bytes)

    try:
        with dask_counting.connect(address) as client:
            counts = dask_counting.count_on_cluster(client, specs, pattern, special_tokens, progress=show)
    except KeyboardInterrupt:
        bar.done()
        raise KeyboardInterrupt("the cluster's work on this corpus was cancelled") from None
    bar.done()
    return counts


class ProgressBar:
    """A one-line progress bar on standard error, drawn only on a terminal."""

    def __init__(self, label: str, unit: str, scale: float = 1):
        self.label, self.unit, self.scale = label, unit, scale
        self.done_so_far, self.total = 0, 0
        self.note = ""  # said after the figures
        self.visible = sys.stderr.isatty()

    def advance(self, amount: int) -> None:
        self.show(self.done_so_far + amount, self.total)

    def show(self, done: int, total: int) -> None:
        """Draw `done` of `total` (0: a total not known, as for standard input)."""
        self.done_so_far, self.total = done, total
        if not self.visible:
            return
        if total:
            filled = int(30 * min(done / total, 1))
            sys.stderr.write(
                f"\r{self.label} [{'#' * filled}{'.' * (30 - filled)}] "
                f"{done / self.scale:,.1f} / {total / self.scale:,.1f} {self.unit}{self.note}"
            )
        else:
            sys.stderr.write(f"\r{self.label} {done / self.scale:,.1f} {self.unit}")
        sys.stderr.flush()

    def done(self) -> None:
        if self.visible and (self.total or self.done_so_far):
            sys.stderr.write("\n")


def command_encode(args: argparse.Namespace) -> None:
    from ..algorithms.dropout import check_dropout, encode_with_dropout

    if args.dropout is not None:
        try:
            check_dropout(args.dropout)
        except ValueError as error:
            raise OptionError(str(error)) from None
    tokenizer = pick_tokenizer(args)
    text = read_text(args.file)
    if args.dropout is not None:
        if not args.allow_special and found_in(text, tokenizer.special_tokens):
            raise UserError(f"the text contains the special token {found_in(text, tokenizer.special_tokens)[0]!r}; "
                            "pass --allow-special to encode it as that special token")
        allowed = frozenset(tokenizer.special_tokens) if args.allow_special else frozenset()
        ids = encode_with_dropout(tokenizer, text, args.dropout, args.seed, allowed_special=allowed)
    elif args.allow_special:
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
    from ..engine.token_ids import parse_token_ids

    tokenizer = pick_tokenizer(args)
    ids = parse_token_ids(" ".join(args.ids) if args.ids else read_text("-"))
    sys.stdout.write(tokenizer.decode(ids))
    sys.stdout.write("\n")


def command_compare(args: argparse.Namespace) -> None:
    from ..vocabularies.catalogue import load_encoding

    text = read_text(args.file)
    tokenizers = [load_encoding(name) for name in args.with_]
    tokenizers += [read_tokenizer_file(path, args.rank_file_pattern) for path in args.tokenizer]
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
    from ..analysis.tax import PASSAGE_GINI_COST, corpus_table, languages, parity_experiment, passage_gini, row_figures
    from ..analysis.words import HOW_WORDS_ARE_COUNTED
    from ..vocabularies.catalogue import load_encoding

    if args.corpus == "udhr":
        tax_of_declarations(args)
        return
    args.base = args.base or "en"
    if args.base not in languages():
        raise UserError(f"unknown base language {args.base!r}; choose one of {', '.join(languages())}")
    if args.parity is not None and not 1 <= args.parity <= MAX_PARITY_MERGES:
        raise UserError(f"--parity takes a number of merges from 1 to {MAX_PARITY_MERGES:,}, not {args.parity}")
    tokenizers = {name: load_encoding(name) for name in args.encoding} if args.encoding else every_loadable_encoding()
    names = list(tokenizers)
    rows = corpus_table(tokenizers, base=args.base)
    figures = {name: {row.code: row_figures(row) for row in rows if row.tokenizer == name} for name in names}
    ginis = passage_gini(rows)
    experiment = parity_experiment(args.parity, args.base) if args.parity else None
    if args.json:
        report = {"base": args.base, "words": HOW_WORDS_ARE_COUNTED, "tokenizers": figures, "gini": ginis,
                  "gini_cost": PASSAGE_GINI_COST}
        if experiment is not None:
            report["parity"] = parity_report(experiment)
        print(json.dumps(report))
        return
    base_name = languages()[args.base].name
    print(f"{TAX_MEASURES[args.measure]} per language, same passage"
          + (f" (tokens_L / tokens_{args.base}, {base_name} = 1.00)" if args.measure == "premium" else ""))
    width = column_width(names)
    print(f"{'language':<22}" + "".join(f"{name:>{width}}" for name in names))
    for code, language in languages().items():
        print(f"{language.name + ' (' + code + ')':<22}"
              + "".join(f"{figures[name][code][args.measure]:>{width}.2f}" for name in names))
    print(f"{'Gini':<22}" + "".join(f"{ginis[name]:>{width}.3f}" for name in names))
    print(f"(Gini: of per-language token cost, {PASSAGE_GINI_COST}; 0 is parity)")
    if experiment is not None:
        print(f"\nPlain vs parity-aware BPE ({experiment.plain.n_vocab:,} tokens each), held-out sentences")
        print(f"{'language':<22}{'plain':>9}{'parity':>9}{'tokens':>9}")
        for row in experiment.rows:
            print(f"{languages()[row.code].name + ' (' + row.code + ')':<22}{row.plain.premium:>9.2f}"
                  f"{row.parity.premium:>9.2f}{row.token_change:>+9.0%}")


def command_chat(args: argparse.Namespace) -> None:
    from ..vocabularies.catalogue import chat_prompt, load_encoding
    from ..vocabularies.chat import OPENAI_COUNT_NOTE, messages_from_json, render_prompt

    try:
        document = json.loads(read_text(args.file))
    except json.JSONDecodeError as error:
        raise UserError(f"{'standard input' if args.file == '-' else args.file} is not JSON: {error}") from None
    messages = messages_from_json(document)
    if args.tokenizer:
        tokenizer, template = model_chat(args.tokenizer)
        name = tokenizer.name
        prompt = render_prompt(messages, name, template, tokenizer)
    else:
        name = args.with_
        prompt = chat_prompt(messages, name, load_encoding(name))
    turns = [{"role": message.role, "tokens": prompt.tokens_of(turn), "text_tokens": prompt.tokens_of(turn, ["text"])}
             for turn, message in enumerate(prompt.messages)]
    if args.json:
        print(json.dumps({"encoding": name, "ids": prompt.ids, "tokens": prompt.token_count, "text": prompt.text,
                          "turns": turns, "template_tokens": prompt.template_tokens}, ensure_ascii=False))
        return
    print(prompt.text if prompt.published else OPENAI_COUNT_NOTE)
    print(f"\n{'turn':<4}  {'role':<9}  {'tokens':>6}  {'its text':>8}")
    for number, turn in enumerate(turns, start=1):
        print(f"{number:<4}  {turn['role']:<9}  {turn['tokens']:>6,}  {turn['text_tokens']:>8,}")
    print(f"{prompt.token_count:,} tokens in all, {prompt.template_tokens:,} of them added by {name}'s template "
          f"({prompt.token_count - prompt.template_tokens:,} for the turns' text)")


def command_vocab_health(args: argparse.Namespace) -> None:
    """Unreachable tokens, partial characters and intermediate residues (see `analysis.vocab_health`)."""
    from ..analysis.labels import label_text
    from ..analysis.vocab_health import (
        HEALTH_CORPUS,
        HEALTH_STAGES,
        MAX_RATIO,
        MIN_SEEN,
        health_report,
        vocabulary_health,
    )

    tokenizer = pick_tokenizer(args)
    texts, corpus = ([read_text(args.corpus)], args.corpus) if args.corpus else (None, HEALTH_CORPUS)
    bar = ProgressBar(f"checking {tokenizer.name}", "%", scale=10 * HEALTH_STAGES)
    health = vocabulary_health(tokenizer, texts, progress=bar.show)
    bar.done()
    if args.json:
        print(json.dumps(health_report(tokenizer, health, corpus), ensure_ascii=False))
        return

    def shown(ids) -> str:
        return ", ".join(repr(label_text(tokenizer.token_bytes(token_id))) for token_id in ids)

    print(f"{tokenizer.name}: {health.tokens:,} ordinary tokens")
    print(f"unreachable: {len(health.unreachable):,} (valid UTF-8, but encoding their text gives other tokens)")
    for found in health.unreachable[:EXAMPLES]:
        print(f"  {found.id:>7}  {label_text(tokenizer.token_bytes(found.id))!r} -> {shown(found.becomes)}")
    print(f"not UTF-8 alone: {len(health.partial_characters):,} (parts of characters)")
    if health.partial_characters:
        print(f"  e.g. {shown(health.partial_characters[:EXAMPLES])}")
    if health.residues is None:
        print("intermediate residues: none to find (this tokenizer has no merges)")
        return
    print(f"intermediate residues: {len(health.residues):,} of the {health.tokens_seen:,} tokens made on "
          f"{corpus} (made at least {MIN_SEEN} times, kept fewer than {MAX_RATIO:.0%} of them)")
    for residue in health.residues[:EXAMPLES]:
        print(f"  {residue.id:>7}  {label_text(tokenizer.token_bytes(residue.id))!r}: kept {residue.kept:,}, "
              f"absorbed {residue.absorbed:,}, most often into {label_text(tokenizer.token_bytes(residue.into))!r}")


def command_tiktoken_cache(args: argparse.Namespace) -> None:
    from ..tiktoken_bridge.cache import fill_tiktoken_cache, tiktoken_cache_dir

    default = tiktoken_cache_dir()
    folder = Path(args.dir) if args.dir else default
    try:
        written = fill_tiktoken_cache(folder)
    except OSError as error:
        raise UserError(f"cannot write to {folder}: {error.strerror or error}") from None
    for file_name, path in written.items():
        print(f"{file_name:<22} {path}")
    told = "" if folder == default else f" when TIKTOKEN_CACHE_DIR={folder}"
    print(f"tiktoken reads these instead of downloading them{told}", file=sys.stderr)


def tax_of_declarations(args: argparse.Namespace) -> None:
    """`tax --corpus udhr`: every declaration of the UDHR corpus (see `analysis.atlas`)."""
    from ..analysis.atlas import (
        DECLARATIONS_GINI_COST,
        DEFAULT_BASE,
        atlas_rows,
        counts_for,
        declarations_gini,
        words_per_declaration,
    )
    from ..analysis.tax import row_figures
    from ..analysis.words import HOW_WORDS_ARE_COUNTED
    from ..corpora.udhr import declarations
    from ..vocabularies.catalogue import load_encoding

    base = args.base or DEFAULT_BASE
    if base not in declarations():
        raise UserError(f"unknown base declaration {base!r}; codes are the udhr package's (eng, cmn_hans, deu_1996, ...)")
    if args.parity is not None:
        raise UserError("--parity trains on the parallel passage: use it with --corpus passage")
    tokenizers = {name: load_encoding(name) for name in args.encoding} if args.encoding else every_loadable_encoding()
    counts = {}
    for name, tokenizer in tokenizers.items():
        bar = ProgressBar(f"counting {name}", "declarations")
        counts[name] = counts_for(name, tokenizer, progress=bar.show)
        bar.done()
    rows = atlas_rows(counts, words_per_declaration(), base)
    about = declarations()
    if args.json:
        figures = {name: {} for name in tokenizers}
        for row in rows:
            figures[row.tax.tokenizer][row.code] = {**row_figures(row.tax), "nfc_premium": row.nfc_premium,
                                                    "chars": row.tax.cost.chars}
        report = {"base": base, "corpus": "udhr", "words": HOW_WORDS_ARE_COUNTED,
                  "gini": {name: declarations_gini(counted) for name, counted in counts.items()},
                  "gini_cost": DECLARATIONS_GINI_COST,
                  "declarations": {code: {"name": d.name, "bcp47": d.bcp47, "iso6393": d.iso6393, "script": d.script,
                                          "nfc": d.nfc, "whole": d.whole} for code, d in about.items()},
                  "tokenizers": figures}
        print(json.dumps(report, ensure_ascii=False))
        return
    names = list(tokenizers)
    table = {(row.tax.tokenizer, row.code): row_figures(row.tax) for row in rows}
    print(f"{TAX_MEASURES[args.measure]} per declaration of the UDHR"
          + (f" (tokens_L / tokens_{base}, {about[base].name} = 1.00)" if args.measure == "premium" else ""))
    width = column_width(names)
    print(f"{'code':<18}{'declaration':<32}" + "".join(f"{name:>{width}}" for name in names))
    for code, declaration in about.items():
        cells = (table[name, code][args.measure] for name in names)
        print(f"{code:<18}{declaration.name[:31]:<32}"
              + "".join(f"{cell:>{width}.2f}" if cell is not None else f"{'-':>{width}}" for cell in cells))
    print(f"{'Gini':<50}" + "".join(f"{declarations_gini(counts[name]):>{width}.3f}" for name in names))
    print(f"(Gini: of per-language token cost, {DECLARATIONS_GINI_COST}; 0 is parity)")


def column_width(names: list[str]) -> int:
    """A table's column width: room for its longest name and a gap of two."""
    return max(13, *(len(name) + 2 for name in names))


def every_loadable_encoding() -> dict:
    """OpenAI's encodings and every zoo model whose package is installed; a
    note on standard error names each one left out and its pip command."""
    from ..vocabularies.catalogue import LISTED, load_encoding
    from ..vocabularies.zoo import ModelPackageMissing

    tokenizers = {}
    for name in LISTED:
        try:
            tokenizers[name] = load_encoding(name)
        except ModelPackageMissing as error:
            print(f"note: {error}. It is left out.", file=sys.stderr)
    return tokenizers


def parity_report(experiment) -> dict:
    """The parity experiment's figures per language, for --json."""
    return {
        "n_vocab": {"plain": experiment.plain.n_vocab, "parity": experiment.parity.n_vocab},
        "languages": {
            row.code: {"plain_premium": row.plain.premium, "parity_premium": row.parity.premium,
                       "tax_removed": row.tax_removed, "token_change": row.token_change}
            for row in experiment.rows
        },
    }


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bpe_core",
        description="Train, run and compare byte pair encoding tokenizers (offline).",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    trainer = commands.add_parser(
        "train", help="learn a tokenizer from text files, folders, globs or piece counts (.json)",
        description="Learn a tokenizer. A corpus is read block by block, so it need not fit in memory; "
        "only its piece counts do. Counts saved with --save-counts (or made by any engine that splits "
        "with the same pattern) are JSON {\"piece\": count} files and merge with the rest, in the order given.",
    )
    trainer.add_argument("corpus", nargs="+", metavar="CORPUS",
                         help="UTF-8 text files, folders, glob patterns, piece or word counts as .json, or '-' for stdin")
    size = trainer.add_mutually_exclusive_group(required=True)
    size.add_argument("--vocab-size", type=int, help="256 + number of merges (bytes)")
    size.add_argument("--merges", type=int, help="number of merges to learn")
    trainer.add_argument("--pattern", default="cl100k", help=f"{', '.join(PRESETS)} or a regex (default cl100k)")
    trainer.add_argument("--units", choices=["bytes", "chars"], default="bytes")
    trainer.add_argument("--special", action="append", default=[], metavar="TOKEN", help="a special token (repeatable)")
    trainer.add_argument("--min-count", type=int, default=1, help="stop when the best pair is rarer")
    trainer.add_argument("-o", "--output", required=True, metavar="FILE", help="where to save the tokenizer (JSON)")
    trainer.add_argument("--save-counts", metavar="FILE", help="also save the corpus's piece counts (JSON), to merge or train from")
    trainer.add_argument("--dask", metavar="ADDRESS",
                         help="count the files (paths or fsspec URLs: s3://, gs://, hdfs://, file://) on a Dask cluster: "
                         "a scheduler's address (tcp://10.0.0.5:8786) or local:N for N worker processes here; "
                         "needs requirements-dask.txt")
    trainer.add_argument("--algorithm", choices=["bpe", "wordpiece", "unigram", *RESEARCH_ALGORITHMS], default="bpe",
                         help="bpe (this engine, default); superbpe (tokens across words after --transition), "
                         "boundless (BoundlessBPE's supermerges of whole pretokens) or picky (Picky BPE, removing "
                         "tokens a merge leaves behind), on this engine, from text; or wordpiece / unigram by "
                         "Hugging Face's trainers, saved as a Hugging Face tokenizer.json (they take text and "
                         "--vocab-size; --pattern, --units, --special and the counts options are BPE's)")
    trainer.add_argument("--transition", type=int, metavar="T",
                         help="superbpe: the vocabulary size at which the second stage starts (default 80%% of it)")
    trainer.add_argument("--picky-threshold", type=float, default=0.9, metavar="IOS",
                         help="picky: remove a token when more than this share of its uses went into a merge "
                         "(0 < IOS <= 1; 1 removes nothing; default 0.9)")
    trainer.set_defaults(run=command_train)

    encoder = commands.add_parser("encode", help="text to token ids")
    add_tokenizer_choice(encoder)
    encoder.add_argument("file", nargs="?", default="-", metavar="FILE", help="text to encode (default stdin)")
    encoder.add_argument("--json", action="store_true", help="print a JSON list")
    encoder.add_argument("--allow-special", action="store_true", help="encode <|endoftext|> etc. as special tokens")
    encoder.add_argument("--dropout", type=float, metavar="P",
                         help="BPE-dropout: skip each merge with probability P (0 <= P < 1; 0 is plain encoding)")
    encoder.add_argument("--seed", type=int, default=0, help="the dropout's random seed (default 0)")
    encoder.set_defaults(run=command_encode)

    decoder = commands.add_parser("decode", help="token ids to text")
    add_tokenizer_choice(decoder)
    decoder.add_argument("ids", nargs="*", metavar="ID", help="ids (default: read them from stdin)")
    decoder.set_defaults(run=command_decode)

    comparer = commands.add_parser("compare", help="token counts of one text under several tokenizers")
    comparer.add_argument("file", metavar="FILE", help="text to tokenize ('-' for stdin)")
    comparer.add_argument("--with", dest="with_", action="append", default=[], choices=ENCODING_NAMES, metavar="NAME",
                          help="an encoding (repeatable): %(choices)s")
    comparer.add_argument("--tokenizer", action="append", default=[], metavar="FILE", help=TOKENIZER_FILE_HELP + " (repeatable)")
    add_rank_file_pattern(comparer)
    comparer.add_argument("--json", action="store_true", help="print {tokenizer: token count}")
    comparer.set_defaults(run=command_compare)

    tax = commands.add_parser("tax", help="token premium, fertility and words split per language (parallel corpus "
                              "or the UDHR in 527 languages)")
    tax.add_argument("--corpus", choices=["passage", "udhr"], default="passage",
                     help="the project's 30-language passage (default), or the Universal Declaration of Human Rights "
                     "in 527 languages and variants, keyed by the udhr package's codes")
    tax.add_argument("--encoding", "--with", action="append", choices=ENCODING_NAMES, metavar="NAME",
                     help="an encoding to measure (repeatable; default: OpenAI's and the zoo's)")
    tax.add_argument("--base", metavar="CODE",
                     help="the language premiums are relative to (default en for the passage, eng for udhr)")
    tax.add_argument("--measure", choices=list(TAX_MEASURES), default="premium", help="what the table shows")
    tax.add_argument("--parity", type=int, metavar="MERGES",
                     help="also train plain and parity-aware BPE with this many merges and compare them")
    tax.add_argument("--json", action="store_true",
                     help='print {"base": ..., "tokenizers": {name: {language: {"premium", "fertility", "split_share", '
                     '...}}}} (udhr adds "nfc_premium", and "declarations" with each one\'s name and script)')
    tax.set_defaults(run=command_tax)

    chat = commands.add_parser("chat", help="a conversation as a model's chat prompt: its tokens, per turn",
                               description="Wrap a conversation in a model family's chat template and count its "
                               "tokens: the ids of the prompt that asks for the next assistant turn.")
    chat.add_argument("file", metavar="MESSAGES.json",
                      help='a JSON list of {"role": "system"|"user"|"assistant", "content": "..."} (\'-\' for stdin)')
    family = chat.add_mutually_exclusive_group(required=True)
    family.add_argument("--with", dest="with_", choices=CHAT_NAMES, metavar="NAME",
                        help="the model family's template and tokenizer: %(choices)s")
    family.add_argument("--tokenizer", metavar="PATH",
                        help="a Hugging Face model folder (or a .zip of one, or a model id in the local Hugging Face "
                        "cache): its tokenizer and its own chat template, rendered as transformers renders it")
    chat.add_argument("--json", action="store_true",
                      help='print {"ids": [...], "tokens", "text", "turns": [{"role", "tokens", "text_tokens"}], '
                      '"template_tokens"} (ids and text are null where the maker publishes only a count: '
                      'cl100k_base, o200k_base)')
    chat.set_defaults(run=command_chat)

    health = commands.add_parser(
        "vocab-health", help="tokens no text produces, partial characters and intermediate residues",
        description="A vocabulary's health: unreachable tokens (valid UTF-8, yet encoding their text gives other "
        "tokens; Land & Bartolo 2024), tokens that are only part of a character, and intermediate residues (tokens "
        "the tokenizer's own encoding of the bundled texts makes often but almost never keeps; Sun et al. 2026).",
    )
    add_tokenizer_choice(health)
    health.add_argument("--corpus", metavar="FILE", help="count the residues on this text (- for standard input) "
                        "instead of every text bundled with the app")
    health.add_argument("--json", action="store_true",
                        help='print {"unreachable": [ids], "unreachable_tokens", "partial_characters": [ids], '
                        '"residues": [{"id", "token", "kept", "absorbed", "ratio", "into"}], "residue_rule", ...}')
    health.set_defaults(run=command_vocab_health)


    cache = commands.add_parser(
        "tiktoken-cache", help="fill the real tiktoken's download cache from the bundled files, for offline use",
        description="Write the files tiktoken downloads for OpenAI's encodings (gpt2, r50k_base, p50k_base, "
        "p50k_edit, cl100k_base, o200k_base, o200k_harmony) into its cache folder, named as tiktoken names them and "
        "checked against the SHA-256 it pins: tiktoken.get_encoding then needs no network.",
    )
    cache.add_argument("--dir", metavar="DIR", help="the cache folder (default: tiktoken's own: $TIKTOKEN_CACHE_DIR, "
                       "else $DATA_GYM_CACHE_DIR, else data-gym-cache in the temporary folder)")
    cache.set_defaults(run=command_tiktoken_cache)

    add_stage_commands(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.run(args)
    except OptionError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except (UserError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # the reader stopped early (`| head`): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except KeyboardInterrupt as interrupt:  # Ctrl+C: what it cancelled, if anything
        print(f"error: interrupted{f': {interrupt}' if str(interrupt) else ''}", file=sys.stderr)
        return 130
    return 0
