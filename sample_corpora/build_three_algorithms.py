"""Rebuild `three_algorithms.json`: BPE, WordPiece and Unigram trained on
the Three algorithms page's default corpus to its default size, so the
page's first visit trains nothing.

    python sample_corpora/build_three_algorithms.py

See `bpe_core.analysis.shipped_algorithms` for how the page uses the file.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bpe_core import train  # noqa: E402
from bpe_core.analysis.algorithms import RIVALS, corpus_parts, train_rival  # noqa: E402
from bpe_core.analysis.shipped_algorithms import (  # noqa: E402
    BPE_PATTERN,
    DEFAULT_CORPUS,
    DEFAULT_VOCAB_SIZE,
    write_shipped,
)


def main() -> None:
    training_text = corpus_parts(DEFAULT_CORPUS)[0]
    three = {"bpe": train(training_text, vocab_size=DEFAULT_VOCAB_SIZE, pattern=BPE_PATTERN)}
    for algorithm in RIVALS:
        three[algorithm] = train_rival(algorithm, training_text, DEFAULT_VOCAB_SIZE)
    write_shipped(training_text, DEFAULT_VOCAB_SIZE, three)


if __name__ == "__main__":
    main()
