"""Training speed: bpe_core.train against Hugging Face `tokenizers` and the naive trainer.

    python benchmarks/train_speed.py            # 1 MB English + 10 MB, V=10,000, GPT-4 pattern

Each contender runs in its own process, three times; the fastest run counts.

Targets (issue 2): on 1 MB of English with the GPT-4 (cl100k) pattern and a
vocabulary of 10,000, no slower than Hugging Face's Rust BPE trainer and at
least 300x faster than the naive trainer; 10 MB in a few seconds.

The naive trainer (tests/reference_bpe.py, minbpe's algorithm) would take
hours for 9,744 merges, so it runs the first merges only. Its cost per merge
is proportional to the corpus length in tokens at that step, which the fast
trainer's trace records for every step; the full run's time is estimated as
(seconds per token, measured) x (sum of corpus lengths over all merges).
"""

from __future__ import annotations

import argparse
import glob
import sysconfig
from pathlib import Path

from measure import ROOT, ratio, run_isolated

ENGLISH = ROOT / "sample_corpora" / "tiny_shakespeare.txt"


def ten_megabytes() -> Path:
    """10 MB of real, varied text: the Python standard library's source."""
    path = Path("/tmp/bpe_benchmark_10mb.txt")
    if not path.exists() or path.stat().st_size < 10_000_000:
        parts, size = [], 0
        for name in sorted(glob.glob(sysconfig.get_paths()["stdlib"] + "/**/*.py", recursive=True)):
            text = Path(name).read_text(encoding="utf-8", errors="replace")
            parts.append(text)
            size += len(text.encode())
            if size >= 10_000_000:
                break
        path.write_text("".join(parts)[:10_000_000], encoding="utf-8")
    return path


def ours(path: Path, vocab_size: int) -> dict:
    return run_isolated(
        repeats=3,
        setup=f"from bpe_core import train\ntext = open({str(path)!r}, encoding='utf-8').read()",
        job=f"tok = train(text, vocab_size={vocab_size}, pattern='cl100k')\n"
        "result = [s.corpus_tokens for s in tok.trace]",
    )


def hugging_face(path: Path, vocab_size: int) -> dict:
    # The same pre-tokenization (GPT-4 regex, then bytes), the same vocabulary
    # size, fed through its standard file API (lines, read in parallel).
    return run_isolated(
        repeats=3,
        setup="from tokenizers import Tokenizer, Regex, models, pre_tokenizers, trainers\n"
        "from bpe_core.patterns import CL100K_PATTERN\n"
        "hf = Tokenizer(models.BPE())\n"
        "hf.pre_tokenizer = pre_tokenizers.Sequence([\n"
        "    pre_tokenizers.Split(Regex(CL100K_PATTERN.replace(r'{1,3}+', '{1,3}')), behavior='isolated'),\n"
        "    pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])\n"
        f"trainer = trainers.BpeTrainer(vocab_size={vocab_size}, show_progress=False,\n"
        "    initial_alphabet=pre_tokenizers.ByteLevel.alphabet())",
        job=f"hf.train([{str(path)!r}], trainer)\nresult = hf.get_vocab_size()",
    )


def naive(path: Path, merges: int) -> dict:
    return run_isolated(
        setup="from tests.reference_bpe import naive_merges, text_chunks\n"
        f"text = open({str(path)!r}, encoding='utf-8').read()\n"
        "chunks, base = text_chunks(text, 'cl100k')",
        job=f"steps = naive_merges(chunks, len(base), {merges})\n"
        "result = [len(text.encode())] + [s[3] for s in steps]",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vocab-size", type=int, default=10_000)
    parser.add_argument("--naive-merges", type=int, default=12, help="merges the naive trainer really runs")
    parser.add_argument("--skip-10mb", action="store_true")
    args = parser.parse_args()

    size_mb = ENGLISH.stat().st_size / 1e6
    print(f"1) {ENGLISH.name}: {size_mb:.2f} MB of English, GPT-4 pattern, vocab {args.vocab_size:,}")
    fast = ours(ENGLISH, args.vocab_size)
    hf = hugging_face(ENGLISH, args.vocab_size)
    slow = naive(ENGLISH, args.naive_merges)
    lengths = [ENGLISH.stat().st_size] + fast["result"]  # corpus tokens before each merge
    seconds_per_token = slow["seconds"] / sum(slow["result"][: args.naive_merges])
    naive_estimate = seconds_per_token * sum(lengths[: len(fast["result"])])
    print(f"   bpe_core.train        {fast['seconds']:8.2f} s   CPU {fast['cpu_seconds']:5.2f} s   "
          f"peak {fast['peak_mb']:6.0f} MB   ({len(fast['result']):,} merges)")
    print(f"   HF tokenizers (Rust)  {hf['seconds']:8.2f} s   CPU {hf['cpu_seconds']:5.2f} s   peak {hf['peak_mb']:6.0f} MB")
    print(f"   naive, {args.naive_merges} merges     {slow['seconds']:8.2f} s   -> all merges, estimated {naive_estimate:,.0f} s")
    print(f"   ratio HF / bpe_core:     {ratio(hf['seconds'], fast['seconds'])}  (target >= 1.00x; "
          f"by CPU time {ratio(hf['cpu_seconds'], fast['cpu_seconds'])}: HF uses several threads)")
    print(f"   ratio naive / bpe_core:  {ratio(naive_estimate, fast['seconds'])}  (target >= 300x)")

    if not args.skip_10mb:
        big = ten_megabytes()
        print(f"2) {big.stat().st_size / 1e6:.1f} MB of Python standard-library source, vocab {args.vocab_size:,}")
        fast = ours(big, args.vocab_size)
        hf = hugging_face(big, args.vocab_size)
        print(f"   bpe_core.train        {fast['seconds']:8.2f} s   CPU {fast['cpu_seconds']:5.2f} s   peak {fast['peak_mb']:6.0f} MB")
        print(f"   HF tokenizers (Rust)  {hf['seconds']:8.2f} s   CPU {hf['cpu_seconds']:5.2f} s   peak {hf['peak_mb']:6.0f} MB")
        print(f"   ratio HF / bpe_core:     {ratio(hf['seconds'], fast['seconds'])}  "
              f"(by CPU time {ratio(hf['cpu_seconds'], fast['cpu_seconds'])})")


if __name__ == "__main__":
    main()
