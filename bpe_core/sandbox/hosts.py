"""An object made from a visitor's input, held in a capped process of its own and called with a deadline.

A visitor's tokenizer.json is code of a sort: Hugging Face's `tokenizers`
runs its regexes in Rust, holding the interpreter lock and reading no
clock. Making it (`untrusted_tokenizer`) shows that a file loads and encodes
a sample within bounds, but no sample shows what every text costs: a Split
pattern such as `\\s*x|\\S` splits the sample at once and spends
seconds on one run of 20,000 spaces, which in the server's own process
would hold every visitor's page meanwhile. So the server never runs such
an object itself. A *host* process makes it (once, not at every call) and
holds it, and every call to it is made there, bounded:

- by a memory cap for the host's whole life, and the cores the servers do
  not serve from (`worker_processes.cap_this_process`);
- by a deadline of processor time for each call, kept by the kernel: before
  a call the host sets its profiling timer (ITIMER_PROF, which counts the
  processor time of all its threads) to the call's seconds, and the kernel
  ends it with SIGPROF once they are spent (nothing in the host handles the
  signal). Processor time, not the clock: a busy machine makes a call wait
  longer, never refuses it;
- by a turn: making the object (loading a file takes seconds) waits in the
  machine's line for checks, as a probe does, and each call in the line
  for calls (`machine_turns.CALL_TURNS`), one at a time on the machine.

The server's thread waits for the answer on a pipe, which lets every other
thread run meanwhile. A host that runs out of time or memory is gone, and
the call says so (`HostProblem`); the next call starts a fresh one. The
server keeps at most `MAX_HOSTS`, the least recently used ended first; a
host that nobody called for `IDLE_SECONDS` ends by itself (a tokenizer
holds hundreds of MB: Gemma 3's host 0.6 GB) and is started again when
next called; and each ends with the server (its lifeline, see
`worker_processes`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .machine_turns import CALL_TURNS, CHECK_TURNS, MachineTurns, NoTurnError, UnsafeFolderError
from .worker_processes import cap_this_process, end_group_with, end_worker, lifeline, worker_context

MAX_HOSTS = 3  # per server process, each within its memory cap
WAIT_SECONDS = 120.0  # of the clock, for a turn and for an answer: on a busy machine a host may get little of a core
IDLE_SECONDS = 600.0  # without a call, after which a host ends by itself
_IDLE_EXIT = 0  # the exit code of a host that ended so


class HostProblem(ValueError):
    """A call that did not finish, said as what the object did ("took more than 3 s ...")."""


class HostUnavailable(HostProblem):
    """A call that found no host, or no answer in time: the server's state
    then, not the object's doing (the same call may succeed later)."""


class _Retired(Exception):
    """The host was ended by the pool while a call waited for it: the call is made again in a fresh one."""


@dataclass(frozen=True)
class Recipe:
    """How a host makes its object: `make(*arguments)`, within `seconds` of
    processor time, in a process that may grow by `memory_bytes`. `key`
    tells objects apart (a digest of the arguments): one host per key."""

    key: str
    make: Callable
    arguments: tuple
    seconds: float
    memory_bytes: int


class Host:
    """One host process and the object it made, or HostProblem."""

    def __init__(self, recipe: Recipe):
        context = worker_context()  # the server runs many threads: no fork of it (see `worker_processes`)
        self._connection, theirs = context.Pipe()
        their_lifeline, self._lifeline = lifeline(context)
        self._process = context.Process(target=_serve, args=(theirs, their_lifeline, recipe.memory_bytes, IDLE_SECONDS),
                                        name="host", daemon=True)
        self._lock = threading.Lock()  # one call at a time
        self._memory_bytes = recipe.memory_bytes
        self.retired = False
        try:
            self._process.start()
        except (OSError, EOFError) as error:  # no process to be had now (too many open files, no memory to fork)
            self._close()
            raise HostUnavailable(f"found no process to run in ({error}); try again in a minute") from None
        finally:
            theirs.close()
            their_lifeline.close()
        try:
            self.call(_MAKE, (recipe.make, *recipe.arguments), recipe.seconds)
        except BaseException:  # the object could not be made: nothing to keep
            if not self.retired:
                self._end()
            raise

    def call(self, method: str, arguments: tuple, seconds: float):
        """`object.method(*arguments)`, made in the host within `seconds` of its processor time."""
        with self._lock:
            if self.retired:
                raise _Retired
            try:
                self._connection.send((method, arguments, seconds))
                if not self._connection.poll(WAIT_SECONDS + seconds):
                    self._end()
                    raise HostUnavailable(f"did not finish within {WAIT_SECONDS:g} s of the clock: the server is too "
                                      "busy now; try again in a minute")
                kind, value = self._connection.recv()
            except (EOFError, OSError):  # the host is gone: the kernel ended it, or the pool, or its idleness
                self._end()
                if self.retired or self._process.exitcode == _IDLE_EXIT:
                    raise _Retired from None
                if self._process.exitcode == -signal.SIGPROF:
                    raise HostProblem(f"took more than {seconds:g} s of processor time") from None
                raise HostProblem(f"needed more than {_memory_words(self._memory_bytes)} of memory, or crashed") from None
        if kind == "raised":
            raise value
        return value

    def alive(self) -> bool:
        return not self.retired and self._process.is_alive()

    def retire(self) -> None:
        """End the host from outside its calls (the pool evicts it): a call
        waiting for it is made again in a fresh one."""
        self.retired = True
        end_worker(self._process)
        if self._lock.acquire(blocking=False):  # else the waiting call closes what is left
            try:
                self._close()
            finally:
                self._lock.release()

    def _end(self) -> None:
        end_worker(self._process)
        self._close()

    def _close(self) -> None:
        self._connection.close()
        self._lifeline.close()


