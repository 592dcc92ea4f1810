"""Training speed and memory: bpe_core against Hugging Face `tokenizers`,
rustbpe and bpeasy (Rust trainers), and the naive trainer.

    python benchmarks/train_speed.py              # 1 MB, 10 MB and 50 MB
    python benchmarks/train_speed.py --quick      # 1 MB and 10 MB

Every contender splits with the GPT-4 (cl100k) pattern and learns the same
vocabulary size from the same file, read from disk in its job; each runs in
a fresh process three times and the median counts. bpe_core reads the file
block by block and counts pieces in one worker process per core, as
`python -m bpe_core train FILE` does; Hugging Face is fed the file through
its own file API (lines, several threads); rustbpe and bpeasy get the lines
from an iterator. Peers that are not installed are left out of the table.

The naive trainer (tests/reference_bpe.py, minbpe's algorithm) would take
hours for 9,744 merges, so it runs its first merges only. Its cost per merge
is proportional to the corpus length in tokens at that step, which the fast
trainer's trace records for every step; the full run's time is estimated as
(seconds per token, measured) x (sum of corpus lengths over all merges).
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import sysconfig
from pathlib import Path

from measure import ROOT, ratio, run_isolated

ENGLISH = ROOT / "sample_corpora" / "tiny_shakespeare.txt"
PATTERN_SETUP = "from bpe_core.patterns import CL100K_PATTERN\n"


def python_source(megabytes: int) -> Path:
    """Real, varied text of the given size: Python source, the standard
    library first, then the installed packages."""
    path = Path(f"/tmp/bpe_benchmark_{megabytes}mb.txt")
    if path.exists() and path.stat().st_size >= megabytes * 1_000_000:
        return path
    roots = [sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"]]
    parts, size = [], 0
    for name in (name for root in roots for name in sorted(glob.glob(root + "/**/*.py", recursive=True))):
        text = Path(name).read_text(encoding="utf-8", errors="replace")
        parts.append(text)
        size += len(text.encode())
        if size >= megabytes * 1_000_000:
            break
    path.write_text("".join(parts)[: megabytes * 1_000_000], encoding="utf-8")
    return path


def ours(path: Path, vocab_size: int) -> dict:
    return run_isolated(
        setup="from pathlib import Path\nfrom bpe_core import train\nfrom bpe_core.corpus_files import count_files",
        job=f"counts = count_files([Path({str(path)!r})], 'cl100k')\n"
        f"tok = train(counts, vocab_size={vocab_size}, pattern='cl100k')\n"
        "result = [s.corpus_tokens for s in tok.trace]",
    )


def hugging_face(path: Path, vocab_size: int) -> dict:
    return run_isolated(
        setup=PATTERN_SETUP + "from tokenizers import Tokenizer, Regex, models, pre_tokenizers, trainers\n"
        "hf = Tokenizer(models.BPE())\n"
        "hf.pre_tokenizer = pre_tokenizers.Sequence([\n"
        "    pre_tokenizers.Split(Regex(CL100K_PATTERN.replace(r'{1,3}+', '{1,3}')), behavior='isolated'),\n"
        "    pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])\n"
        f"trainer = trainers.BpeTrainer(vocab_size={vocab_size}, show_progress=False,\n"
        "    initial_alphabet=pre_tokenizers.ByteLevel.alphabet())",
        job=f"hf.train([{str(path)!r}], trainer)\nresult = hf.get_vocab_size()",
    )


def rustbpe(path: Path, vocab_size: int) -> dict:
    return run_isolated(
        setup=PATTERN_SETUP + "import rustbpe",
        job=f"tok = rustbpe.Tokenizer()\nlines = open({str(path)!r}, encoding='utf-8')\n"
        f"tok.train_from_iterator(lines, {vocab_size}, pattern=CL100K_PATTERN)\nresult = tok.vocab_size",
    )


def bpeasy(path: Path, vocab_size: int) -> dict:
    return run_isolated(
        setup=PATTERN_SETUP + "import bpeasy",
        job=f"lines = open({str(path)!r}, encoding='utf-8')\n"
        f"vocab = bpeasy.train_bpe(lines, CL100K_PATTERN, 128, {vocab_size})\nresult = len(vocab)",
    )


def naive(path: Path, merges: int) -> dict:
    return run_isolated(
        repeats=1,
        setup="from tests.reference_bpe import naive_merges, text_chunks\n"
        f"text = open({str(path)!r}, encoding='utf-8').read()\n"
        "chunks, base = text_chunks(text, 'cl100k')",
        job=f"steps = naive_merges(chunks, len(base), {merges})\n"
        "result = [len(text.encode())] + [s[3] for s in steps]",
    )


PEERS = {"Hugging Face tokenizers": ("tokenizers", hugging_face), "rustbpe": ("rustbpe", rustbpe), "bpeasy": ("bpeasy", bpeasy)}


def row(label: str, path: Path, vocab_size: int) -> dict:
    size = path.stat().st_size / 1e6
    print(f"{label}: {path.name}, {size:.1f} MB, GPT-4 pattern, vocabulary {vocab_size:,}")
    mine = ours(path, vocab_size)
    print(f"   {'bpe_core':<24} {mine['seconds']:7.2f} s   CPU {mine['cpu_seconds']:6.2f} s   "
          f"peak {mine['peak_mb']:5.0f} MB (+ workers {mine['worker_peak_mb']:4.0f} MB each)   "
          f"runs {', '.join(f'{s:.2f}' for s in mine['runs'])}")
    for name, (module, measure) in PEERS.items():
        if importlib.util.find_spec(module) is None:
            continue
        peer = measure(path, vocab_size)
        print(f"   {name:<24} {peer['seconds']:7.2f} s   CPU {peer['cpu_seconds']:6.2f} s   peak {peer['peak_mb']:5.0f} MB"
              f"   -> bpe_core takes {ratio(mine['seconds'], peer['seconds'])} its time, "
              f"{ratio(mine['peak_mb'], peer['peak_mb'])} its peak memory")
    return mine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="leave out the 50 MB row")
    parser.add_argument("--naive-merges", type=int, default=12, help="merges the naive trainer really runs")
    args = parser.parse_args()

    mine = row("1 MB", ENGLISH, 10_000)
    slow = naive(ENGLISH, args.naive_merges)
    lengths = [ENGLISH.stat().st_size] + mine["result"]  # corpus tokens before each merge
    seconds_per_token = slow["seconds"] / sum(slow["result"][: args.naive_merges])
    estimate = seconds_per_token * sum(lengths[: len(mine["result"])])
    print(f"   {'naive (estimated)':<24} {estimate:7.0f} s   -> bpe_core is {estimate / mine['seconds']:,.0f}x faster")
    row("10 MB", python_source(10), 10_000)
    if not args.quick:
        row("50 MB", python_source(50), 32_000)


if __name__ == "__main__":
    main()
