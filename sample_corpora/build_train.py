"""Rebuild `train.json`: the Train page's default training (the English
sample at the page's default settings), so the page's first visit does not
train.

    python sample_corpora/build_train.py

See `bpe_core.analysis.shipped_training` for how the app uses the file.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bpe_core import train  # noqa: E402
from bpe_core.analysis.shipped_training import DEFAULT_SAMPLE, DEFAULT_SETTINGS, write_shipped  # noqa: E402
from bpe_core.corpora.samples import catalog  # noqa: E402
from bpe_core.engine.corpus import corpus_fingerprint  # noqa: E402


def main() -> None:
    corpus = catalog()[DEFAULT_SAMPLE].load()
    write_shipped([(corpus_fingerprint(corpus), DEFAULT_SETTINGS, train(corpus, **DEFAULT_SETTINGS))])


if __name__ == "__main__":
    main()
