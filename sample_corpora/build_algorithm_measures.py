"""Rebuild `algorithm_measures.json`: what the Algorithms page measures of
its default view's tokenizers (the six algorithms shipped in
`algorithms.json`, trained on the default corpus) on that corpus's held-out
text, so that the page's first view encodes nothing. Run it after
`build_algorithms.py`: the measures are keyed by the tokenizers' fingerprints.

    python sample_corpora/build_algorithm_measures.py

See `pages.common.algorithm_measures` for how the page uses the file.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bpe_core.analysis.algorithms import ALGORITHMS, corpus_parts, training_settings, word_language  # noqa: E402
from bpe_core.analysis.shipped_algorithms import (  # noqa: E402
    BPE_PATTERN,
    DEFAULT_CORPUS,
    DEFAULT_THRESHOLD,
    DEFAULT_TRANSITION,
    DEFAULT_VOCAB_SIZE,
    shipped_tokenizer,
)
from pages.common.algorithm_measures import measure, measures_key, write_shipped  # noqa: E402


def default_tokenizers() -> dict:
    """The default view's tokenizers, as `algorithms.json` ships them, in the page's order."""
    training_text = corpus_parts(DEFAULT_CORPUS)[0]
    tokenizers = {}
    for algorithm in ALGORITHMS:
        settings = training_settings(algorithm, DEFAULT_VOCAB_SIZE, pattern=BPE_PATTERN,
                                     transition=DEFAULT_TRANSITION, threshold=DEFAULT_THRESHOLD)
        tokenizers[algorithm] = shipped_tokenizer(algorithm, training_text, settings)
        if tokenizers[algorithm] is None:
            raise SystemExit(f"{algorithm} is not shipped for the default view: run build_algorithms.py first.")
    return tokenizers


def main() -> None:
    tokenizers = default_tokenizers()
    held_out = corpus_parts(DEFAULT_CORPUS)[1]
    write_shipped({measures_key(tokenizers, held_out): measure(tokenizers, held_out, word_language(DEFAULT_CORPUS))})


if __name__ == "__main__":
    main()
