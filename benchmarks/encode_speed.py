"""Encoding speed: bpe_core against tiktoken, cold (a fresh process, nothing cached).

    python benchmarks/encode_speed.py              # about a minute
    python benchmarks/encode_speed.py --custom     # only the custom split pattern's rows
    python benchmarks/encode_speed.py --custom --repeats 9   # the same, steadier on a busy machine
    python benchmarks/encode_speed.py --peers      # the fastest encoders side by side, a few minutes

Every figure is a first encode in a fresh process, the median of three
(see `measure`); loading the vocabulary comes before the clock starts, for
both. Rows:

- the bundled gpt2, cl100k_base and o200k_base against tiktoken with the
  same ranks: new words in 8 scripts (the parallel corpus, 150 K
  characters), long pieces without spaces (30 K "a", 20 K CJK characters,
  30 K digits), 1 MB of "a" and 1 MB of CJK;
- offsets for colouring (`encode_with_offsets`) on the 8 scripts, read as
  the token view reads them and all of them, against tiktoken's plain encode;
- tokenizers trained here (on tiny shakespeare, vocabulary 10,000), every
  preset pattern and a custom one, against their own tiktoken export, on the
  8 scripts and the long pieces; the character-level variant, which
  tiktoken cannot load, against the export of its byte-level twin. A custom
  pattern splits under a deadline (see `bpe_core.sandbox.untrusted_split`): the
  same tokenizer with a capturing group in its pattern, which the split's
  loop turns away, shows what one guarded match per piece costs;
- `encode_at_step` (the vocabulary half-way through training) on 100 KB,
  against a plain encode;
- tiktoken's interface (`import bpe_core as tiktoken`): `get_encoding`
  against tiktoken's `Encoding` built from the same bundled ranks, and
  `encode_batch` of the 8 scripts' 2,000 lines.

With --peers, the issue's way (issue 34): 1 MB of documentation new to
every contender (the standard library's docstrings, read from its sources
in path order), one thread, the best of five fresh processes (each engine
first encodes one sentence, untimed, so that what it builds on first use
is not counted), every ratio
against tiktoken measured in the same run: `encode_ordinary` and `encode`
with every special token allowed, for cl100k_base, o200k_base and a
tokenizer trained here (vocabulary 10,000, GPT-4's split); then the same
megabyte in 1,000 documents through `encode_ordinary_batch`, which uses
every core. The peers: gigatoken, quicktok (quicktok-v1), bpe-openai and
Hugging Face tokenizers (over this engine's export of the vocabulary); one
that is not installed, or that refuses the text, is skipped and says so.
Each row also says whether its ids are tiktoken's.

Targets (issue 13): within 2x of tiktoken (never above 3x); encode_at_step
within 3x of a plain encode. Issue 34: at most 0.5x tiktoken's time, same
ids, with --peers.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

from measure import ROOT, machine_load, ratio, run_in_turns

PARALLEL = ROOT / "sample_corpora" / "parallel"
SCRIPTS = ["en", "ru", "hi", "ar", "th", "ja", "zh", "ko"]  # Latin, Cyrillic, Devanagari, Arabic, Thai, CJK, Hangul
CUSTOM = r"\p{L}+|\p{N}+|\s+|[^\s\p{L}\p{N}]+"
CUSTOM_WITH_A_GROUP = r"(\p{L}+)|\p{N}+|\s+|[^\s\p{L}\p{N}]+"  # the same pieces

TEXTS = {
    "8 scripts, 150 K chars": f"""
