"""Compiling a regex that someone typed, without handing them the machine.

A regular expression is a small program. The `regex` module runs one with a
deadline (`timeout=`), but compiling has none: `(?:a{65535}){65535}`,
nineteen characters, asks for gigabytes before the first match, and
`(?R)?a` recurses until memory runs out as soon as it matches anything. So
a regex from a user, a link or a file is compiled, and tried on a sample of
awkward text, first in a throwaway process with a memory cap and a
deadline; only one that passes is compiled here. Recursion (`(?R)`,
`(?1)`, `(?&name)`) is refused outright: splitting text never needs it.
"""

from __future__ import annotations

import functools
import signal

import regex

from .worker_processes import worker_context

MAX_REGEX_CHARS = 1_000  # the presets are under 400; a regex this long is not a split rule
PROBE_CPU_SECONDS = 10  # of processor time, for the throwaway process to compile the regex and try it
PROBE_MATCH_SECONDS = 2.0  # of that, for trying it on the sample text
PROBE_WAIT_SECONDS = 120.0  # of the clock: on a busy machine the probe may get little of a core
PROBE_MEMORY_BYTES = 512_000_000  # the throwaway process may grow by this much
PROBE_TEXT = (
    "Hello, world! It's 2024: 12345 + 67890 = 80235.\n\tdef f(x):\n        return x  # ok\n"
    "नमस्ते दुनिया · こんにちは世界 · مرحبا · Привет · 👩‍💻👍🏽 " + "a" * 2_000 + " " * 200 + "\n"
) * 4

# A group that calls a group: (?R), (?0), (?1), (?+1), (?-1), (?&name), (?P>name).
_RECURSION = regex.compile(r"(?<!\\)(?:\\\\)*\(\?(?:R|[+-]?\d+|&\w+|P>\w+)\)")


def compile_untrusted(source: str, flags: int = 0) -> regex.Pattern:
    """`source` compiled, once it has shown that it compiles and matches
    within bounds; otherwise a ValueError saying why not (kept, so a bad
    regex is judged once, not at every rerun of a page)."""
    reason = _verdict(source, flags)
    if reason is not None:
        raise ValueError(reason)
    return regex.compile(source, flags)


@functools.lru_cache(maxsize=256)
def _verdict(source: str, flags: int) -> str | None:
    """None for a regex safe to compile here, else why it is not."""
    if len(source) > MAX_REGEX_CHARS:
        return f"it is {len(source):,} characters long; the limit is {MAX_REGEX_CHARS:,}"
    if _RECURSION.search(source):
        return "it calls a group recursively, as in (?R) or (?1), which can use up all memory"
    return _probe_in_a_throwaway_process(source, flags, PROBE_MATCH_SECONDS, PROBE_CPU_SECONDS)


def _probe_in_a_throwaway_process(source: str, flags: int, match_seconds: float, cpu_seconds: int) -> str | None:
    context = worker_context()
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_probe, args=(source, flags, match_seconds, cpu_seconds, sender), daemon=True)
    try:
        process.start()
    except (OSError, AssertionError):  # no processes to be had here (or a daemon's, such as a Dask
        # worker, which may start none: its client probed the regex already): the syntax checks above must do
        return _compile_error(source, flags)
    sender.close()
    try:
        if receiver.poll(PROBE_WAIT_SECONDS):
            return receiver.recv()
        return TOO_SLOW
    except EOFError:  # the probe died: the kernel stopped it at its processor time or its memory cap
        process.join()
        return TOO_SLOW if process.exitcode == -signal.SIGXCPU else TOO_BIG
    finally:
        process.kill()
        process.join()


TOO_SLOW = f"it takes more than {PROBE_CPU_SECONDS} s to compile and try on a short text"
TOO_BIG = f"it needs more than {PROBE_MEMORY_BYTES // 1_000_000:,} MB to compile or to match a short text"


def _probe(source: str, flags: int, match_seconds: float, cpu_seconds: int, sender) -> None:
    """In the throwaway process: cap memory and processor time, compile, try
    it, report. Processor time, not the clock, so that a busy machine does
    not refuse a regex that is merely waiting for a core."""
    try:
        import resource

        grown = _address_space() + PROBE_MEMORY_BYTES
        resource.setrlimit(resource.RLIMIT_AS, (grown, grown))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    except (ImportError, OSError, ValueError):  # not Linux: the deadline alone bounds the probe
        pass
    try:
        reason = _compile_error(source, flags)
        if reason is None:
            regex.compile(source, flags).findall(PROBE_TEXT, timeout=match_seconds)
    except (MemoryError, RecursionError):
        reason = TOO_BIG
    except TimeoutError:
        reason = "it takes too long to match a short text (it backtracks catastrophically)"
    sender.send(reason)


def _compile_error(source: str, flags: int) -> str | None:
    try:
        regex.compile(source, flags)
    except (regex.error, OverflowError, RecursionError, ValueError) as error:
        return f"it is not a valid regular expression ({error})"
    return None


def _address_space() -> int:
    """This process's virtual memory size, in bytes."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise OSError("no VmSize in /proc/self/status")
