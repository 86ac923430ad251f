"""Every date a text states, however it is written: the readings an ISO value ("2025-06-12") is checked against.

"12 June 2025", "June 12th, 2025", "Thursday the twelfth of June", "14.03.2025", "03/14/2025", "2025/03/14",
"the first of June" (a day and month whose year is said elsewhere: the season, the meeting's date) and years
written in words ("twenty twenty five", "nineteen eighty-four"). A numeric date whose day and month can both be
read either way ("04/05/2025") stands for both. num2words writes the ordinal words; text2num reads spelled numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from validation.number_words import ordinal_words, spelled_number


@dataclass(frozen=True)
class DateMention:
    start: int
    end: int
    year: int | None  # None: day and month only, the year is said elsewhere (or never)
    month: int
    day: int | None


_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4, "may": 5,
    "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9, "sep": 9, "sept": 9,
    "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}  # fmt: skip


_ORDINAL_DAYS = ordinal_words(31)
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = (
    r"(?:the\s+)?(?P<day>\d{1,2}(?:st|nd|rd|th)?|"
    + "|".join(sorted(map(re.escape, _ORDINAL_DAYS), key=len, reverse=True))
    + r")"
)
_NUMBER_CORE = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand)"
)
_NUMBER_WORD = rf"(?:{_NUMBER_CORE}|and|oh)"
_YEAR = rf"(?P<year>\d{{4}}|{_NUMBER_CORE}(?:[\s-]+{_NUMBER_WORD}){{0,4}}[\s-]+{_NUMBER_CORE})"
_TO_DAY = r"(?:\s*[-–]\s*(?P<last>\d{1,2})(?:st|nd|rd|th)?)?"  # a range: "February 23-26, 2015"
_WORDED_FORMS = [
    # "June 12, 2025", "June 12th", "June the twelfth", "Jun. 12 2025"
    re.compile(rf"\b{_MONTH}\s+{_DAY}{_TO_DAY}(?![\d:])(?:,?\s+{_YEAR})?\b", re.IGNORECASE),
    # "12 June 2025", "the twelfth of June", "12th of June, 2025"
    re.compile(rf"\b{_DAY}{_TO_DAY}\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR})?\b", re.IGNORECASE),
    # "June 2025" (a month: no day)
    re.compile(rf"\b{_MONTH}\s+(?:of\s+)?(?P<year>\d{{4}})\b", re.IGNORECASE),
]
_NUMERIC = re.compile(r"(?<![\d.:/-])(\d{1,4})([./-])(\d{1,2})\2(\d{2,4})(?![\d.:/-]|\.\d)")
_SPELLED_YEAR = re.compile(rf"\b{_NUMBER_CORE}(?:[\s-]+{_NUMBER_WORD}){{0,4}}[\s-]+{_NUMBER_CORE}\b", re.IGNORECASE)


def _valid(year: int | None, month: int, day: int | None) -> bool:
    try:
        date(year or 2000, month, day or 1)  # 2000: a leap year, so "29 February" without a year stands
    except ValueError:
        return False
    return True


def _day_of(word: str) -> int | None:
    word = word.lower().replace("-", " ")
    if word in _ORDINAL_DAYS:
        return _ORDINAL_DAYS[word]
    digits = re.match(r"\d+", word)
    return int(digits.group()) if digits else None


def year_of_words(words: str) -> int | None:
    """A year said in words: "twenty twenty five" (2025), "nineteen eighty-four", "two thousand and five"."""
    words = re.sub(r"[\s-]+", " ", words.strip().lower())
    whole = spelled_number(words)
    if whole is not None and 1000 <= whole <= 2199 and whole == int(whole):
        return int(whole)
    parts = words.split(" ")
    for cut in range(1, len(parts)):
        century, rest = " ".join(parts[:cut]), " ".join(parts[cut:])
        high = spelled_number(century)
        if high is None or not 10 <= high <= 21:
            continue
        low = 0 if rest == "hundred" else (spelled_number(rest.removeprefix("oh ")) if rest else None)
        if low is not None and 0 <= low < 100 and (rest.startswith("oh ") or rest == "hundred" or low >= 10):
            return int(high) * 100 + int(low)
    return None


def _year(text: str | None) -> int | None:
    if not text:
        return None
    if text.isdigit():
        return int(text)
    return year_of_words(text)


@lru_cache(maxsize=256)
def date_mentions(text: str) -> tuple[DateMention, ...]:
    found: list[DateMention] = []
    for form in _WORDED_FORMS:
        for match in form.finditer(text):
            groups = match.groupdict()
            month = _MONTHS[groups["month"].lower()]
            day = _day_of(groups["day"]) if groups.get("day") else None
            year = _year(groups.get("year"))
            if groups["month"].lower() == "may" and day is None and year is None:
                continue  # the verb
            days = [day] + ([int(groups["last"])] if groups.get("last") else [])
            for each in days:
                if _valid(year, month, each):
                    found.append(DateMention(match.start(), match.end(), year, month, each))
    for match in _NUMERIC.finditer(text):
        first, second, last = int(match.group(1)), int(match.group(3)), match.group(4)
        if len(match.group(1)) == 4:  # 2025/03/14, 2025-03-14
            readings = [(first, second, int(last))] if len(last) <= 2 else []
        elif len(last) == 4:  # 14.03.2025 (day first), 03/14/2025 (month first): both where both are dates
            readings = [(int(last), second, first), (int(last), first, second)]
        else:
            readings = []
        for year, month, day in dict.fromkeys(readings):
            if 1 <= month <= 12 and _valid(year, month, day):
                found.append(DateMention(match.start(), match.end(), year, month, day))
    return tuple(found)


@lru_cache(maxsize=256)
def years_written(text: str) -> frozenset[int]:
    """Every year a text writes, in digits or in words."""
    years = {int(y) for y in re.findall(r"(?<![\d.,])(1[0-9]{3}|20[0-9]{2}|21[0-9]{2})(?![\d])", text)}
    for match in _SPELLED_YEAR.finditer(text):
        year = year_of_words(match.group())
        if year is not None:
            years.add(year)
    return frozenset(years)


def iso_date_places(value: str, text: str) -> list[tuple[int, int, str]]:
    """Where a text states the ISO date `value` ("2025-06-12" or "2025-06"): with its year, or by day and month
    alone when that year is written somewhere in the text and the month is never written with another year."""
    match = re.fullmatch(r"\s*(\d{4})-(\d{2})(?:-(\d{2}))?\s*", value)
    if match is None:
        return []
    year, month = int(match.group(1)), int(match.group(2))
    day = int(match.group(3)) if match.group(3) else None
    mentions = date_mentions(text)
    places = [(m.start, m.end, "date") for m in mentions if (m.year, m.month, m.day) == (year, month, day)]
    if places or day is None:
        return places
    if year not in years_written(text):
        return []
    if any(m.month == month and m.year not in (None, year) for m in mentions):
        return []  # "June 2024" written: a yearless "the first of June" may belong to that year
    return [
        (m.start, m.end, "date, year said elsewhere")
        for m in mentions
        if m.year is None and (m.month, m.day) == (month, day)
    ]
