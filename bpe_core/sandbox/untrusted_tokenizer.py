"""Trying a tokenizer.json someone brought, before loading it here.

Hugging Face's `tokenizers` compiles the regexes a tokenizer.json names
(a Split pre-tokenizer's, a Replace normalizer's) and runs them in Rust, with
no deadline: a file can hold a regex that backtracks for hours on a line of
text, or a vocabulary that asks for gigabytes. So a visitor's file is first
loaded, and made to encode a sample of awkward text, in a throwaway process
with a memory cap and a limit on processor time, as a typed regex is (see
`untrusted_regex`); only a file that passes is loaded in the caller's
process. Oniguruma, the regex engine `tokenizers` uses, gives up on a match
that backtracks too long (its retry limit), which `tokenizers` reports as a
Rust panic (`is_panic`): a regex that only some other text sends into
backtracking costs that text its encoding, not the server its time.
"""

from __future__ import annotations

import functools
import signal

from .untrusted_regex import PROBE_TEXT, PROBE_WAIT_SECONDS, _address_space
from .worker_processes import helper_context

PROBE_CPU_SECONDS = 30  # Gemma 3's 33 MB file loads in about 3 s
PROBE_MEMORY_BYTES = 2_000_000_000  # ... and takes about 300 MB

TOO_SLOW = f"it takes more than {PROBE_CPU_SECONDS} s of processor time to load and encode a short text"
TOO_BIG = f"it needs more than {PROBE_MEMORY_BYTES // 1_000_000_000} GB to load and encode a short text"
STOPPED = (f"loading it and encoding a short text stopped the process trying it (more than "
           f"{PROBE_MEMORY_BYTES // 1_000_000_000} GB, or a crash)")


@functools.lru_cache(maxsize=16)
def check_untrusted_tokenizer(tokenizer_json: str) -> str | None:
    """None if `tokenizers` loads this file and encodes a sample within
    bounds, else why not (kept: a file is judged once, not at every rerun)."""
    context = helper_context()
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_probe, args=(tokenizer_json, sender), daemon=True)
    try:
        process.start()
    except (OSError, AssertionError) as error:
        return f"there is no process to try it in here ({error})"
    sender.close()
    try:
        if receiver.poll(PROBE_WAIT_SECONDS):
            return receiver.recv()
        return TOO_SLOW
    except EOFError:  # the kernel stopped it at its processor time or its memory cap, or it crashed
        process.join()
        return TOO_SLOW if process.exitcode in (-signal.SIGXCPU, -signal.SIGKILL) else STOPPED
    finally:
        process.kill()
        process.join()


def _probe(tokenizer_json: str, sender) -> None:
    """In the throwaway process: cap memory and processor time, load, encode, report."""
    try:
        import resource

        grown = _address_space() + PROBE_MEMORY_BYTES
        resource.setrlimit(resource.RLIMIT_AS, (grown, grown))
        resource.setrlimit(resource.RLIMIT_CPU, (PROBE_CPU_SECONDS, PROBE_CPU_SECONDS + 1))
    except (ImportError, OSError, ValueError):  # not Linux: the clock alone bounds it
        pass
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
