"""Rebuild `vocab_health.json`: every bundled tokenizer's unreachable
tokens, partial characters, intermediate residues on the bundled corpus,
and tokens per script (seconds to tens of seconds a tokenizer), so that
neither the Vocabulary page nor the Tax page measures them for a visitor.

    python sample_corpora/build_vocab_health.py

Every name in `bpe_core.vocabularies.catalogue.LISTED` whose package is
installed is measured; see `bpe_core.analysis.shipped_health` for how the
pages use the file.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bpe_core.analysis.shipped_health import corpus_sha256, measure, write_shipped
from bpe_core.analysis.vocab_health import health_corpus
from bpe_core.cli.main import every_loadable_encoding


def main() -> None:
    texts = health_corpus()
    measured = {}
    for name, tokenizer in every_loadable_encoding().items():
        measured[name] = measure(name, tokenizer, texts)
        print(f"measured {name}", file=sys.stderr)
    write_shipped(measured, corpus_sha256(texts))


if __name__ == "__main__":
    main()
