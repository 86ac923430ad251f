"""Clock times however said: "11.10 pm", "eight in the morning", "half past nine", "a quarter to six", "half seven"."""

from __future__ import annotations

import re
from functools import lru_cache

from validation.number_words import spelled_number
from validation.readings.numbers import _SPELLED_WORDS

_CLOCK = re.compile(
    r"\b(?P<h>\d{1,2})(?:[:.h](?P<m>\d{2}))?\s*(?P<ampm>[ap]\.?\s?m\b\.?|o'?clock|hrs|hours|h\b)?",
    re.IGNORECASE,
)


_SPOKEN_CLOCK = re.compile(
    r"(?<!half\s)\b(?:(?P<part>half|quarter|ten|five|twenty|twenty[- ]five)\s+(?P<rel>past|to|after)\s+)?"
    rf"(?P<h>{_SPELLED_WORDS}|\d{{1,2}})(?:\s+(?P<m>{_SPELLED_WORDS}(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?))?"
    r"\s*(?P<when>o'?clock|in the morning|in the afternoon|in the evening|at night|a\.?m\.?|p\.?m\.?)",
    re.IGNORECASE,
)


# "half past eight", "a quarter to six", British "half seven" (7:30): a clock time without o'clock or am/pm.
_RELATIVE_CLOCK = re.compile(
    r"\b(?:(?P<part>half|quarter|ten|five|twenty|twenty[- ]five)\s+(?P<rel>past|to|after)|(?P<british>half))\s+"
    rf"(?P<h>{_SPELLED_WORDS}|\d{{1,2}})\b(?!\s*(?:hours?|minutes?|days?|of|per|percent|%))"
    r"(?:\s*(?P<when>in the morning|in the afternoon|in the evening|at night|a\.?m\.?|p\.?m\.?))?",
    re.IGNORECASE,
)


_AT_HOUR = re.compile(
    rf"\b(?:at|by|until|till|from|before|after)\s+(?P<h>{_SPELLED_WORDS}|\d{{1,2}})\b(?![:.]\d)", re.IGNORECASE
)


_VALUE_CLOCK = re.compile(r"^\s*(\d{1,2})(?:[:.h](\d{2}))?\s*([ap]\.?m\.?)?\s*$", re.IGNORECASE)


def clock_value(value: str) -> set[int] | None:
    """Minutes after midnight a value names ("09:30" -> {570}; "9:30" without am/pm -> {570, 1290})."""
    match = _VALUE_CLOCK.match(value)
    if match is None or (match.group(2) is None and match.group(3) is None):
        return None
    return _minutes(int(match.group(1)), int(match.group(2) or 0), (match.group(3) or "").lower(), strict=True)


def _minutes(hour: int, minute: int, marker: str, strict: bool = False) -> set[int] | None:
    if not (0 <= hour <= 24 and 0 <= minute < 60):
        return None
    marker = marker.replace(".", "").replace(" ", "")
    if marker.startswith("p") or marker in ("intheafternoon", "intheevening", "atnight"):
        return {((hour % 12) + 12) * 60 + minute}
    if marker.startswith("a") or marker == "inthemorning":
        return {(hour % 12) * 60 + minute}
    if hour > 12 or hour == 0 or (strict and marker == ""):
        return {hour * 60 + minute} if strict or hour > 12 else {hour * 60 + minute, (hour + 12) % 24 * 60 + minute}
    return {hour * 60 + minute, (hour + 12) % 24 * 60 + minute}


def _hour_of(word: str) -> int | None:
    if word.isdigit():
        return int(word)
    value = spelled_number(word)
    return int(value) if value is not None and value == int(value) else None


@lru_cache(maxsize=64)
def clock_mentions(text: str) -> tuple[tuple[int, int, frozenset[int]], ...]:
    """(start, end, minutes after midnight) of the times of day a text states, however written."""
    found: list[tuple[int, int, frozenset[int]]] = []
    for match in _CLOCK.finditer(text):
        if match.group("m") is None and match.group("ampm") is None:
            continue
        minutes = _minutes(int(match.group("h")), int(match.group("m") or 0), (match.group("ampm") or "").lower())
        if minutes:
            found.append((match.start(), match.end(), frozenset(minutes)))
    for match in _SPOKEN_CLOCK.finditer(text):
        hour = _hour_of(match.group("h").lower())
        if hour is None:
            continue
        minute = 0
        if match.group("m"):
            spoken = spelled_number(match.group("m"))
            minute = int(spoken) if spoken is not None and spoken < 60 else 0
        if match.group("part"):
            part = {"half": 30, "quarter": 15, "ten": 10, "five": 5, "twenty": 20}.get(
                match.group("part").lower().replace("-", " ").split()[0], 25
            )
            if match.group("part").lower().replace("-", " ") == "twenty five":
                part = 25
            if match.group("rel").lower() == "to":
                hour, minute = hour - 1, 60 - part
            else:
                minute = part
        minutes = _minutes(hour, minute, match.group("when").lower().replace("o'clock", "").replace("oclock", ""))
        if minutes:
            found.append((match.start(), match.end(), frozenset(minutes)))
    for match in _RELATIVE_CLOCK.finditer(text):
        if any(start <= match.start() < end for start, end, _ in found):
            continue
        hour = _hour_of(match.group("h").lower())
        if hour is None or not 1 <= hour <= 12:
            continue
        if match.group("british"):
            minute = 30
        else:
            part = match.group("part").lower().replace("-", " ")
            minute = {"half": 30, "quarter": 15, "ten": 10, "five": 5, "twenty": 20, "twenty five": 25}[part]
            if match.group("rel").lower() == "to":
                hour, minute = (hour - 1) or 12, 60 - minute
        minutes = _minutes(hour, minute, (match.group("when") or "").lower())
        if minutes:
            found.append((match.start(), match.end(), frozenset(minutes)))
    spoken = [(start, end) for start, end, _ in found]
    for match in _AT_HOUR.finditer(text):
        if any(start <= match.start("h") < end for start, end in spoken):
            continue  # "until two in the afternoon" is 14:00, read above, not also 2:00
        hour = _hour_of(match.group("h").lower())
        if hour is not None and 1 <= hour <= 12:
            found.append((match.start("h"), match.end("h"), frozenset(_minutes(hour, 0, "") or ())))
    return tuple(found)
