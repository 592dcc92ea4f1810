"""Script share: how much of a vocabulary each script holds, beside what its text costs.

A byte-level vocabulary can spell every script, but it learns long tokens
only for the text it was trained on. Counting its tokens by script
(`vocabulary.script_of`: the script most of a token's letters belong to)
shows where its places went; the passage's premiums (`tax`) show what each
script's text costs. Side by side they say why: under cl100k_base, Arabic
letters fill 97 tokens, 0.10% of the vocabulary, and the passage in Arabic,
Persian and Urdu takes a median 3.4 times English's tokens; under
o200k_base they fill 4.0% and take 1.55 times.

A script's languages are the passage's languages whose letters are mostly
in it (Japanese mixes kana and kanji: it counts where most of its letters
are); its cost is the median premium of those languages.
"""

from __future__ import annotations

import functools
import statistics
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from .tax import languages, parallel_text
from .vocabulary import SPECIAL, letter_script


@dataclass(frozen=True)
class ScriptShare:
    """One script under one tokenizer."""

    script: str
    tokens: int  # tokens of the vocabulary whose letters are mostly in this script
    share: float  # of the vocabulary's ordinary tokens
    languages: tuple[str, ...]  # the passage's languages written in it
    premium: float  # the median premium of those languages


@functools.cache
def passage_scripts() -> dict[str, tuple[str, ...]]:
    """Script -> the codes of the passage's languages whose letters are
    mostly in it, in the passage's order."""
    scripts: dict[str, list[str]] = {}
    for code in languages():
        letters = Counter(script for script in map(letter_script, parallel_text(code)) if script is not None)
        scripts.setdefault(letters.most_common(1)[0][0], []).append(code)
    return {script: tuple(codes) for script, codes in scripts.items()}


def script_shares(counts: Mapping[str, int], premiums: Mapping[str, float]) -> list[ScriptShare]:
    """Every script a passage language is written in, with its share of a
    vocabulary and its median premium. `counts`: tokens per script of the
    vocabulary (`vocabulary.script_counts`, special tokens and the other
    categories included, for the total); `premiums`: language code -> its
    premium under the same tokenizer."""
    ordinary = sum(count for script, count in counts.items() if script != SPECIAL)
    return [
        ScriptShare(script, counts.get(script, 0), counts.get(script, 0) / ordinary, codes,
                    statistics.median(premiums[code] for code in codes))
        for script, codes in passage_scripts().items()
    ]
