"""Training speed and memory: `python -m bpe_core train` against trainers
written in Rust (rustbpe, gigatoken, bpeasy, Hugging Face `tokenizers`), the
app's worker, and the naive trainer.

    python benchmarks/train_speed.py            # 1 MB and 10 MB, vocabulary 10,000 (about a minute)
    python benchmarks/train_speed.py --large    # and 50 MB, vocabulary 32,000 (a few minutes more)
    python benchmarks/train_speed.py --app-only # 1 MB only: the command line, the app's worker, Hugging Face

Every contender learns the same vocabulary size from the same file, as a
whole process timed from its start to its exit, the way a user waits for
it: the interpreter's start and imports count for all (see `measure`:
time, CPU time of every thread and process, and the peak memory of the
process with its children, all measured alike; three runs in turns, the
median counts). bpe_core is its command line: it reads the file block by
block and counts pieces in C with one thread per core, then learns merges
in C (see bpe_core/engine/native_training.py). rustbpe, bpeasy and Hugging
Face are fed the file line by line from Python, gigatoken reads it itself;
all use every core with threads. All split with the GPT-4 (cl100k)
pattern, but gigatoken, which has GPT-2's only. A peer that is not
installed is left out, with a note (`pip install -r requirements.txt`
installs rustbpe and bpeasy; `pip install gigatoken`).

The 1 MB text is tiny shakespeare (English); 10 MB and 50 MB are Python
source, the standard library first, then the installed packages, so they
differ a little from one machine to the next (the ratios hardly do).

The app's worker trains as the app does for a visitor, in a process with a
memory cap and a deadline; it is timed from the job's start (the server
is up), so it is compared with the command line's figures of before.

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
import json
import sys
import sysconfig
import tempfile
from pathlib import Path

from measure import ROOT, machine_load, ratio, run_in_turns, run_isolated

sys.path.insert(0, str(ROOT))
from bpe_core.engine.patterns import CL100K_PATTERN

ENGLISH = ROOT / "sample_corpora" / "tiny_shakespeare.txt"


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


def bpe_core(path: Path, vocab_size: int, output: Path) -> list[str]:
    return [sys.executable, "-m", "bpe_core", "train", str(path), "--vocab-size", str(vocab_size), "-o", str(output)]


def peer(script: str) -> list[str]:
    """A peer's training as a whole process too: a script that imports only the peer."""
    return [sys.executable, "-c", script]


# Training as the app runs it for a visitor (`budgeted_training`): in a
# worker process with a memory cap and a deadline, once a core is free. Its
# turns are this process's own, so that other programs' jobs on this machine
# do not queue with it. The fork server is up, as in a server that has run a
# job before (or warmed its workers at start).
APP_WORKER_SETUP = (
    "import tempfile\nfrom bpe_core.jobs import budgeted_jobs\nfrom bpe_core.sandbox.machine_turns import MachineTurns\n"
    "from bpe_core.jobs.budgeted_training import Budget, train_within_budget\n"
    "budgeted_jobs.MACHINE_TURNS = MachineTurns(tempfile.mkdtemp(), 2)\n"
    "BUDGET = Budget(seconds=600, memory_bytes=4_000_000_000)\n"
    "train_within_budget('warm up', BUDGET, num_merges=1)\n"
)


def app_worker(path: Path, vocab_size: int, spare: bool) -> tuple[str, str]:
    """bpe_core in the app's bounded worker: with a worker process started
    before the job came (`SpareWorkers`, as the app does now), or started
    when the job came (as it did before)."""
    setup = APP_WORKER_SETUP + (
        "budgeted_jobs.SPARE_WORKERS.prepare()" if spare
        else "budgeted_jobs.SPARE_WORKERS.close()\nbudgeted_jobs.SPARE_WORKERS.prepare = lambda: None"
    )
    job = (f"text = open({str(path)!r}, encoding='utf-8').read()\n"
           f"tok = train_within_budget(text, BUDGET, vocab_size={vocab_size}, pattern='cl100k')\n"
           "result = len(tok.merges)")
    return setup, job


def hugging_face(path: Path, vocab_size: int) -> list[str]:
    return peer(
        "from tokenizers import Tokenizer, Regex, models, pre_tokenizers, trainers\n"
        "hf = Tokenizer(models.BPE())\n"
        "hf.pre_tokenizer = pre_tokenizers.Sequence([\n"
        f"    pre_tokenizers.Split(Regex({CL100K_PATTERN.replace('{1,3}+', '{1,3}')!r}), behavior='isolated'),\n"
        "    pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])\n"
        f"trainer = trainers.BpeTrainer(vocab_size={vocab_size}, show_progress=False,\n"
        "    initial_alphabet=pre_tokenizers.ByteLevel.alphabet())\n"
        f"hf.train_from_iterator(open({str(path)!r}, encoding='utf-8'), trainer)"
    )


def rustbpe(path: Path, vocab_size: int) -> list[str]:
    return peer(
        f"import rustbpe\ntok = rustbpe.Tokenizer()\nlines = open({str(path)!r}, encoding='utf-8')\n"
        f"tok.train_from_iterator(lines, {vocab_size}, pattern={CL100K_PATTERN!r})"
    )


