"""Rebuild `algorithm_measures.json`: what the Algorithms page measures of
its default view's tokenizers (the six algorithms shipped in
`algorithms.json`, trained on the default corpus) on that corpus's held-out
text, so that the page's first view encodes nothing. The measures are
keyed by the tokenizers' fingerprints, so `build_algorithms.py` runs this
script after it rebuilds them; run it alone when only the measuring changed.

    python sample_corpora/build_algorithm_measures.py

See `pages.common.algorithm_measures` for how the page uses the file.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bpe_core.analysis.algorithms import corpus_parts, word_language  # noqa: E402
from bpe_core.analysis.shipped_algorithms import DEFAULT_CORPUS  # noqa: E402
from pages.common.algorithm_measures import default_tokenizers, measure, measures_key, write_shipped  # noqa: E402


def main() -> None:
    tokenizers = default_tokenizers()
    if None in tokenizers.values():
        raise SystemExit("The default view's tokenizers are not all shipped: run build_algorithms.py first.")
    held_out = corpus_parts(DEFAULT_CORPUS)[1]
    write_shipped({measures_key(tokenizers, held_out): measure(tokenizers, held_out, word_language(DEFAULT_CORPUS))})


if __name__ == "__main__":
    main()
