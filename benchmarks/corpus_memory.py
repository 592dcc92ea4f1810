"""A corpus larger than the memory training may use: `python -m bpe_core train` streams it.

    python benchmarks/corpus_memory.py             # 1 GB, each process capped at 600 MB (a minute or two)
    python benchmarks/corpus_memory.py --gb 2

The corpus is the 50 MB of Python source of train_speed.py, linked under
as many names as make the size asked for (so it takes no disk space); each
process of the training may address at most --cap-mb, far less than the
corpus. The script prints the peak resident memory of the whole process
tree (see `measure`), the time and the CPU time.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from measure import ROOT, SAMPLE_SECONDS, machine_load, tree_rss_mb
from train_speed import python_source


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gb", type=float, default=1.0, help="corpus size")
    parser.add_argument("--cap-mb", type=int, default=600, help="address space each process may use")
    parser.add_argument("--vocab-size", type=int, default=32_000)
    args = parser.parse_args()
    source = python_source(50)
    copies = max(1, round(args.gb * 1e9 / source.stat().st_size))
    print(f"machine: {machine_load()}")
    with tempfile.TemporaryDirectory(dir=source.parent) as folder:  # links need the same file system
        for index in range(copies):
            os.link(source, Path(folder) / f"part{index:04d}.txt")
        size = copies * source.stat().st_size
        print(f"corpus: {copies} files, {size / 1e9:.2f} GB; each process capped at {args.cap_mb} MB of address space")
        command = [sys.executable, "-m", "bpe_core", "train", folder, "--vocab-size", str(args.vocab_size),
                   "-o", str(Path(folder) / "tokenizer.json")]
        cap = args.cap_mb * 1_000_000
        start, peak = time.perf_counter(), 0.0
        child = subprocess.Popen(command, cwd=ROOT, preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (cap, cap)))
        while child.poll() is None:
            peak = max(peak, tree_rss_mb(child.pid))
            time.sleep(SAMPLE_SECONDS)
        seconds = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"exit status {child.returncode}; {seconds:.1f} s, CPU {usage.ru_utime + usage.ru_stime:.1f} s, "
          f"peak memory of the process tree {peak:.0f} MB ({peak * 1e6 / size:.1%} of the corpus)")
    print(f"machine: {machine_load()}")


if __name__ == "__main__":
    main()
