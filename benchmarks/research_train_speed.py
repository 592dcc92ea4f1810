"""Training speed of the research algorithms (SuperBPE, BoundlessBPE, Picky
BPE) against plain BPE, on this engine, in the same run.

    python benchmarks/research_train_speed.py           # 1 MB and 10 MB, vocabulary 10,000 (a few minutes)

Each learns a vocabulary of 10,000 with the GPT-4 (cl100k) split, from
tiny shakespeare (1 MB, English) and from 10 MB of Python source (as
benchmarks/train_speed.py makes it), in a fresh process, three times in
turns (see `measure`); the median counts. The target (issue 31): each
within 3x plain BPE's time, at both sizes. Read the CPU time columns on a
busy machine: the wall times wait for the processor there. All four train in C where pip built the extensions
(plain BPE in engine/native/learn.c, the three in research.c on its merge
state); plain BPE is also timed without them at 1 MB ("BPE, Python": as where pip
found no C compiler, the speed every algorithm falls back to). SuperBPE's
transition is 8,000 (80%); Picky BPE's threshold 0.9. Also printed: each
one's tokens on held-out English (Alice in Wonderland,
sample_corpora/english_prose.txt) against plain BPE's.
"""

from __future__ import annotations

import sys
from pathlib import Path

from measure import ROOT, machine_load, ratio, run_in_turns
from train_speed import python_source

sys.path.insert(0, str(ROOT))

ENGLISH = ROOT / "sample_corpora" / "tiny_shakespeare.txt"
HELD_OUT = ROOT / "sample_corpora" / "english_prose.txt"
VOCAB_SIZE = 10_000

SETUP = (
    "from pathlib import Path\n"
    "from bpe_core import train\n"
    "from bpe_core.algorithms.boundless import train_boundless\n"
    "from bpe_core.algorithms.picky import train_picky\n"
    "from bpe_core.algorithms.superbpe import train_superbpe\n"
)
TRAINERS = {
    "BPE": "train(text, vocab_size={size})",
    "BPE, Python": "train(text, vocab_size={size})",
    "SuperBPE": "train_superbpe(text, vocab_size={size}, transition={size} * 4 // 5)",
    "BoundlessBPE": "train_boundless(text, vocab_size={size})",
    "Picky BPE": "train_picky(text, vocab_size={size}, threshold=0.9)",
}


def job(trainer: str, corpus: Path = ENGLISH) -> str:
    """Read the file and train; the result is the vocabulary's size."""
    return (
        f"text = Path({str(corpus)!r}).read_text(encoding='utf-8')\n"
        f"tokenizer = {trainer.format(size=VOCAB_SIZE)}\n"
        "result = len(tokenizer.vocab)"
    )


def held_out_tokens(trainer: str) -> int:
    """The tokens of the held-out text, trained once more here (untimed)."""
    scope: dict = {}
    exec(SETUP + job(trainer), scope)  # noqa: S102  (this file's own code)
    return len(scope["tokenizer"].encode(HELD_OUT.read_text(encoding="utf-8")))


# "BPE, Python": plain BPE as where pip found no C compiler (the extensions
# missing): counting and merge learning in Python, on the merge state the
# research algorithms fall back to; the same merges as "BPE".
WITHOUT_C = (
    "import sys\n"
    "sys.modules['bpe_core.engine._native_training'] = None  # as if not built\n"
    "sys.modules['bpe_core.algorithms._native_research'] = None\n"
)


def large_row() -> None:
    """The same at 10 MB (Python source), plain BPE in C as the peer."""
    corpus = python_source(10)
    runs = run_in_turns({name: (SETUP, job(trainer, corpus)) for name, trainer in TRAINERS.items() if name != "BPE, Python"})
    plain = runs["BPE"]
    print(f"10 MB (Python source), vocabulary {VOCAB_SIZE:,}, cl100k split")
    print(f"   {'algorithm':<14} {'time':>8} {'vs BPE':>8} {'CPU time':>9} {'vs BPE':>8} {'vocabulary':>11}")
    for name, run in runs.items():
        print(f"   {name:<14} {run['seconds']:7.2f}s {ratio(run['seconds'], plain['seconds']):>8} {run['cpu_seconds']:8.2f}s "
              f"{ratio(run['cpu_seconds'], plain['cpu_seconds']):>8} {run['result']:>11,}")


def main() -> None:
    print(f"machine: {machine_load()}")
    runs = run_in_turns({name: ((WITHOUT_C if name == "BPE, Python" else "") + SETUP, job(trainer))
                         for name, trainer in TRAINERS.items()})
    tokens = {name: held_out_tokens(trainer) for name, trainer in TRAINERS.items() if name != "BPE, Python"}
    tokens["BPE, Python"] = tokens["BPE"]  # the same merges
    plain, python = runs["BPE"], runs["BPE, Python"]
    print(f"1 MB (tiny shakespeare), vocabulary {VOCAB_SIZE:,}, cl100k split; held-out: Alice ({HELD_OUT.stat().st_size:,} bytes)")
    print(f"   {'algorithm':<14} {'time':>8} {'vs BPE':>8} {'vs Python':>9} {'CPU time':>9} {'vs BPE':>8} "
          f"{'vs Python':>9} {'vocabulary':>11}   {'held-out tokens':>15} {'vs BPE':>8}")
    for name, run in runs.items():
        print(f"   {name:<14} {run['seconds']:7.2f}s {ratio(run['seconds'], plain['seconds']):>8} "
              f"{ratio(run['seconds'], python['seconds']):>9} {run['cpu_seconds']:8.2f}s "
              f"{ratio(run['cpu_seconds'], plain['cpu_seconds']):>8} {ratio(run['cpu_seconds'], python['cpu_seconds']):>9} "
              f"{run['result']:>11,}   {tokens[name]:>15,} {tokens[name] / tokens['BPE'] - 1:>+8.1%}")
    print(f"machine: {machine_load()}")
    large_row()
    print(f"machine: {machine_load()}")


if __name__ == "__main__":
    main()
