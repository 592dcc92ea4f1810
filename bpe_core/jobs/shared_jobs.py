"""Identical requests share one job.

A room of visitors opening the same link asks for the same training at the
same moment; without sharing, each would take a turn at the machine's cores
(see `machine_turns`) and do the same work. Here the first request runs the
job and the others wait for its result, hearing its progress as it goes.

A job's result is every waiter's answer, and so is its failure: a verdict
(a ValueError: bad settings, over budget) or a bug, raised once, not once
per waiter. One ending only is not: a job stopped by the visitor who ran it
(a click on Cancel, a closed tab: an exception raised in that visitor's
own `progress` or `waiting`) ends only their wait; the next waiter runs the
job instead.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

Result = TypeVar("Result")
Listener = Callable[..., None]
POLL_SECONDS = 0.25  # how often a waiter passes on the job's latest news (and hears its own Cancel)


class _Running(Generic[Result]):
    def __init__(self):
        self.finished = threading.Event()
        self.news: tuple[str, tuple] | None = None  # ("progress", (done, total)) or ("waiting", (ahead,))
        self.result: Result | None = None
        self.error: BaseException | None = None
        self.stopped_by_its_runner = False  # its runner's own listener raised: they cancelled, nobody else did


class SharedJobs(Generic[Result]):
    def __init__(self):
        self._running: dict[Hashable, _Running[Result]] = {}
        self._lock = threading.Lock()

    def run(
        self,
        key: Hashable,
        job: Callable[[Listener, Listener], Result],
        *,
        progress: Listener | None = None,
        waiting: Listener | None = None,
    ) -> Result:
        """`job(progress, waiting)`, unless a job of the same `key` is running
        already: then its result. Either way this caller hears the job's
        progress and place in line through its own `progress` and `waiting`."""
        listeners = {"progress": progress, "waiting": waiting}
        while True:
            with self._lock:
                running = self._running.get(key)
                runs_it = running is None
                if runs_it:
                    running = self._running[key] = _Running()
            if runs_it:
                return self._run(key, running, job, listeners)
            while not running.finished.wait(POLL_SECONDS):
                _tell(listeners, running.news)
            if running.error is None:
                return running.result
            if not running.stopped_by_its_runner:
                raise running.error
            # Stopped by the visitor who ran it: run it for this one.

    def _run(self, key: Hashable, running: _Running[Result], job, listeners: dict) -> Result:
        def hear(kind: str) -> Listener:
            def listener(*values) -> None:
                running.news = (kind, values)
                try:
                    _tell(listeners, running.news)
                except BaseException:
                    running.stopped_by_its_runner = True
                    raise
            return listener

        try:
            running.result = job(hear("progress"), hear("waiting"))
            return running.result
        except BaseException as error:
            running.error = error
            raise
        finally:
            with self._lock:
                del self._running[key]
            running.finished.set()


def _tell(listeners: dict, news: tuple[str, tuple] | None) -> None:
    if news is not None and listeners[news[0]] is not None:
        listeners[news[0]](*news[1])
