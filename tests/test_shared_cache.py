"""The cache every session shares (pages/common/shared_cache.py): what two
threads ask for at once is made once."""

from __future__ import annotations

import threading

import pytest

from pages.common.shared_cache import SharedCache


def asked_at_once(cache: SharedCache, make) -> list:
    """Two threads asking for the same key, the second while the first makes it."""
    results, errors = [], []

    def ask() -> None:
        try:
            results.append(cache.get_or_make("key", make, lambda value: 10))
        except RuntimeError as error:
            errors.append(error)

    first = threading.Thread(target=ask)
    first.start()
    making.wait(timeout=60)  # the first is inside `make`
    second = threading.Thread(target=ask)
    second.start()
    while not cache._making["key"].done._cond._waiters:  # the second waits for the first's value
        assert second.is_alive()
        threading.Event().wait(0.001)
    release.set()
    first.join(timeout=60)
    second.join(timeout=60)
    return results + errors


making, release = threading.Event(), threading.Event()


@pytest.fixture(autouse=True)
def fresh_events():
    making.clear()
    release.clear()


def test_what_two_threads_ask_for_at_once_is_made_once_and_both_get_it():
    made = []

    def make():
        made.append(1)
        making.set()
        release.wait(timeout=60)
        return ["the value"]

    cache = SharedCache(max_entries=4, max_bytes=100)
    first, second = asked_at_once(cache, make)
    assert len(made) == 1 and first is second and cache.get("key") is first


def test_a_value_too_large_to_keep_still_reaches_whoever_waited_for_it():
    def make():
        making.set()
        release.wait(timeout=60)
        return ["large"]

    cache = SharedCache(max_entries=4, max_bytes=5)  # every value is 10 bytes here
    first, second = asked_at_once(cache, make)
    assert first is second and cache.get("key") is None


def test_when_the_maker_fails_the_one_waiting_makes_it_itself():
    made = []

    def make():
        made.append(1)
        if len(made) == 1:
            making.set()
            release.wait(timeout=60)
            raise RuntimeError("the first attempt fails")
        return "made by the second"

    cache = SharedCache(max_entries=4, max_bytes=100)
    outcomes = asked_at_once(cache, make)
    assert len(made) == 2 and "made by the second" in outcomes
    assert any(isinstance(outcome, RuntimeError) for outcome in outcomes)
    assert cache.get("key") == "made by the second" and not cache._making