import itertools
parts = [open({str(PARALLEL)!r} + '/' + code + '.txt', encoding='utf-8').read() for code in {SCRIPTS!r}]
text = ''.join(itertools.islice(itertools.cycle('\\n'.join(parts)), 150_000))""",
    "30 K a, 20 K CJK, 30 K digits": "text = 'a' * 30_000 + ' ' + '漢字' * 10_000 + ' ' + '7' * 30_000",
    "1 MB of 'a'": "text = 'a' * 1_000_000",
    "1 MB of CJK": "text = '漢字仮名交じり文' * (1_000_000 // 24)",
}
NEW_WORDS, LONG_PIECES = list(TEXTS)[:2]


def offset_jobs(setup: str) -> dict[str, tuple[str, str]]:
    """Offsets for colouring, read as the token view reads them (the spans
    of the first 6,000 tokens) and as Compare does (all: the last span
    needs every offset before it)."""
    return {
        "offsets, as the token view reads them": (setup, "tok.encode_with_offsets(text)[:6_000]"),
        "offsets, every one": (setup, "[tok.encode_with_offsets(text)[-1]]"),
    }


def cold(contenders: dict[str, tuple[str, str]], repeats: int = 3) -> dict[str, dict]:
    """First encodes, in fresh processes taking turns, the median of
    `repeats` each: name -> (setup, call)."""
    return run_in_turns({name: (setup, f"result = len({call})") for name, (setup, call) in contenders.items()}, repeats)


def report(label: str, ours: dict, peer: dict, peer_name: str) -> None:
    """One row: both times, and their ratio by the clock and by CPU time (on
    a busy machine the clock is the noisier of the two)."""
    print(f"  {label:<40} bpe_core {ours['seconds']:7.3f} s (CPU {ours['cpu_seconds']:6.3f})   "
          f"{peer_name} {peer['seconds']:7.3f} s (CPU {peer['cpu_seconds']:6.3f})   "
          f"-> {ratio(ours['seconds'], peer['seconds'])} (CPU {ratio(ours['cpu_seconds'], peer['cpu_seconds'])})")


def rows(ours_setup: str, peer_setup: str, labels: list[str], repeats: int = 3) -> None:
    """Encode each text with `tok` (ours) and `enc` (tiktoken); on the new
    words, offsets too."""
    for label in labels:
        text = TEXTS[label]
        runs = cold({"tiktoken": (peer_setup + text, "enc.encode_ordinary(text)"),
                     "plain": (ours_setup + text, "tok.encode_ordinary(text)"),
                     **(offset_jobs(ours_setup + text) if label == NEW_WORDS else {})}, repeats)
        report(label, runs["plain"], runs["tiktoken"], "tiktoken")
        for name in offset_jobs(""):
            if name in runs:
                report(f"  {name}", runs[name], runs["tiktoken"], "tiktoken")


def bundled(name: str) -> None:
    print(f"{name} vs tiktoken, same ranks")
    rows(f"from bpe_core import load_encoding\ntok = load_encoding({name!r})\n",
         f"from bpe_core import tiktoken_encoding\nenc = tiktoken_encoding({name!r})\n", list(TEXTS))


def trained_tokenizers(folder: Path, only_custom: bool = False) -> dict[str, Path]:
    """Tokenizers trained on tiny shakespeare, saved for the fresh processes
    to load; with `only_custom`, the custom pattern's."""
    sys.path.insert(0, str(ROOT))
    from bpe_core import save_tokenizer, train

    corpus = (ROOT / "sample_corpora" / "tiny_shakespeare.txt").read_text(encoding="utf-8")
    kinds = {
        **{f"bytes, {pattern}": (pattern, "bytes") for pattern in ("gpt2", "cl100k", "o200k", "none")},
        "bytes, custom pattern": (CUSTOM, "bytes"),
        "chars, cl100k": ("cl100k", "chars"),
        "chars, custom pattern": (CUSTOM, "chars"),
    }
    if only_custom:
        kinds = {kind: settings for kind, settings in kinds.items() if "custom" in kind}
    saved = {}
    for kind, (pattern, units) in kinds.items():
        text = corpus if pattern != "none" else corpus[:200_000]  # one piece: merges visit every position
        saved[kind] = folder / f"{len(saved)}.json"
        save_tokenizer(train(text, vocab_size=10_000, pattern=pattern, units=units), saved[kind])
    grouped = json.loads(saved["bytes, custom pattern"].read_text(encoding="utf-8"))
    grouped["pattern"] = CUSTOM_WITH_A_GROUP
    saved["bytes, custom pattern with a group"] = folder / "grouped.json"
    saved["bytes, custom pattern with a group"].write_text(json.dumps(grouped), encoding="utf-8")
    return saved


