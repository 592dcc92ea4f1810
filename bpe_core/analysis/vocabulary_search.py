"""A vocabulary's table as a DataFrame: searched, filtered and sorted.

The Vocabulary page searches 200,000 tokens at each keystroke and filters
them at each click; vectorised passes over a pandas DataFrame keep that
quick. The table's columns are `vocabulary.vocabulary_columns`; this module
holds what needs the whole table (and pandas: a page whose first view lists
a few rows, made by `vocabulary.vocabulary_rows`, does not import it).
Pure functions, no Streamlit.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

import pandas as pd
import regex

from ..engine.tokenizer import Tokenizer
from ..sandbox.untrusted_regex import compile_untrusted
from ..sandbox.untrusted_split import within_own_time
from .vocabulary import SORTS, vocabulary_columns

# A regex search of one token normally takes microseconds; this much means
# exponential backtracking (see `regex_matches`) ...
REGEX_SECONDS_PER_TOKEN = 0.05
# ... and a search of a whole vocabulary normally well under a second. Both
# are seconds of processor time, not of the clock: on a busy machine a
# search waits for a core without doing more work, and must not be refused
# for it (the `regex` module's own timeout counts processor time too).
REGEX_SECONDS_IN_ALL = 3.0

NULLABLE_NUMBERS = ("characters", "learned_at_step", "first_merge")  # None where a token has none


def vocabulary_table(tokenizer: Tokenizer, ids: list[int] | None = None) -> pd.DataFrame:
    """`vocabulary.vocabulary_columns` as a DataFrame (its numbers that can
    be missing as pandas' nullable integers): every token, or those of `ids`."""
    columns = vocabulary_columns(tokenizer, ids)
    for name in NULLABLE_NUMBERS:
        if name in columns:
            columns[name] = pd.array(columns[name], dtype="Int64")
    return pd.DataFrame(columns)


# ------------------------------------------------------- searching, sorting


def search(
    table: pd.DataFrame,
    text: str | None = None,
    regex: str | None = None,
    id: int | None = None,
    *,
    ignore_case: bool = False,
) -> pd.DataFrame:
    """The rows that match every criterion given (None or "" means "any").

    `text` is a substring of the token's own text (" the") or of the text
    as the table shows it ("·the", "<E3 81>"), so whatever a reader types or
    copies out of the table finds the token. `regex` (the `regex` module's
    syntax, so \\p{Han} works) is searched in the token's own text, where a
    space is a space. A bad regex raises ValueError saying what is wrong.
    With no criteria, the table itself: everything, and no copy of it."""
    if not text and not regex and id is None:
        return table
    keep = pd.Series(True, index=table.index)
    if text:
        keep &= contains(table["string"], text, ignore_case) | contains(table["text"], text, ignore_case)
    if regex:
        keep &= regex_matches(table["string"], compile_search(regex, ignore_case=ignore_case))
    if id is not None:
        keep &= table["id"] == id
    return table[keep]


def contains(strings: pd.Series, text: str, ignore_case: bool) -> pd.Series:
    return strings.str.contains(text, case=not ignore_case, regex=False)


def compile_search(pattern: str, *, ignore_case: bool = False) -> regex.Pattern:
    """`pattern` compiled as an untrusted regex (see `untrusted_regex`), or a
    ValueError a reader can act on."""
    try:
        return compile_untrusted(pattern, regex.IGNORECASE if ignore_case else 0)
    except ValueError as error:
        raise ValueError(f"{pattern!r} cannot be searched for: {error}.") from None


def regex_matches(strings: pd.Series, pattern: regex.Pattern) -> pd.Series:
    """Whether `pattern` occurs in each string. Each search, and the whole
    pass, has a time limit: a pattern such as (a|aa)+$ takes exponential time
    on a long token, one like (.*)*(.*)*(?!) is merely slow on every token,
    and one visitor's typo must not freeze the app for everyone else."""
    deadline = time.thread_time() + REGEX_SECONDS_IN_ALL
    found = []
    for index, string in enumerate(strings):
        try:
            found.append(_search(pattern, string) is not None)
        except TimeoutError:
            raise ValueError(
                f"{pattern.pattern!r} takes too long on some tokens (it backtracks exponentially); "
                "simplify it, e.g. avoid nested repetition such as (a+)+."
            ) from None
        if index % 1_000 == 999 and time.thread_time() > deadline:
            raise ValueError(
                f"{pattern.pattern!r} takes too long over the whole vocabulary; simplify it, "
                "e.g. avoid repeating a repetition such as (.*)*."
            )
    return pd.Series(found, index=strings.index, dtype=bool)


def _search(pattern: regex.Pattern, string: str) -> regex.Match | None:
    """`pattern.search(string)` within REGEX_SECONDS_PER_TOKEN of this
    thread's processor time. The `regex` module's timeout counts the whole
    server's: one that runs out is looked at again by this thread's clock
    (see `untrusted_split.within_own_time`), which costs a clock reading
    only where a token took long."""
    try:
        return pattern.search(string, timeout=REGEX_SECONDS_PER_TOKEN)
    except TimeoutError:
        return within_own_time(lambda timeout: pattern.search(string, timeout=timeout), REGEX_SECONDS_PER_TOKEN)


def filter_tokens(
    table: pd.DataFrame,
    scripts: Iterable[str] = (),
    *,
    only_not_utf8: bool = False,
    only_leading_space: bool = False,
) -> pd.DataFrame:
    """The rows in any of `scripts` (all when empty), optionally only those
    that are not valid UTF-8, or only those starting with a space."""
    keep = pd.Series(True, index=table.index)
    scripts = list(scripts)
    if scripts:
        keep &= table["script"].isin(scripts)
    if only_not_utf8:
        keep &= ~table["valid_utf8"]
    if only_leading_space:
        keep &= table["leading_space"]
    return table[keep]


def sort_tokens(table: pd.DataFrame, by: str) -> pd.DataFrame:
    """Sorted by id, by length (longest first), or by the step that learned
    the token (tokens not learned by a merge last); ties in id order."""
    if by == "length":
        return table.sort_values(["bytes", "id"], ascending=[False, True], kind="stable")
    if by == "step":
        return table.sort_values(["learned_at_step", "id"], na_position="last", kind="stable")
    if by == "id":
        return table.sort_values("id", kind="stable")
    raise ValueError(f"Cannot sort by {by!r}; choose one of {', '.join(SORTS)}.")
