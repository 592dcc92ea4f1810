"""Rebuild `token_counts.json`: every bundled tokenizer's counts on every
declaration (about 20 s a tokenizer), so the app's first visit does not
count them.

    python sample_corpora/udhr/build_counts.py          # count what is new or changed
    python sample_corpora/udhr/build_counts.py --all    # count everything again

Every name in `bpe_core.vocabularies.catalogue.CATALOGUE` whose package is installed is
kept, with what it is read from (`encoding_source`, by which the app finds
its counts without loading it); one whose stored counts are of the same
tokenizer (its fingerprint) and the same texts is not counted again. A tokenizer added to the catalogue
later, or changed, is counted by the app when first needed until this is
run again. Words are those of `words.json.xz` (run `build_words.py` first
when the declarations or ICU change).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bpe_core.analysis.atlas import count_tokenizer, read_precomputed, word_counts, write_precomputed  # noqa: E402
from bpe_core.cli.main import every_loadable_encoding  # noqa: E402
from bpe_core.vocabularies.catalogue import encoding_source  # noqa: E402


def main(everything: bool) -> None:
    stored = None if everything else read_precomputed()
    counts = {}
    for name, tokenizer in every_loadable_encoding().items():
        kept = stored.counts(name, tokenizer.fingerprint) if stored is not None else None
        counts[name] = kept if kept is not None else count_tokenizer(tokenizer)
        print(f"{'kept' if kept is not None else 'counted'} {name}", file=sys.stderr)
    sources = {name: encoding_source(name) for name in counts}
    write_precomputed(word_counts(), counts, sources)  # the shipped words' (build_words.py)


if __name__ == "__main__":
    main(everything="--all" in sys.argv[1:])
