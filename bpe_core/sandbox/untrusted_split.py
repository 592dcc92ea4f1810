"""Splitting text with a pattern someone typed: one deadline, read once per 256 pieces.

A custom split pattern may backtrack catastrophically (`(?:a|aa)+$` on a
run of "a"s), and even one that cannot backtrack at all may be quadratic
over a text: `\\w++x|\\w` on a long word without "x" scans from every
start to the word's end. So vetting a pattern's shape cannot spare it a
deadline on a long enough text: every custom pattern splits under one, in
seconds of this thread's own processor time, so that other sessions' work
meanwhile neither shortens it nor counts against it. It matches with the
interpreter lock released (`concurrent`), so that a slow pattern in one
session's view does not hold every other session meanwhile.

The `regex` module's `timeout=` counts the processor time of the whole
process instead: two threads with a second each stopped after half a second
of their own work. So each call is given what is left of this thread's
time, and one that runs out before this thread's time does (other threads
ran the process's clock out) is made again from where it stopped
(`within_own_time`).

The `regex` module reads its clock every 256 backtracking steps and at the
start of every match, and that clock is a system call, dearer than
matching a short piece. `findall` starts one match per piece, so guarded
that way a split costs three to four times an unguarded one. Here the
pattern runs as one match that repeats it along the text instead:

    (?:(PATTERN)|(?s:.)){0,256}+

At each position the first branch tries the pattern, just as `findall`
tries it there; where it fails, the second steps over one character, just
as `findall` moves on. Group 1 captures the pieces, up to 256 per call;
the next call starts where this one stopped, with what is left of the
deadline. The clock is read once per call and every 256 backtracking steps
as before, and the split costs what an unguarded `findall` costs.

The loop is compiled as untrusted too, and kept only in the sandbox's
bounded cache of compiled regexes (see `untrusted_regex`), like the
pattern itself.

A few patterns mean something else inside such a loop; those are split by
`findall`, one guarded match per piece (see `looped`). So is a text on
which the pattern matches the empty string, which ends the loop early.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import TypeVar

import regex

from .untrusted_regex import compile_untrusted

Result = TypeVar("Result")
PIECES_PER_CALL = 256  # the pieces a call finds at most: as many as the backtracking steps between clock reads

# Flags under which one match of the loop is not `findall`'s matches in
# turn: matching right to left (REVERSE), leftmost-longest over the whole
# match (POSIX), looking for the best fuzzy match (BESTMATCH,
# ENHANCEMATCH); and VERBOSE, where a comment ending the pattern would
# swallow the loop's closing brackets.
_LOOP_CHANGING_FLAGS = regex.REVERSE | regex.POSIX | regex.BESTMATCH | regex.ENHANCEMATCH | regex.VERBOSE

# Syntax that reads or steers the match as a whole: \G (where the search
# started), \K (where the reported match starts), verbs such as (*SKIP) and
# (*PRUNE), and fuzzy constraints such as {e<=1} (`findall` may start a
# fuzzy match earlier). Escapes are read as units, so that neither \\G nor
# \p{Greek} is taken for one; otherwise the search errs towards finding
# one: a false find costs speed, never a wrong split.
_LOOP_CHANGING_SYNTAX = regex.compile(r"(\\[GK]|\(\*|\{[^}]*[deis])|\\[pPNx]\{[^}]*\}|\\.", regex.DOTALL)


def split_within(compiled: regex.Pattern, text: str, seconds: float) -> list[str]:
    """The non-empty matches of `compiled` in `text`, in order, as `findall`
    finds them; a TimeoutError once they take `seconds` of this thread's
    processor time."""
    deadline = time.thread_time() + seconds
    pieces = _through_the_loop(compiled, text, deadline, _captured_pieces)
    if pieces is None:
        pieces = [match[0] for match in _one_match_each(compiled, text, deadline)]
    return pieces


def spans_within(compiled: regex.Pattern, text: str, seconds: float) -> list[tuple[int, int]]:
    """The (start, end) of every match that `split_within` gives."""
    deadline = time.thread_time() + seconds
    spans = _through_the_loop(compiled, text, deadline, _captured_spans)
    if spans is None:
        spans = [match.span() for match in _one_match_each(compiled, text, deadline)]
    return spans


def within_own_time(call: Callable[[float], Result], seconds: float) -> Result:
    """`call(timeout)`, a call of the `regex` module given a `timeout`,
    within `seconds` of this thread's processor time: made again with what
    is left while its timeout, which counts the whole process's time, runs
    out before this thread's does. A TimeoutError once this thread's runs out."""
    return _until_own_deadline(call, time.thread_time() + seconds)


def _until_own_deadline(call: Callable[[float], Result], deadline: float) -> Result:
    while True:
        left = deadline - time.thread_time()
        if left <= 0:
            raise TimeoutError("regex timed out")
        try:
            return call(left)
        except TimeoutError:
            continue  # the process's time ran out first: other threads' work, not this one's


def _through_the_loop(compiled: regex.Pattern, text: str, deadline: float, read) -> list | None:
    """What `read` finds in the runs of the loop (see the module's note) that
    cover `text`, one call per run; None where the loop would not split as
    `findall` does: for the patterns `looped` turns away, and on a text
    where the pattern matches the empty string (`read` finds an empty piece
    there, where the loop stopped)."""
    loop = looped(compiled)
    if loop is None:
        return None
    found: list = []
    position = 0
    while position < len(text):
        run = _until_own_deadline(
            lambda timeout: loop.match(text, position, timeout=timeout, concurrent=True), deadline  # noqa: B023
        )
        more = read(run)
        if more is None:
            return None
        found += more
        position = run.end()
    return found


def _captured_pieces(run: regex.Match) -> list[str] | None:
    pieces = run.captures(1)
    return None if "" in pieces else pieces


def _captured_spans(run: regex.Match) -> list[tuple[int, int]] | None:
    spans = run.spans(1)
    return None if any(start == end for start, end in spans) else spans


def _one_match_each(compiled: regex.Pattern, text: str, deadline: float) -> Iterator[regex.Match]:
    """`findall`'s way: one guarded match per piece, empty ones left out.
    Where the process's time runs out first, the matching goes on from the
    end of the last piece found, as `finditer` itself would."""
    position = 0
    while True:
        left = deadline - time.thread_time()
        if left <= 0:
            raise TimeoutError("regex timed out")
        try:
            for match in compiled.finditer(text, position, timeout=left, concurrent=True):
                if match.end() > match.start():
                    position = match.end()
                    yield match
            return
        except TimeoutError:
            continue


def looped(compiled: regex.Pattern) -> regex.Pattern | None:
    """The loop over `compiled` (see the module's note), itself compiled as
    untrusted; None where a loop would not give `findall`'s matches: for the
    flags and syntax above, and for a pattern with groups of its own (the
    loop's group would take number 1 and renumber theirs, so that a
    backreference such as \\1 would point elsewhere)."""
    source, flags = compiled.pattern, compiled.flags
    if flags & _LOOP_CHANGING_FLAGS or any(_LOOP_CHANGING_SYNTAX.findall(source)) or compiled.groups:
        return None
    try:
        return compile_untrusted(rf"(?:({source})|(?s:.)){{0,{PIECES_PER_CALL}}}+", flags)
    except ValueError:  # too long with the loop around it, say: `findall`'s way still works
        return None
