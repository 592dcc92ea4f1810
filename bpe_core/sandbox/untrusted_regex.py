"""Compiling a regex that someone typed, without handing them the machine.

A regular expression is a small program. The `regex` module runs one with a
deadline (`timeout=`), but compiling has none: `(?:b{1000}){1000}`,
seventeen characters, compiles to hundreds of megabytes, and `(?R)?a`
recurses until memory runs out as soon as it matches anything. So a regex
from a user, a link or a file is compiled, and tried on a sample of awkward
text, first in a throwaway process (a *probe*); only one that passes is
compiled here. Recursion (`(?R)`, `(?1)`, `(?&name)`) is refused outright:
splitting text never needs it.

A probe is held as a visitor's job is (see `worker_processes`,
`machine_turns`): it waits for a turn in the machine's line for checks (one
at a time, so that many visitors' probes do not fill the cores and the
memory), runs below the server's priority, and the kernel stops it at its
memory cap or its processor time, not the clock's. It also measures what
compiling took: only a regex whose compiled program is small
(`COMPILE_MEMORY_BYTES`) is compiled here afterwards, so that what the
server then holds is bounded too.

The server keeps visitors' compiled regexes in one small cache only,
bounded by their total size as the probes measured it (`COMPILED`), never
in the `regex` module's own cache of 500 patterns of any size: each is
compiled with `cache_pattern=False`. Verdicts are kept, so that a bad regex
is judged once, not at every rerun of a page; all but one kind: when no
probe can be had (no process to start, no memory to fork, no turn in time),
the regex is refused for now and judged again next time, never compiled
here untried and never kept as safe.

In a capped process (a visitor's job, whose caps bound anything it does;
see `worker_processes.in_capped_process`) a regex is compiled in place: a
probe from there would escape the job's cap and its turn.
"""

from __future__ import annotations

import functools
import multiprocessing
import signal
import threading
from collections import OrderedDict
from typing import NamedTuple

import regex

from .machine_turns import CHECK_TURNS, NoTurnError, UnsafeFolderError
from .worker_processes import address_space, cap_this_process, end_worker, in_capped_process, worker_context

MAX_REGEX_CHARS = 1_000  # the presets are under 400; a regex this long is not a split rule
COMPILE_MEMORY_BYTES = 16_000_000  # the most compiling may take: the presets take 0.1 MB, (?:b{300}){300} 40
PROBE_MEMORY_BYTES = 256_000_000  # the most the probe may grow by, trying the regex on the sample text
PROBE_CPU_SECONDS = 5  # of processor time, for the probe to compile the regex and try it
PROBE_MATCH_SECONDS = 2.0  # of that, for trying it on the sample text
PROBE_WAIT_SECONDS = 120.0  # of the clock: for a turn, and on a busy machine the probe may get little of a core
PROBE_NICE = 5  # steps below the server's priority: the deadline is the probe's own processor time, which this does not shrink
PROBE_TEXT = (
    "Hello, world! It's 2024: 12345 + 67890 = 80235.\n\tdef f(x):\n        return x  # ok\n"
    "नमस्ते दुनिया · こんにちは世界 · مرحبا · Привет · 👩‍💻👍🏽 " + "a" * 2_000 + " " * 200 + "\n"
) * 4

# A group that calls a group: (?R), (?0), (?1), (?+1), (?-1), (?&name), (?P>name).
_RECURSION = regex.compile(r"(?<!\\)(?:\\\\)*\(\?(?:R|[+-]?\d+|&\w+|P>\w+)\)")

TOO_SLOW = f"it takes more than {PROBE_CPU_SECONDS} s to compile and try on a short text"
TOO_BIG = f"it needs more than {PROBE_MEMORY_BYTES // 1_000_000:,} MB to match a short text"
TOO_BIG_TO_COMPILE = f"it needs more than {COMPILE_MEMORY_BYTES // 1_000_000:,} MB to compile"


class Verdict(NamedTuple):
    reason: str | None  # why the regex cannot be used, or None
    compiled_bytes: int = 0  # what compiling it took, as the probe measured it


class NoProbe(ValueError):
    """No probe could be had for a regex just now: it is refused, but not for good."""


