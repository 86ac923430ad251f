"""An iterator's items produced in a background thread while the caller works on the ones before.

Import parses and checks the lines of a file (pure Python) while the store writes the batch before: DuckDB lets go
of Python's lock while it writes, so the two overlap on a machine's second core. At most `depth` items wait, so
memory stays bounded; an error of the producer is raised in the caller, in order; a caller that stops early
(an error, a stop signal) stops the producer after the item it is making.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from queue import Queue
from typing import Any, TypeVar

T = TypeVar("T")

_DONE = object()


class _Failed:
    def __init__(self, error: BaseException) -> None:
        self.error = error


def prefetched(items: Iterable[T], depth: int = 2) -> Iterator[T]:
    """`items`, each made in a background thread up to `depth` items ahead of the caller."""
    waiting: Queue[Any] = Queue()  # never full: `room` bounds it, so the producer never blocks on a put
    room = threading.Semaphore(depth)
    stop = threading.Event()

    def produce() -> None:
        iterator = iter(items)
        try:
            while True:
                room.acquire()
                if stop.is_set():
                    return
                try:
                    item = next(iterator)
                except StopIteration:
                    waiting.put(_DONE)
                    return
                waiting.put(item)
        except BaseException as error:  # handed to the caller, who raises it where the item would have been
            waiting.put(_Failed(error))
        finally:
            close = getattr(iterator, "close", None)
            if close is not None:
                close()  # a generator's files are closed in the thread that ran it

    thread = threading.Thread(target=produce, name="prefetch", daemon=True)
    thread.start()
    try:
        while (item := waiting.get()) is not _DONE:
            if isinstance(item, _Failed):
                raise item.error
            room.release()
            yield item
    finally:
        stop.set()
        room.release()  # a producer waiting for room wakes, sees `stop` and ends
        thread.join()
