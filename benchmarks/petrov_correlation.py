"""How well the project's premiums agree with Petrov et al. (2023)'s.

Petrov et al. measured the premium of 204 languages on FLORES-200 (their
token counts for r50k_base, which is gpt2, and cl100k_base are in
`petrov2023/`). This prints Spearman's rank correlation between theirs and
the project's, over the languages both cover: the 30-language passage
(`sample_corpora/parallel/`) and the UDHR (`sample_corpora/udhr/`).

    python benchmarks/petrov_correlation.py

A UDHR declaration matches a FLORES-200 language when its ISO 639-3 code
and its script are the language's (FLORES's `zho_Hans` is Mandarin, `cmn`);
of several declarations of one language, the one whose code is the ISO code
is taken, else the first complete one.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bpe_core.analysis.atlas import atlas_rows, precomputed
from bpe_core.analysis.tax import premiums
from bpe_core.corpora.udhr import declarations
from bpe_core.vocabularies.catalogue import load_encoding

PETROV = Path(__file__).parent / "petrov2023" / "tokenization_lengths.csv"
TOKENIZERS = {"gpt2": "r50k_base", "cl100k_base": "cl100k_base"}  # ours: theirs
# The passage's languages (ISO 639-1) as FLORES-200 names them.
PASSAGE_FLORES = {
    "en": "eng_Latn", "am": "amh_Ethi", "ar": "arb_Arab", "bn": "ben_Beng", "de": "deu_Latn", "el": "ell_Grek",
    "es": "spa_Latn", "fa": "pes_Arab", "fr": "fra_Latn", "he": "heb_Hebr", "hi": "hin_Deva", "hy": "hye_Armn",
    "id": "ind_Latn", "ja": "jpn_Jpan", "ka": "kat_Geor", "km": "khm_Khmr", "ko": "kor_Hang", "my": "mya_Mymr",
    "pt": "por_Latn", "ru": "rus_Cyrl", "sw": "swh_Latn", "ta": "tam_Taml", "te": "tel_Telu", "th": "tha_Thai",
    "tr": "tur_Latn", "uk": "ukr_Cyrl", "ur": "urd_Arab", "vi": "vie_Latn", "yo": "yor_Latn", "zh": "zho_Hans",
}
# FLORES-200's script codes (ISO 15924) as `udhr.Declaration.script` names them.
SCRIPTS = {
    "Latn": "Latin", "Cyrl": "Cyrillic", "Arab": "Arabic", "Deva": "Devanagari", "Beng": "Bengali",
    "Ethi": "Ethiopic", "Grek": "Greek", "Hebr": "Hebrew", "Armn": "Armenian", "Geor": "Georgian", "Khmr": "Khmer",
    "Mymr": "Myanmar", "Thai": "Thai", "Laoo": "Lao", "Taml": "Tamil", "Telu": "Telugu", "Knda": "Kannada",
    "Mlym": "Malayalam", "Gujr": "Gujarati", "Guru": "Gurmukhi", "Orya": "Oriya", "Sinh": "Sinhala",
    "Tibt": "Tibetan", "Hang": "Korean", "Jpan": "Japanese", "Hans": "Han", "Hant": "Han", "Tfng": "Tifinagh",
    "Olck": "Ol Chiki",
}
ISO_ALIASES = {"zho": "cmn"}  # FLORES's Chinese is Mandarin


def petrov_premiums() -> dict[str, dict[str, float]]:
    """{our tokenizer name: {FLORES code: premium against eng_Latn}}."""
    with open(PETROV, encoding="utf-8", newline="") as table:
        rows = {row["flores_code"]: row for row in csv.DictReader(table)}
    return {ours: {code: int(row[theirs]) / int(rows["eng_Latn"][theirs]) for code, row in rows.items()}
            for ours, theirs in TOKENIZERS.items()}


def udhr_match(flores_code: str) -> str | None:
    """The declaration standing for a FLORES-200 language, if there is one."""
    iso, script = flores_code.split("_")
    iso = ISO_ALIASES.get(iso, iso)
    about = declarations()
    matches = [code for code, d in about.items() if d.iso6393 == iso and d.script == SCRIPTS.get(script)]
    if not matches:
        return None
    return iso if iso in matches else next((code for code in matches if about[code].whole), matches[0])


def spearman(ours: dict[str, float], theirs: dict[str, float]) -> tuple[float, int]:
    both = pd.DataFrame({"ours": pd.Series(ours), "theirs": pd.Series(theirs)}).dropna()
    return both["ours"].corr(both["theirs"], method="spearman"), len(both)


def correlations() -> dict[str, dict[str, tuple[float, int]]]:
    """{corpus: {tokenizer: (Spearman's rho, languages compared)}}."""
    theirs = petrov_premiums()
    passage = premiums({name: load_encoding(name) for name in TOKENIZERS})
    stored = precomputed()
    udhr = atlas_rows({name: stored.tokenizers[name] for name in TOKENIZERS}, stored.words)
    matched = {flores: code for flores in theirs["gpt2"] if (code := udhr_match(flores)) is not None}
    results = {"passage": {}, "udhr": {}}
    for name in TOKENIZERS:
        ours = {PASSAGE_FLORES[code]: premium for code, premium in passage[name].items()}
        results["passage"][name] = spearman(ours, theirs[name])
        by_code = {row.code: row.premium for row in udhr if row.tax.tokenizer == name}
        results["udhr"][name] = spearman({flores: by_code[code] for flores, code in matched.items()}, theirs[name])
    return results


if __name__ == "__main__":
    for corpus, by_tokenizer in correlations().items():
        for name, (rho, languages) in by_tokenizer.items():
            print(f"{corpus:8} {name:12} Spearman {rho:.2f} over {languages} languages")
