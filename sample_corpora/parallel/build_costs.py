"""Rebuild `token_costs.json`: every bundled tokenizer's costs on every
language of the passage (a few seconds a tokenizer), so the Tax page's
first visit neither loads nor measures them.

    python sample_corpora/parallel/build_costs.py

Every name in `bpe_core.vocabularies.catalogue.CATALOGUE` whose package is installed is
measured; see `bpe_core.analysis.shipped_tax` for how the page uses the file.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bpe_core.analysis.shipped_tax import ShippedCosts, write_shipped  # noqa: E402
from bpe_core.analysis.tax import costs_of, languages, parallel_text  # noqa: E402
from bpe_core.cli.main import every_loadable_encoding  # noqa: E402
from bpe_core.vocabularies.catalogue import encoding_source  # noqa: E402


def main() -> None:
    texts = {code: parallel_text(code) for code in languages()}
    measured = {}
    for name, tokenizer in every_loadable_encoding().items():
        measured[name] = ShippedCosts(encoding_source(name), tokenizer.fingerprint, costs_of(tokenizer, texts))
        print(f"measured {name}", file=sys.stderr)
    write_shipped(measured)


if __name__ == "__main__":
    main()
