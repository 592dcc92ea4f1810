"""Rebuild `words.json.xz`: every declaration's words as ICU finds them
(about 20 s), so that counting a visitor's tokenizer on the UDHR only
encodes (see `bpe_core.analysis.atlas`).

    python sample_corpora/udhr/build_words.py

Run it when the declarations are rebuilt (`build.py`) or ICU changes
(`tests/test_atlas.py` recounts them against the ICU installed); then
rebuild `token_counts.json` (`build_counts.py`), whose word counts are these.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from icu4py._version import icu_version  # noqa: E402

from bpe_core.analysis.atlas import WORDS_FILE, words_of_declarations, write_words  # noqa: E402

if __name__ == "__main__":
    words = words_of_declarations()
    write_words(words, icu_version)
    print(f"{sum(map(len, words.values())):,} words of {len(words)} declarations (ICU {icu_version}) written to "
          f"{WORDS_FILE.name}, {WORDS_FILE.stat().st_size / 1e6:.2f} MB", file=sys.stderr)
