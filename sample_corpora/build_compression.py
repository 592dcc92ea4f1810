"""Rebuild `compression.json`: the Compression page's default curves and
every bundled encoding's reference point on every corpus's held-out text,
so the page's first visit neither trains nor loads a vocabulary.

    python sample_corpora/build_compression.py

See `bpe_core.analysis.shipped_compression` for how the page uses the file.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bpe_core import train  # noqa: E402
from bpe_core.analysis.compression import (  # noqa: E402
    HELD_OUT_FRACTION,
    chart_corpora,
    corpus_curves,
    corpus_text,
    reference_points,
    split_held_out,
)
from bpe_core.analysis.shipped_compression import (  # noqa: E402
    DEFAULT_CORPORA,
    DEFAULT_SETTINGS,
    curves_key,
    reference_key,
    write_shipped,
)
from bpe_core.vocabularies.catalogue import LISTED, ModelPackageMissing  # noqa: E402


def main() -> None:
    curves, references = {}, {}
    for corpus_id in chart_corpora():
        training_text, held_out_text = split_held_out(corpus_text(corpus_id), HELD_OUT_FRACTION)
        if corpus_id in DEFAULT_CORPORA:
            tokenizer = train(training_text, **DEFAULT_SETTINGS)
            key = curves_key(training_text, held_out_text, **DEFAULT_SETTINGS)
            curves[key] = corpus_curves(tokenizer, training_text, held_out_text)
        for name in LISTED:
            try:
                (point,) = reference_points(held_out_text, [name])
            except ModelPackageMissing as error:
                print(f"left out: {error}", file=sys.stderr)
                continue
            references[reference_key(held_out_text, name)] = point
        print(f"measured {corpus_id}", file=sys.stderr)
    write_shipped(curves, references)


if __name__ == "__main__":
    main()