class Hosts:
    """At most `max_hosts` hosts, by their recipes' keys, the least recently used ended first."""

    def __init__(self, max_hosts: int):
        self.max_hosts = max_hosts
        self._hosts: OrderedDict[str, Host] = OrderedDict()
        self._lock = threading.Lock()

    def call(self, recipe: Recipe, method: str, *arguments, seconds: float):
        """`method(*arguments)` of the object `recipe` makes, in its host
        (started first if there is none), within `seconds` of processor time.
        HostProblem if it did not finish; what the object raises, raised here."""
        for _ in range(3):
            host = self.host(recipe)
            try:
                with _turn(CALL_TURNS, "calls"):
                    return host.call(method, arguments, seconds)
            except _Retired:
                continue  # evicted meanwhile by another visitor's host: a fresh one
            except HostProblem:
                self._forget(recipe.key, host)
                raise
        raise HostUnavailable(f"found the server's {self.max_hosts} hosts taken by other visitors at every try; try "
                          "again in a minute")

    def host(self, recipe: Recipe) -> Host:
        """The host of `recipe`'s object, started (in its turn among checks) if there is none."""
        with self._lock:
            host = self._hosts.get(recipe.key)
            if host is not None and host.alive():
                self._hosts.move_to_end(recipe.key)
                return host
        with _turn(CHECK_TURNS, "checks"):
            host = Host(recipe)
        with self._lock:
            earlier = self._hosts.get(recipe.key)
            self._hosts[recipe.key] = host
            self._hosts.move_to_end(recipe.key)
            evicted = [earlier] if earlier is not None else []
            while len(self._hosts) > self.max_hosts:
                evicted.append(self._hosts.popitem(last=False)[1])
        for old in evicted:
            old.retire()
        return host

    def _forget(self, key: str, host: Host) -> None:
        with self._lock:
            if self._hosts.get(key) is host:
                del self._hosts[key]

    def __len__(self) -> int:
        with self._lock:
            return sum(host.alive() for host in self._hosts.values())

    def close(self) -> None:
        with self._lock:
            hosts, self._hosts = list(self._hosts.values()), OrderedDict()
        for host in hosts:
            host.retire()


@contextlib.contextmanager
def _turn(turns: MachineTurns, line: str) -> Iterator[None]:
    try:
        with turns.turn(wait_seconds=WAIT_SECONDS):
            yield
    except NoTurnError:
        raise HostUnavailable(f"found the server busy with other visitors' {line}; try again in a minute") from None
    except UnsafeFolderError as error:
        raise HostUnavailable(f"cannot run on this server now ({error})") from None


def _memory_words(memory_bytes: int) -> str:
    return f"{memory_bytes / 1e9:g} GB" if memory_bytes >= 1e9 else f"{memory_bytes // 1_000_000:,} MB"


# ------------------------------------------------------------ in the host

_MAKE = "(make)"  # the first request: the object's recipe


def _serve(connection, lifeline_end, memory_bytes: int, idle_seconds: float) -> None:
    """In the host: cap memory, then make the object and answer calls, each
    within its processor time, until the server closes the pipe or has not
    called for `idle_seconds`."""
    end_group_with(lifeline_end)
    cap_this_process(memory_bytes)
    os.environ["RAYON_NUM_THREADS"] = "1"  # one core's work, as in a job (see `budgeted_jobs`)
    held = None
    while True:
        try:
            if not connection.poll(idle_seconds):
                os._exit(_IDLE_EXIT)
            method, arguments, seconds = connection.recv()
        except EOFError:  # the server is done with it
            return
        signal.setitimer(signal.ITIMER_PROF, seconds)  # SIGPROF, which ends the host, once they are spent
        try:
            if method == _MAKE:
                make, *arguments = arguments
                held, reply = make(*arguments), ("done", None)
            else:
                reply = ("done", getattr(held, method)(*arguments))
        except MemoryError:
            os._exit(1)  # as the kernel's cap would end it: the server says it needed more memory
        except Exception as error:  # noqa: BLE001 - the object's own verdict, raised in the server
            reply = ("raised", error)
        signal.setitimer(signal.ITIMER_PROF, 0)
        try:
            connection.send(reply)
        except Exception as error:  # noqa: BLE001 - an error that does not pickle: its words
            connection.send(("raised", RuntimeError(f"{type(error).__name__}: {error}")))


HOSTS = Hosts(MAX_HOSTS)
