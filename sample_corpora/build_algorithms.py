"""Rebuild `algorithms.json`: every algorithm of the Algorithms page trained
on its default corpus to its default size, and on the 30-language passage
(of which only each language's tokens are kept), so that the page's first
view trains nothing. It then rebuilds `algorithm_measures.json`
(`build_algorithm_measures.py`), whose measures are keyed by these
tokenizers' fingerprints: measures of the old ones would never be used.

    python sample_corpora/build_algorithms.py

See `bpe_core.analysis.shipped_algorithms` for how the page uses the file.
"""

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bpe_core.analysis.algorithms import (  # noqa: E402
    ALGORITHMS,
    ALL_LANGUAGES,
    RIVALS,
    corpus_parts,
    language_tokens,
    train_rival,
    training_settings,
)
from bpe_core.analysis.shipped_algorithms import (  # noqa: E402
    BPE_PATTERN,
    DEFAULT_CORPUS,
    DEFAULT_THRESHOLD,
    DEFAULT_TRANSITION,
    DEFAULT_VOCAB_SIZE,
    write_shipped,
)
from bpe_core.jobs.budgeted_training import TRAINERS  # noqa: E402


def trained(algorithm: str, text: str, settings: dict):
    if algorithm in RIVALS:
        return train_rival(algorithm, text, settings["vocab_size"])
    return TRAINERS[algorithm](text, **settings)


def main() -> None:
    default_text, languages_text = corpus_parts(DEFAULT_CORPUS)[0], corpus_parts(ALL_LANGUAGES)[0]
    tokenizers, counts = [], []
    for algorithm in ALGORITHMS:
        settings = training_settings(algorithm, DEFAULT_VOCAB_SIZE, pattern=BPE_PATTERN,
                                     transition=DEFAULT_TRANSITION, threshold=DEFAULT_THRESHOLD)
        tokenizers.append((algorithm, default_text, settings, trained(algorithm, default_text, settings)))
        counts.append((algorithm, languages_text, settings, language_tokens(trained(algorithm, languages_text, settings))))
    write_shipped(tokenizers, counts)
    # In a process of its own, which reads the file just written (this one may have read the old one).
    subprocess.run([sys.executable, str(Path(__file__).with_name("build_algorithm_measures.py"))], check=True)


if __name__ == "__main__":
    main()