class CompiledCache:
    """Compiled regexes by (source, flags), the least recently used dropped
    first, within `max_entries` and `max_bytes` (each counted at least
    `min_bytes`, what a small regex's objects take)."""

    def __init__(self, max_entries: int, max_bytes: int, min_bytes: int = 64_000):
        self.max_entries, self.max_bytes, self.min_bytes = max_entries, max_bytes, min_bytes
        self._entries: OrderedDict[tuple[str, int], tuple[regex.Pattern, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, int]) -> regex.Pattern | None:
        with self._lock:
            if key not in self._entries:
                return None
            self._entries.move_to_end(key)
            return self._entries[key][0]

    def keep(self, key: tuple[str, int], compiled: regex.Pattern, size: int) -> None:
        with self._lock:
            self._entries[key] = (compiled, max(size, self.min_bytes))
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries or self.size() > self.max_bytes:
                self._entries.popitem(last=False)

    def size(self) -> int:
        return sum(size for _, size in self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


COMPILED = CompiledCache(max_entries=64, max_bytes=2 * COMPILE_MEMORY_BYTES)


def compile_untrusted(source: str, flags: int = 0) -> regex.Pattern:
    """`source` compiled, once it has shown that it compiles small and
    matches within bounds; otherwise a ValueError saying why not."""
    key = (source, flags)
    compiled = COMPILED.get(key)
    if compiled is None:
        if in_capped_process():
            compiled, size = _compiled_in_place(source, flags)
        else:
            reason, size = _verdict(source, flags)
            if reason is not None:
                raise ValueError(reason)
            compiled = regex.compile(source, flags, cache_pattern=False)
        COMPILED.keep(key, compiled, size)
    return compiled


@functools.lru_cache(maxsize=256)
def _verdict(source: str, flags: int) -> Verdict:
    """Whether `source` may be compiled here, and what it takes; NoProbe
    (raised, so not kept) when no probe could try it."""
    reason = _shape_problem(source)
    if reason is not None:
        return Verdict(reason)
    if multiprocessing.current_process().daemon:
        # A daemonic process may start no process at all (multiprocessing
        # forbids it): a Dask worker counting for the command line, whose
        # client judged the regex before sending it. The app's server is no
        # daemon, nor is a visitor's job.
        return Verdict(_compile_problem(source, flags))
    return _probe_in_a_throwaway_process(source, flags, PROBE_MATCH_SECONDS, PROBE_CPU_SECONDS)


def _compiled_in_place(source: str, flags: int) -> tuple[regex.Pattern, int]:
    """In a capped process: checked and compiled here, held to what a probe
    allows (so that a job refuses what the server would), under its caps."""
    reason = _shape_problem(source)
    if reason is None:
        compiled, reason, size = _compiled_within_bounds(source, flags)
    if reason is not None:
        raise ValueError(reason)
    return compiled, size


def _shape_problem(source: str) -> str | None:
    if len(source) > MAX_REGEX_CHARS:
        return f"it is {len(source):,} characters long; the limit is {MAX_REGEX_CHARS:,}"
    if _RECURSION.search(source):
        return "it calls a group recursively, as in (?R) or (?1), which can use up all memory"
    return None


def _probe_in_a_throwaway_process(source: str, flags: int, match_seconds: float, cpu_seconds: int) -> Verdict:
    """The probe's verdict on `source`, once it has a turn; NoProbe if it
    cannot have one, or cannot start."""
    try:
        with CHECK_TURNS.turn(wait_seconds=PROBE_WAIT_SECONDS):
            return _probe_now(source, flags, match_seconds, cpu_seconds)
    except NoTurnError:
        raise NoProbe("the server is busy trying other regexes; try again in a minute") from None
    except UnsafeFolderError as error:
        raise NoProbe(f"this server cannot try regexes now ({error})") from None


def _probe_now(source: str, flags: int, match_seconds: float, cpu_seconds: int) -> Verdict:
    context = worker_context()
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_probe, args=(source, flags, match_seconds, cpu_seconds, sender), daemon=True)
    try:
        process.start()
    except OSError as error:  # no process to be had (too many open files, no memory to fork): not for good
        raise NoProbe(f"the server could not start a process to try it in ({error.strerror}); try again") from None
    finally:
        sender.close()
    try:
        if receiver.poll(PROBE_WAIT_SECONDS):
            return receiver.recv()
        raise NoProbe("the server is too busy to try it now; try again in a minute")  # its clock, not the regex's fault
    except EOFError:  # the probe died: the kernel stopped it at its processor time or its memory cap
        process.join()
        return Verdict(TOO_SLOW if process.exitcode == -signal.SIGXCPU else TOO_BIG)
    finally:
        receiver.close()
        end_worker(process)


def _probe(source: str, flags: int, match_seconds: float, cpu_seconds: int, sender) -> None:
    """In the probe: cap memory and processor time, compile within
    COMPILE_MEMORY_BYTES and measure it, try it, report. Processor time,
    not the clock, so that a busy machine does not refuse a regex that is
    merely waiting for a core."""
    cap_this_process(PROBE_MEMORY_BYTES, cpu_seconds, nice=PROBE_NICE)
    compiled_bytes = 0
    try:
        compiled, reason, compiled_bytes = _compiled_within_bounds(source, flags)
        if compiled is not None:
            compiled.findall(PROBE_TEXT, timeout=match_seconds)
    except (MemoryError, RecursionError):
        reason = TOO_BIG
    except TimeoutError:
        reason = "it takes too long to match a short text (it backtracks catastrophically)"
    sender.send(Verdict(reason, compiled_bytes))


def _compiled_within_bounds(source: str, flags: int) -> tuple[regex.Pattern | None, str | None, int]:
    """(`source` compiled or None, why not or None, the memory it holds),
    compiled with this process's address space held to
    COMPILE_MEMORY_BYTES more for as long as compiling takes. (The limit is
    the whole process's: in a job, whose other threads, if any, wait while
    it compiles its split pattern.)"""
    try:
        import resource
    except ImportError:  # not Linux: this process's own caps alone
        reason = _compile_problem(source, flags)
        return (None if reason else regex.compile(source, flags, cache_pattern=False)), reason, 0
    regex.compile(r"\w+|\s", cache_pattern=False)  # a process's first regex sets up the module: not this one's size
    before = _resident_bytes()
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    held = address_space() + COMPILE_MEMORY_BYTES
    resource.setrlimit(resource.RLIMIT_AS, (held if hard == resource.RLIM_INFINITY else min(held, hard), hard))
    try:
        compiled = regex.compile(source, flags, cache_pattern=False)
    except MemoryError:
        return None, TOO_BIG_TO_COMPILE, 0
    except (regex.error, OverflowError, RecursionError, ValueError) as error:
        return None, f"it is not a valid regular expression ({error})", 0
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    return compiled, None, max(_resident_bytes() - before, 0)


def _compile_problem(source: str, flags: int) -> str | None:
    try:
        regex.compile(source, flags, cache_pattern=False)
    except (regex.error, OverflowError, RecursionError, ValueError) as error:
        return f"it is not a valid regular expression ({error})"
    return None


def _resident_bytes() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmRSS:"))