def gigatoken(path: Path, vocab_size: int) -> list[str]:
    return peer(f"import gigatoken\ngigatoken.train_bpe({str(path)!r}, {vocab_size}, [])")


def bpeasy(path: Path, vocab_size: int) -> list[str]:
    return peer(
        f"import bpeasy\nlines = open({str(path)!r}, encoding='utf-8')\n"
        f"bpeasy.train_bpe(lines, {CL100K_PATTERN!r}, 128, {vocab_size})"
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


PEERS = {
    "rustbpe": ("rustbpe", rustbpe),
    "gigatoken (GPT-2 split)": ("gigatoken", gigatoken),
    "bpeasy": ("bpeasy", bpeasy),
    "Hugging Face tokenizers": ("tokenizers", hugging_face),
}


def figures(name: str, run: dict) -> str:
    return (f"   {name:<26} {run['seconds']:6.2f} s   CPU {run['cpu_seconds']:6.2f} s   peak {run['peak_mb']:5.0f} MB"
            f"   (runs {', '.join(f'{seconds:.2f}' for seconds in run['runs'])} s)")


def row(label: str, path: Path, vocab_size: int, app: bool = False, peers: dict = PEERS) -> dict:
    """Train with every contender, taking turns (see `measure.run_in_turns`);
    with `app`, bpe_core in the app's bounded worker too. Returns bpe_core's
    run, with its trace's corpus lengths as "result", and each peer's
    ratios under "ratios": bpe_core's time and peak memory over the peer's."""
    print(f"machine: {machine_load()}")
    print(f"train, {label}: {path.name}, {path.stat().st_size / 1e6:.1f} MB, GPT-4 pattern, vocabulary {vocab_size:,}")
    output = Path(tempfile.mkdtemp()) / "tokenizer.json"
    jobs: dict = {"bpe_core": bpe_core(path, vocab_size, output)}
    if app:
        jobs["app worker, started before"] = app_worker(path, vocab_size, spare=True)
        jobs["app worker, started then"] = app_worker(path, vocab_size, spare=False)
    for name, (module, command) in peers.items():
        if importlib.util.find_spec(module) is None:
            print(f"   {name:<26} not installed: left out")
        else:
            jobs[name] = command(path, vocab_size)
    runs = run_in_turns(jobs)
    ours = runs.pop("bpe_core")
    ours["result"] = json.loads(output.read_text(encoding="utf-8"))["training"]["corpus_tokens"]
    print(figures("bpe_core (command line)", ours))
    for name in [name for name in runs if name.startswith("app worker")]:
        print(figures(name, runs.pop(name)))
    ours["ratios"] = {}
    for name, run in runs.items():
        ours["ratios"][name] = (ours["seconds"] / run["seconds"], ours["peak_mb"] / run["peak_mb"])
        print(figures(name, run))
        print(f"   {'':<26} -> bpe_core takes {ratio(ours['seconds'], run['seconds'])} its time "
              f"({ratio(ours['cpu_seconds'], run['cpu_seconds'])} its CPU time), "
              f"{ratio(ours['peak_mb'], run['peak_mb'])} its peak memory")
    return ours


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", action="store_true", help="add the 50 MB row (vocabulary 32,000)")
    parser.add_argument("--naive-merges", type=int, default=12, help="merges the naive trainer really runs")
    parser.add_argument("--app-only", action="store_true", help="the 1 MB row only, with Hugging Face as the peer")
    args = parser.parse_args()
    print(f"machine: {machine_load()}")
    if args.app_only:
        row("1 MB", ENGLISH, 10_000, app=True, peers={"Hugging Face tokenizers": PEERS["Hugging Face tokenizers"]})
        print(f"machine: {machine_load()}")
        return

    rows = {"1 MB": row("1 MB", ENGLISH, 10_000, app=True)}
    ours = rows["1 MB"]
    slow = naive(ENGLISH, args.naive_merges)
    lengths = [ENGLISH.stat().st_size] + ours["result"]  # corpus tokens before each merge
    seconds_per_token = slow["seconds"] / sum(slow["result"][: args.naive_merges])
    estimate = seconds_per_token * sum(lengths[: len(ours["result"])])
    print(f"   {'naive (estimated)':<26} {estimate:6.0f} s   -> bpe_core is {estimate / ours['seconds']:,.0f}x faster")
    rows["10 MB"] = row("10 MB", python_source(10), 10_000)
    if args.large:
        rows["50 MB"] = row("50 MB", python_source(50), 32_000)
    print(f"machine: {machine_load()}")
    print("\nbpe_core's time and peak memory over each peer's (below 1.00x: bpe_core's is lower), same run")
    for name in PEERS:
        cells = [f"{size}: {run['ratios'][name][0]:.2f}x time, {run['ratios'][name][1]:.2f}x memory"
                 for size, run in rows.items() if name in run["ratios"]]
        if cells:
            print(f"   {name:<26} " + "   ".join(cells))


if __name__ == "__main__":
    main()
