"""A cache that every session shares, bounded by entries and by bytes.

`st.cache_resource` bounds a cache by its number of entries only, and a
tokenizer can be a few kilobytes or a few hundred megabytes. The server
must level off however many visitors come and go, so what is large and
shared (tokenizers trained here, a corpus's piece counts, a vocabulary's
table) is kept here instead: the least recently used entry goes first once
either bound is passed. What two threads ask for at once is made once: the
second waits for the first (a visit and the server's warm-up both wanting
Vocabulary's table would otherwise each build it, on the same two cores).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any


class SharedCache:
    def __init__(self, max_entries: int, max_bytes: int):
        self.max_entries, self.max_bytes = max_entries, max_bytes
        self._entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()  # sessions run in threads of their own
        self._making: dict[Hashable, _Making] = {}  # keys being made now, by whoever asked first

    def get(self, key: Hashable) -> Any | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            return entry[0]

    def put(self, key: Hashable, value: Any, size: int) -> None:
        """Keep `value` (about `size` bytes) under `key`, evicting the least
        recently used entries; one larger than the whole cache is not kept."""
        with self._lock:
            if key in self._entries:
                self._bytes -= self._entries.pop(key)[1]
            if size > self.max_bytes:
                return
            self._entries[key] = (value, size)
            self._bytes += size
            while len(self._entries) > self.max_entries or self._bytes > self.max_bytes:
                self._bytes -= self._entries.popitem(last=False)[1][1]

    def get_or_make(self, key: Hashable, make: Callable[[], Any], size_of: Callable[[Any], int]) -> Any:
        """The value kept under `key`, made (and kept, if it fits) when there
        is none. Asked for while another thread makes it, it waits for that
        one's value (and makes it itself if that one failed)."""
        while True:
            with self._lock:
                entry = self._entries.get(key)
                if entry is not None:
                    self._entries.move_to_end(key)
                    return entry[0]
                making = self._making.get(key)
                if making is None:
                    making = self._making[key] = _Making()
                    break
            making.done.wait()
            if making.made:
                return making.value
        try:
            making.value = make()
            making.made = True
            self.put(key, making.value, size_of(making.value))
            return making.value
        finally:
            with self._lock:
                del self._making[key]
            making.done.set()

    @property
    def size(self) -> tuple[int, int]:
        """(entries, bytes) held now."""
        with self._lock:
            return len(self._entries), self._bytes


class _Making:
    """A value one thread is making, for others asking meanwhile to wait for."""

    def __init__(self):
        self.done = threading.Event()
        self.made = False
        self.value: Any = None
