"""Dates and decades however written (validation/date_mentions.py reads the dates themselves)."""

from __future__ import annotations

import re

from validation.date_mentions import iso_date_places
from validation.readings.numbers import Place

_DECADE_VALUE = re.compile(r"^\s*(\d{2})(\d)0'?s\s*$")


_DECADE_WORDS = {
    "twenties": 2, "thirties": 3, "forties": 4, "fifties": 5, "sixties": 6, "seventies": 7, "eighties": 8,
    "nineties": 9,
}  # fmt: skip


def decade_places(value: str, text: str) -> list[Place]:
    """ "1990s" for "the 90s", "'90s", "nineties" or "1990s"."""
    match = _DECADE_VALUE.match(value)
    if match is None:
        return []
    century, decade = match.group(1), int(match.group(2))
    patterns = [rf"\b{century}{decade}0'?s\b", rf"(?<![\d])['’]?{decade}0'?s\b", rf"\b{century}{decade}\d\b"]
    words = [w for w, d in _DECADE_WORDS.items() if d == decade]
    patterns += [rf"\b{w}\b" for w in words]
    places: list[Place] = []
    for pattern in patterns:
        places += [(m.start(), m.end(), "normalised") for m in re.finditer(pattern, text, re.IGNORECASE)]
    return places


def date_places(value: str, text: str) -> list[Place]:
    """An ISO date for a date written another way: "June 12th, 2025", "14.03.2025", "the twelfth of June" with
    2025 said elsewhere, a day of a range ("February 23-26, 2015" holds 2015-02-26)."""
    return iso_date_places(value, text)
