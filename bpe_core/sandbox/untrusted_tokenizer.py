"""Trying a tokenizer.json someone brought, before it is kept.

Hugging Face's `tokenizers` compiles the regexes a tokenizer.json names
(a Split pre-tokenizer's, a Replace normalizer's) and runs them in Rust, with
no deadline: a file can hold a regex that backtracks for hours on a line of
text, or a vocabulary that asks for gigabytes. So a visitor's file is first
loaded, and made to encode a sample of awkward text, in a throwaway process
with a memory cap and a limit on processor time, as a typed regex is (see
`untrusted_regex`); only a file that passes is kept, in a host process of
its own (`hosts`). Oniguruma, the regex engine `tokenizers` uses, gives up on
a match that backtracks too long (its retry limit), which `tokenizers`
reports as a Rust panic (`is_panic`). A sample cannot show what every text
costs (a regex may be slow without backtracking: `\\s*x|\\S` on a long run
of spaces), which is why the host gives every later encoding a deadline too.
"""

from __future__ import annotations

import hashlib
import signal

from .untrusted_regex import PROBE_TEXT, PROBE_WAIT_SECONDS
from .machine_turns import CHECK_TURNS, NoTurnError, UnsafeFolderError
from .worker_processes import cap_this_process, end_worker, helper_context

PROBE_CPU_SECONDS = 30  # Gemma 3's 33 MB file loads in about 3 s
PROBE_MEMORY_BYTES = 2_000_000_000  # ... and takes about 300 MB

TOO_SLOW = f"it takes more than {PROBE_CPU_SECONDS} s of processor time to load and encode a short text"
TOO_BIG = f"it needs more than {PROBE_MEMORY_BYTES // 1_000_000_000} GB to load and encode a short text"
STOPPED = (f"loading it and encoding a short text stopped the process trying it (more than "
           f"{PROBE_MEMORY_BYTES // 1_000_000_000} GB, or a crash)")


def check_untrusted_tokenizer(tokenizer_json: str) -> str | None:
    """None if `tokenizers` loads this file and encodes a sample within
    bounds, else why not. A verdict is kept (a file is judged once, not at
    every rerun), but not the lack of one: a file that found no process or
    no turn to be tried in is tried again next time. Verdicts are kept by
    the file's SHA-256, not the file: a cache keyed by the text would hold
    up to 16 visitors' 50 MB files for the server's lifetime."""
    fingerprint = hashlib.sha256(tokenizer_json.encode("utf-8", "surrogatepass")).hexdigest()
    if fingerprint not in _VERDICTS:
        try:
            verdict = _verdict(tokenizer_json)
        except NoProbe as no_probe:
            return str(no_probe)
        _VERDICTS[fingerprint] = verdict
        while len(_VERDICTS) > KEPT_VERDICTS:
            del _VERDICTS[next(iter(_VERDICTS))]  # the oldest
    return _VERDICTS[fingerprint]


KEPT_VERDICTS = 256
_VERDICTS: dict[str, str | None] = {}  # SHA-256 of a file -> its verdict, oldest first


class NoProbe(Exception):
    """No probe could be had for a file just now."""


def _verdict(tokenizer_json: str) -> str | None:
    try:
        with CHECK_TURNS.turn(wait_seconds=PROBE_WAIT_SECONDS):  # a turn in the machine's line for checks
            return _probe_now(tokenizer_json)
    except NoTurnError:
        raise NoProbe("the server is busy checking other visitors' files; try again in a minute") from None
    except UnsafeFolderError as error:
        raise NoProbe(f"this server cannot try files now ({error})") from None


def _probe_now(tokenizer_json: str) -> str | None:
    context = helper_context()
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_probe, args=(tokenizer_json, sender), daemon=True)
    try:
        process.start()
    except (OSError, AssertionError) as error:
        raise NoProbe(f"there is no process to try it in here ({error})") from None
    finally:
        sender.close()
    try:
        if receiver.poll(PROBE_WAIT_SECONDS):
            return receiver.recv()
        raise NoProbe("the server is too busy to try it now; try again in a minute")  # the clock's, not the file's
    except EOFError:  # the kernel stopped it at its processor time or its memory cap, or it crashed
        process.join()
        return TOO_SLOW if process.exitcode in (-signal.SIGXCPU, -signal.SIGKILL) else STOPPED
    finally:
        receiver.close()
        end_worker(process)


def _probe(tokenizer_json: str, sender) -> None:
    """In the throwaway process: cap memory and processor time, load, encode, report."""
    cap_this_process(PROBE_MEMORY_BYTES, PROBE_CPU_SECONDS)
    import os

    os.environ["RAYON_NUM_THREADS"] = "1"
    try:
        import tokenizers

        tokenizer = tokenizers.Tokenizer.from_str(tokenizer_json)
        tokenizer.encode(PROBE_TEXT, add_special_tokens=False)
        reason = None
    except MemoryError:
        reason = TOO_BIG
    except BaseException as error:  # noqa: BLE001 - tokenizers' own exceptions, and its Rust panics
        if is_panic(error):
            reason = f"Hugging Face's tokenizers gave up encoding a short text with it ({first_line(error)})"
        elif isinstance(error, Exception):
            reason = f"Hugging Face's tokenizers cannot load it ({first_line(error)})"
        else:
            raise
    sender.send(reason)


def is_panic(error: BaseException) -> bool:
    """Whether `tokenizers` stopped on a Rust panic (pyo3's PanicException,
    which derives from BaseException: an `except Exception` lets it through)."""
    return type(error).__name__ == "PanicException"


def first_line(error: BaseException) -> str:
    return str(error).splitlines()[0][:300] if str(error) else type(error).__name__
