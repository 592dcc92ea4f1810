"""Counting on a Dask cluster against the single-process command line:
`python -m bpe_core train FOLDER --dask local:2` and without `--dask`.

    python benchmarks/dask_counting.py             # 1 GB in 200 files of 5 MB (a few minutes)
    python benchmarks/dask_counting.py --gb 0.2 --repeats 3

The corpus is made as `corpus_memory.py` makes its own: the 50 MB of Python
source of train_speed.py, here cut into ten 5 MB files, each linked under
as many names as make the size asked for (no disk space). Both commands
train the same vocabulary from it on the same cores: the single-process
command line with one helper process per other core, the Dask run with a
local cluster of two worker processes (and its scheduler in the command's
process). The script prints each one's time, the peak resident memory of
the command's own process (the client, for Dask) and of its whole process
tree (see `measure`), and whether both learned the same merges.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from measure import ROOT, SAMPLE_SECONDS, machine_load, process_rss_mb, ratio, tree_rss_mb
from train_speed import python_source

FILE_MB = 5


def make_corpus(folder: Path, gb: float) -> int:
    """Files of FILE_MB each, ten distinct texts linked over and over; returns the bytes in all."""
    text = python_source(50).read_text(encoding="utf-8")
    files = max(1, round(gb * 1e3 / FILE_MB))
    distinct = []
    for index in range(min(10, files)):
        path = folder / f"distinct{index}"
        path.write_text(text[index * FILE_MB * 1_000_000 : (index + 1) * FILE_MB * 1_000_000], encoding="utf-8")
        distinct.append(path)
    (folder / "corpus").mkdir()
    for index in range(files):
        os.link(distinct[index % len(distinct)], folder / "corpus" / f"part{index:04d}.txt")
    return sum(path.stat().st_size for path in (folder / "corpus").iterdir())


def run(command: list[str]) -> dict:
    """Time one command; sample its own resident memory and its process tree's."""
    start, own, tree = time.perf_counter(), 0.0, 0.0
    child = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    while child.poll() is None:
        own, tree = max(own, process_rss_mb(child.pid)), max(tree, tree_rss_mb(child.pid))
        time.sleep(SAMPLE_SECONDS)
    seconds = time.perf_counter() - start
    if child.returncode != 0:
        raise RuntimeError(child.stderr.read())
    return {"seconds": seconds, "own_mb": own, "tree_mb": tree}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gb", type=float, default=1.0, help="corpus size")
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the local cluster")
    parser.add_argument("--vocab-size", type=int, default=32_000)
    parser.add_argument("--repeats", type=int, default=1, help="runs of each, taking turns (the median is shown)")
    args = parser.parse_args()
    print(f"machine: {machine_load()}")
    with tempfile.TemporaryDirectory(dir=python_source(50).parent) as temporary:  # links need the same file system
        folder = Path(temporary)
        size = make_corpus(folder, args.gb)
        files = len(list((folder / "corpus").iterdir()))
        print(f"corpus: {files} files, {size / 1e9:.2f} GB; vocabulary {args.vocab_size:,}")
        contenders = {
            "single process": [],
            f"--dask local:{args.workers}": ["--dask", f"local:{args.workers}"],
        }
        runs: dict[str, list[dict]] = {name: [] for name in contenders}
        for _ in range(args.repeats):
            for name, options in contenders.items():
                output = folder / f"{len(runs[name])}-{name.replace(' ', '_')}.json"
                command = [sys.executable, "-m", "bpe_core", "train", str(folder / "corpus"),
                           "--vocab-size", str(args.vocab_size), "-o", str(output), *options]
                runs[name].append(run(command) | {"merges": json.loads(output.read_text())["merges"]})
    medians = {name: sorted(name_runs, key=lambda run: run["seconds"])[len(name_runs) // 2] for name, name_runs in runs.items()}
    for name, median in medians.items():
        times = ", ".join(f"{run['seconds']:.1f}" for run in runs[name])
        print(f"{name:>16}: {median['seconds']:.1f} s (runs: {times}); "
              f"peak memory of the command's process {median['own_mb']:.0f} MB, of its process tree {median['tree_mb']:.0f} MB")
    single, dask = medians.values()
    print(f"Dask / single process: {ratio(dask['seconds'], single['seconds'])} time, "
          f"{ratio(dask['own_mb'], single['own_mb'])} memory of the command's process")
    print(f"same merges: {'yes' if all(run['merges'] == single['merges'] for name_runs in runs.values() for run in name_runs) else 'NO'}")
    print(f"machine: {machine_load()}")


if __name__ == "__main__":
    main()
