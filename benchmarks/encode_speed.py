"""Encoding speed: bpe_core's encoder against tiktoken's, with the same ranks.

    python benchmarks/encode_speed.py

Target (issue 2): within 2.5x of tiktoken's `encode_ordinary` throughput.
Both encoders give identical ids (checked here too). Ours remembers pieces it
has encoded, so it is measured twice: "first pass" on a fresh tokenizer
(every new word runs the merge loop) and "again" (every piece is known, as
when a page re-renders). tiktoken keeps no such memory; its figure is the
best of three runs.
"""

from __future__ import annotations

import argparse
import sys
import time

from measure import ROOT, ratio

sys.path.insert(0, str(ROOT))

from bpe_core import train
from bpe_core.encodings import load_encoding, tiktoken_encoding
from bpe_core.formats import to_tiktoken
from bpe_core.tokenizer import Tokenizer

ENGLISH = ROOT / "sample_corpora" / "tiny_shakespeare.txt"
PARALLEL = ROOT / "sample_corpora" / "parallel"


def seconds(function, text: str, repeats: int = 1) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        function(text)
        best = min(best, time.perf_counter() - start)
    return best


def compare(label: str, ours: Tokenizer, reference, text: str) -> None:
    assert ours.encode_ordinary(text[:20000]) == reference.encode_ordinary(text[:20000])
    ours.clear_cache()
    reference_time = seconds(reference.encode_ordinary, text, repeats=3)
    first = seconds(ours.encode_ordinary, text)
    again = seconds(ours.encode_ordinary, text, repeats=3)
    mb = len(text.encode()) / 1e6
    print(
        f"  {label:<26} tiktoken {mb / reference_time:6.1f} MB/s | ours first pass {mb / first:5.1f} MB/s "
        f"({ratio(first, reference_time)} slower) | again {mb / again:5.1f} MB/s ({ratio(again, reference_time)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    english = ENGLISH.read_text(encoding="utf-8")
    multilingual = "\n".join(p.read_text(encoding="utf-8") for p in sorted(PARALLEL.glob("*.txt")))
    print(f"English: {ENGLISH.name}, {len(english.encode()) / 1e6:.2f} MB; "
          f"multilingual: parallel corpus, {len(multilingual.encode()) / 1e6:.2f} MB")
    for name in ("gpt2", "cl100k_base", "o200k_base"):
        print(name)
        compare("English", load_encoding(name), tiktoken_encoding(name), english)
        compare("multilingual", load_encoding(name), tiktoken_encoding(name), multilingual)
    trained = train(english, vocab_size=10_000, pattern="cl100k")
    print("trained here (cl100k pattern, vocab 10,000) vs its tiktoken export")
    compare("English", trained, to_tiktoken(trained), english)


if __name__ == "__main__":
    main()
