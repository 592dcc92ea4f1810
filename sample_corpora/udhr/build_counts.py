"""Rebuild `token_counts.json`: every bundled tokenizer's counts on every
declaration (a minute or two), so the app's first visit does not count them.

    python sample_corpora/udhr/build_counts.py

Every name in `bpe_core.encodings.CATALOGUE` whose package is installed is
counted; a tokenizer added to the catalogue later, or changed, is counted by
the app when first needed until this is run again.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bpe_core.analysis.atlas import count_tokenizer, word_counts, write_precomputed  # noqa: E402
from bpe_core.encodings import CATALOGUE, load_encoding  # noqa: E402
from bpe_core.zoo import ModelPackageMissing  # noqa: E402


def main() -> None:
    counts = {}
    for name in CATALOGUE:
        try:
            tokenizer = load_encoding(name)
        except ModelPackageMissing as error:
            print(f"left out: {error}", file=sys.stderr)
            continue
        counts[name] = count_tokenizer(tokenizer)
        print(f"counted {name}", file=sys.stderr)
    write_precomputed(word_counts(), counts)


if __name__ == "__main__":
    main()
