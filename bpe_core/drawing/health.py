"""The Vocabulary page's health section, drawn: pure functions, no Streamlit.

A vocabulary's health (`analysis.vocab_health`) is three lists of ids;
these turn them into what a reader takes in: the counts in one row, and
plain tables (`tables.table_html`, every token escaped) of the unreachable
tokens with what their text becomes, and of the residues with how often
the corpus kept and absorbed each.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..analysis.labels import label_text
from ..analysis.vocab_health import MAX_RATIO, MIN_SEEN, Residue, Unreachable, VocabularyHealth
from .tables import table_html
from .tokens import figures_html

ROWS_SHOWN = 50  # of each table: the command line's --json lists them all


def health_figures_html(health: VocabularyHealth, partial_count: int) -> str:
    """The three counts in one row, each explained on hover."""
    seen = "" if health.tokens_seen is None else f" of {health.tokens_seen:,} made"
    figures = {
        "Ordinary tokens": f"{health.tokens:,}",
        "Unreachable": f"{len(health.unreachable):,}",
        "Not UTF-8 alone": f"{partial_count:,}",
        "Intermediate residues": "–" if health.residues is None else f"{len(health.residues):,}{seen}",
    }
    notes = {
        "Unreachable": "Valid UTF-8, yet encoding the token's own text gives other tokens: no text ever produces it.",
        "Not UTF-8 alone": "Part of a character (the first two bytes of あ, say): reachable only inside it.",
        "Intermediate residues": f"Made at least {MIN_SEEN} times while encoding the bundled texts, but left standing "
                                 f"fewer than {MAX_RATIO:.0%} of those times: a longer token nearly always absorbs it."
                                 if health.residues is not None else "Only a tokenizer that merges has any.",
    }
    return figures_html(figures, notes)


def _label(tokenizer, token_id: int) -> str:
    return label_text(tokenizer.token_bytes(token_id))


def unreachable_html(tokenizer, unreachable: Sequence[Unreachable], shown: int = ROWS_SHOWN) -> str:
    """The first `shown` unreachable tokens: each, and the tokens its text is
    encoded as instead."""
    rows = [{"id": found.id, "token": _label(tokenizer, found.id),
             "its text becomes": " + ".join(_label(tokenizer, part) for part in found.becomes),
             "ids": " ".join(map(str, found.becomes))} for found in unreachable[:shown]]
    return table_html(rows, {"id": "{:d}"}, tokens=("token", "its text becomes"),
                      helps={"its text becomes": "The tokens that encoding the token's own text gives instead"})


def residues_html(tokenizer, residues: Sequence[Residue], shown: int = ROWS_SHOWN) -> str:
    """The first `shown` residues (the most often absorbed first): how
    often the corpus kept each and absorbed it, and the token that absorbed
    it most."""
    rows = [{"id": residue.id, "token": _label(tokenizer, residue.id), "kept": residue.kept,
             "absorbed": residue.absorbed, "kept share": residue.ratio, "absorbed most into": _label(tokenizer, residue.into)}
            for residue in residues[:shown]]
    return table_html(
        rows, {"id": "{:d}", "kept": "{:,}", "absorbed": "{:,}", "kept share": "{:.1%}"},
        tokens=("token", "absorbed most into"),
        helps={"kept": "Times it stood in the output (F1)",
               "absorbed": "Times a merge made it and a later merge took it into a longer token (F2)",
               "kept share": "F1 / (F1 + F2): LiteToken's final/intermediate ratio"},
    )