def all_trained(saved: dict[str, Path], repeats: int = 3) -> None:
    """Each tokenizer trained here against its tiktoken export; a
    character-level one, which tiktoken cannot load, against its byte-level
    twin's."""
    for kind, path in saved.items():
        trained(kind, path, saved[kind.replace("chars,", "bytes,")], repeats)


def trained(kind: str, path: Path, twin: Path, repeats: int = 3) -> None:
    print(f"trained here ({kind}, vocabulary 10,000)" + (", vs its byte-level twin in tiktoken" if "chars" in kind else
                                                          ", vs its tiktoken export"))
    rows(f"from bpe_core import load_tokenizer\ntok = load_tokenizer({str(path)!r})\n",
         f"from bpe_core import load_tokenizer\nfrom bpe_core.formats import to_tiktoken\n"
         f"enc = to_tiktoken(load_tokenizer({str(twin)!r}))\n", [NEW_WORDS, LONG_PIECES], repeats)


def at_step(kind: str, path: Path) -> None:
    setup = (f"from bpe_core import load_tokenizer\ntok = load_tokenizer({str(path)!r})\n"
             f"text = open({str(ROOT / 'sample_corpora' / 'tiny_shakespeare.txt')!r}, encoding='utf-8').read()[:100_000]\n")
    runs = cold({"at step": (setup, "tok.encode_at_step(text, len(tok.merges) // 2)"), "plain": (setup, "tok.encode_ordinary(text)")})
    ours, plain = runs["at step"], runs["plain"]
    print(f"  {kind:<40} encode_at_step {ours['seconds']:7.3f} s (CPU {ours['cpu_seconds']:6.3f})   "
          f"plain encode {plain['seconds']:7.3f} s (CPU {plain['cpu_seconds']:6.3f})   -> {ratio(ours['seconds'], plain['seconds'])}")


def interface(name: str) -> None:
    """Loading by name, and batches, as tiktoken's interface does them."""
    ranks = f"from bpe_core.vocabularies.openai import ENCODINGS, load_ranks\nranks = load_ranks({name!r})\nspec = ENCODINGS[{name!r}]\n"
    runs = cold({
        "get_encoding": (ranks + "import bpe_core", f"[bpe_core.get_encoding({name!r})]"),
        "tiktoken": (ranks + "import tiktoken",
                     f"[tiktoken.Encoding({name!r}, pat_str=spec.pattern, mergeable_ranks=ranks, "
                     "special_tokens=spec.special_tokens, explicit_n_vocab=spec.explicit_n_vocab)]"),
    })
    report(f"{name}: get_encoding", runs["get_encoding"], runs["tiktoken"], "tiktoken.Encoding")
    lines = f"lines = [line for code in {SCRIPTS!r} for line in open({str(PARALLEL)!r} + '/' + code + '.txt', encoding='utf-8')] * 8\n"
    runs = cold({
        "ours": (lines + f"import bpe_core\ntok = bpe_core.get_encoding({name!r})", "tok.encode_batch(lines)"),
        "tiktoken": (lines + f"from bpe_core import tiktoken_encoding\nenc = tiktoken_encoding({name!r})", "enc.encode_batch(lines)"),
    })
    report(f"{name}: encode_batch, 8 scripts' lines x 8", runs["ours"], runs["tiktoken"], "tiktoken")


# ------------------------------------------------- the fastest, side by side

def documentation(limit: int = 1_000_000) -> str:
    """1 MB of documentation that no contender has seen: the standard
    library's docstrings, read from its sources (nothing imported) in path
    order, so the same megabyte on every run of one Python."""
    import ast
    import sysconfig

    root, parts, size = Path(sysconfig.get_paths()["stdlib"]), [], 0
    for path in sorted(root.rglob("*.py")):
        if {"site-packages", "test", "tests"} & set(path.parts):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node, clean=False)
                if doc:
                    parts.append(doc)
                    size += len(doc) + 2
                    if size >= limit:
                        return "\n\n".join(parts)[:limit]
    return "\n\n".join(parts)[:limit]


