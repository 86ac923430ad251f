"""core/prefetch.py: items made in a background thread come in order, errors where they happened, and a caller that
stops early stops the producer."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from core.prefetch import prefetched


def test_items_come_in_order_and_all_of_them() -> None:
    assert list(prefetched(range(1000))) == list(range(1000))
    assert list(prefetched([])) == []
    assert list(prefetched(iter([[1, 2], [3]]), depth=1)) == [[1, 2], [3]]


def test_the_producer_is_never_more_than_depth_items_ahead() -> None:
    made: list[int] = []

    def producer() -> Iterator[int]:
        for number in range(50):
            made.append(number)
            yield number

    for taken, number in enumerate(prefetched(producer(), depth=3), start=1):
        assert number == taken - 1
        assert len(made) <= taken + 3  # the item handed over, three waiting, none beyond


def test_an_error_of_the_producer_is_raised_after_the_items_before_it() -> None:
    def producer() -> Iterator[int]:
        yield 1
        yield 2
        raise ValueError("line 3 cannot be read")

    got: list[int] = []
    with pytest.raises(ValueError, match="line 3 cannot be read"):
        for number in prefetched(producer()):
            got.append(number)
    assert got == [1, 2]


def test_a_caller_that_stops_early_stops_the_producer_and_its_files_are_closed() -> None:
    closed = threading.Event()
    made: list[int] = []

    def producer() -> Iterator[int]:
        try:
            for number in range(10**9):
                made.append(number)
                yield number
        finally:
            closed.set()  # as a generator closes the file it reads

    with pytest.raises(RuntimeError, match="stopped"):
        for number in prefetched(producer(), depth=2):
            if number == 5:
                raise RuntimeError("stopped")  # a stop signal, or the store's error
    assert closed.is_set()  # set before prefetched returned: the producer's thread has ended
    assert len(made) <= 6 + 2 + 1
    assert not [t for t in threading.enumerate() if t.name == "prefetch"]
