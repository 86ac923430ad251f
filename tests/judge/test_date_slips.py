"""A date the context never writes with its month is asked about; one written another way is not."""

from __future__ import annotations

from judge.heuristic import near_miss

REPORT = (
    "In February 2022, NVIDIA and SoftBank announced the termination of the agreement. "
    "| Year Ended | Jan 29, 2023 | Jan 28, 2024 |"
)


def test_a_year_taken_from_another_event_is_a_slip() -> None:
    why = near_miss("2023-02", REPORT)
    assert why is not None and "2023" in why
    assert near_miss("2021-02-03", REPORT) is not None  # a year the context never writes


def test_a_date_the_context_writes_in_words_or_digits_is_not() -> None:
    assert near_miss("2022-02", REPORT) is None
    assert near_miss("2023-01-29", REPORT) is None
    assert near_miss("2023-03-02", "Filed on 2/3/2023 by the clerk.") is None  # a numeric date, either order