CALLS = {  # what each contender calls for encode_ordinary, encode with specials, and batches
    "ordinary": "enc.encode_ordinary(text)",
    "specials": "enc.encode(text, allowed_special='all')",
    "batch": "enc.encode_ordinary_batch(documents)",
}
BATCH = "documents = [text[i:i + 1_000] for i in range(0, len(text), 1_000)]\n"
PEER_PACKAGES = {"gigatoken": "gigatoken", "quicktok": "quicktok", "bpe-openai": "bpe_openai",
                 "Hugging Face tokenizers": "tokenizers"}


def peer_setups(name: str, folder: Path, trained: Path | None) -> dict[str, str | None]:
    """contender -> setup code that makes `enc` (tiktoken's interface) for
    `name` (an OpenAI encoding, or "trained" for the tokenizer in
    `trained`), or None where the peer cannot load it."""
    if trained is not None:
        load = f"from bpe_core import load_tokenizer\ntok = load_tokenizer({str(trained)!r})\n"
        setups = {
            "tiktoken": load + "import tiktoken\nenc = tiktoken.Encoding('trained', pat_str=tok.pattern, "
                               "mergeable_ranks=dict(tok.mergeable_ranks), special_tokens=tok.special_tokens)\n",
            "bpe_core": load + "enc = tok\n",
        }
        tiktoken_file = folder / "trained.tiktoken"
        pretokenizer = "gpt4"
    else:
        setups = {
            "tiktoken": f"from bpe_core import tiktoken_encoding\nenc = tiktoken_encoding({name!r})\n",
            "bpe_core": f"from bpe_core import load_encoding\nenc = load_encoding({name!r})\n",
        }
        tiktoken_file = folder / f"{name}.tiktoken"
        pretokenizer = None
    setups["gigatoken"] = (
        f"import gigatoken\nenc = gigatoken.Tokenizer.from_tiktoken({str(tiktoken_file)!r}, pretokenizer={pretokenizer!r}, "
        f"special_tokens={{'<|endoftext|>': {_endoftext(name, trained)}}}).as_tiktoken()\n")
    setups["quicktok"] = (f"import quicktok\nq = quicktok.get_encoding({name!r})\n"
                          "class enc:\n    encode_ordinary = staticmethod(q.encode_ordinary)\n"
                          "    encode = staticmethod(lambda text, allowed_special: q.encode_with_special(text))\n"
                          "    encode_ordinary_batch = staticmethod(lambda documents: q.encode_batch(documents, 0, False)[0].tolist())\n"
                          ) if name in ("cl100k_base", "o200k_base") else None
    setups["bpe-openai"] = (f"import bpe_openai\nenc = bpe_openai.get_encoding({name!r})\n"
                            if name in ("cl100k_base", "o200k_base") else None)
    hf_file = folder / f"{name}.hf.json"
    setups["Hugging Face tokenizers"] = (
        f"import tokenizers\nhf = tokenizers.Tokenizer.from_file({str(hf_file)!r})\n"
        "class enc:\n    encode_ordinary = staticmethod(lambda text: hf.encode(text, add_special_tokens=False).ids)\n"
        "    encode = staticmethod(lambda text, allowed_special: hf.encode(text, add_special_tokens=False).ids)\n"
        "    encode_ordinary_batch = staticmethod(lambda documents: [e.ids for e in hf.encode_batch(documents, "
        "add_special_tokens=False)])\n")
    return setups


def _endoftext(name: str, trained: Path | None) -> int:
    sys.path.insert(0, str(ROOT))
    from bpe_core import load_encoding, load_tokenizer

    return (load_tokenizer(trained) if trained is not None else load_encoding(name)).special_tokens["<|endoftext|>"]


def write_peer_files(folder: Path, trained: Path) -> None:
    """The rank files the peers read (gigatoken: .tiktoken; Hugging Face:
    tokenizer.json, exported by this engine), for the OpenAI encodings and
    the tokenizer trained here."""
    sys.path.insert(0, str(ROOT))
    from bpe_core import load_encoding, load_tokenizer
    from bpe_core.formats import tiktoken_file_text
    from bpe_core.formats.hf_json import hf_tokenizer_json
    from bpe_core.vocabularies.bundled_files import BUNDLED_DIR

    for name in ("cl100k_base", "o200k_base"):
        (folder / f"{name}.tiktoken").write_bytes(gzip.decompress((BUNDLED_DIR / f"{name}.tiktoken.gz").read_bytes()))
    tokenizers = {"cl100k_base": load_encoding("cl100k_base"), "o200k_base": load_encoding("o200k_base"),
                  "trained": load_tokenizer(trained)}
    (folder / "trained.tiktoken").write_text(tiktoken_file_text(tokenizers["trained"]), encoding="utf-8")
    if importlib.util.find_spec("tokenizers"):
        for name, tokenizer in tokenizers.items():
            (folder / f"{name}.hf.json").write_text(hf_tokenizer_json(tokenizer), encoding="utf-8")


