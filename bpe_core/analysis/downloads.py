"""Tables as files to download: CSV that a spreadsheet shows as text.

The pages offer their tables (comparisons, premiums, vocabularies, merges)
as CSV. Token text comes from users, so a cell that a spreadsheet would run
as a formula is guarded.
"""

from __future__ import annotations

import csv
import io
import math
from typing import TYPE_CHECKING

from ..engine.tokenizer import Tokenizer

if TYPE_CHECKING:  # the pages' tables: a DataFrame is written by its own to_csv, rows by the csv module
    import pandas as pd

# A spreadsheet runs a cell that starts with one of these as a formula.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value):
    """A text cell a spreadsheet shows as text: one that would start a formula
    (a token "=cmd|..." from an uploaded text) gets a leading apostrophe,
    the usual guard against CSV formula injection."""
    return "'" + value if isinstance(value, str) and value.startswith(_FORMULA_STARTS) else value


def frame_csv(table: list[dict] | pd.DataFrame) -> str:
    """A table (rows as dicts, every row with the first one's columns, or a
    DataFrame) as CSV for download, its text cells spreadsheet-safe."""
    if not isinstance(table, list):
        return table.map(spreadsheet_safe).to_csv(index=False)
    columns = list(table[0]) if table else []
    written = io.StringIO()
    writer = csv.writer(written, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([_written(row[column]) for column in columns] for row in table)
    return written.getvalue()


def _written(value):
    """A cell as `to_csv` writes it: nothing for a missing number (NaN)."""
    return "" if isinstance(value, float) and math.isnan(value) else spreadsheet_safe(value)


def merges_csv(tokenizer: Tokenizer) -> str:
    """The learned merges as CSV: one row per merge, with the ids, the text
    they stand for and, for a tokenizer trained here, the training numbers.
    Bytes that are not whole characters are written as \\xNN."""
    trace = tokenizer.trace
    rows = []
    for step, ((left, right), new_id) in enumerate(tokenizer.merges, start=1):
        left_text, right_text, token_text = (
            tokenizer.token_bytes(token_id).decode("utf-8", errors="backslashreplace")
            for token_id in (left, right, new_id)
        )
        rows.append({
            "step": step, "new_id": new_id, "left_id": left, "right_id": right,
            "left": left_text, "right": right_text, "token": token_text,
            "count": trace[step - 1].count if trace else None,
            "corpus_tokens": trace[step - 1].corpus_tokens if trace else None,
        })
    written = io.StringIO()
    writer = csv.DictWriter(written, MERGES_CSV_COLUMNS, lineterminator="\n")  # as pandas writes a frame
    writer.writeheader()
    writer.writerows({column: spreadsheet_safe(value) for column, value in row.items()} for row in rows)
    return written.getvalue()


MERGES_CSV_COLUMNS = ["step", "new_id", "left_id", "right_id", "left", "right", "token", "count", "corpus_tokens"]