def peers(repeats: int = 5) -> None:
    print(f"machine: {machine_load()}")
    missing = [peer for peer, module in PEER_PACKAGES.items() if importlib.util.find_spec(module) is None]
    for peer in missing:
        print(f"  {peer}: not installed, skipped")
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        sys.path.insert(0, str(ROOT))
        from bpe_core import save_tokenizer, train

        corpus = (ROOT / "sample_corpora" / "tiny_shakespeare.txt").read_text(encoding="utf-8")
        trained = folder / "trained.json"
        save_tokenizer(train(corpus, vocab_size=10_000, pattern="cl100k", special_tokens=["<|endoftext|>"]), trained)
        write_peer_files(folder, trained)
        (folder / "documentation.txt").write_text(documentation(), encoding="utf-8")
        for name in ("cl100k_base", "o200k_base", "trained"):
            setups = peer_setups(name, folder, trained if name == "trained" else None)
            for call_name, call in CALLS.items():
                read = f"text = open({str(folder / 'documentation.txt')!r}, encoding='utf-8').read()\n"
                warm = "enc.encode_ordinary('A few words, so that an engine builds what it builds on first use.')\n"
                flat = "result = ids if isinstance(ids[0], int) else [i for d in ids for i in d]"  # batches: one list
                jobs = {peer: (read + BATCH + setup + warm, f"ids = {call}\n{flat}")
                        for peer, setup in setups.items() if setup is not None and peer not in missing}
                print(f"{name}, {call_name} ({call}), 1 MB of documentation, best of {repeats} fresh processes")
                results = {}
                for peer, job in jobs.items():
                    try:
                        results[peer] = run_in_turns({peer: job}, repeats)[peer]
                    except RuntimeError as error:
                        print(f"  {peer:<24} refused: {str(error).strip().splitlines()[-1][:100]}")
                base = min(results["tiktoken"]["runs"])
                for peer, run in results.items():
                    best = min(run["runs"])
                    same = "same ids" if run["result"] == results["tiktoken"]["result"] else "DIFFERENT ids"
                    print(f"  {peer:<24} {best * 1000:8.1f} ms  {ratio(best, base)}  {same}")
        print(f"machine: {machine_load()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interface", action="store_true", help="only tiktoken's interface: loading by name, batches")
    parser.add_argument("--custom", action="store_true", help="only the tokenizers trained with a custom split pattern")
    parser.add_argument("--repeats", type=int, default=3, help="with --custom: fresh processes per figure (their median)")
    parser.add_argument("--peers", action="store_true", help="1 MB of documentation: bpe_core, tiktoken and the fastest peers")
    args = parser.parse_args()
    if args.peers:
        peers()
        return
    print(f"machine: {machine_load()}")
    if args.custom:
        with tempfile.TemporaryDirectory() as folder:
            all_trained(trained_tokenizers(Path(folder), only_custom=True), args.repeats)
        print(f"machine: {machine_load()}")
        return
    print("tiktoken's interface")
    for name in ("cl100k_base", "o200k_base"):
        interface(name)
    if args.interface:
        return
    for name in ("gpt2", "cl100k_base", "o200k_base"):
        bundled(name)
    with tempfile.TemporaryDirectory() as folder:
        saved = trained_tokenizers(Path(folder))
        all_trained(saved)
        print("encode_at_step half-way through training, 100 KB of tiny shakespeare, vs a plain encode")
        for kind in ("bytes, cl100k", "bytes, custom pattern", "chars, cl100k"):
            at_step(kind, saved[kind])
    print(f"machine: {machine_load()}")


if __name__ == "__main__":
    main()
