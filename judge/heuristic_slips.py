"""`ungrounded_value`: a value not found in the context that looks like a slip of one that is (digits transposed or
one off, a sign or a fraction dropped, a time on the wrong side of the clock, a name the context never mentions)."""

from __future__ import annotations

import re
from decimal import Decimal
from functools import lru_cache
from typing import Any

from judge.heuristic_text import _value_at, normalize
from validation.grounding import fold
from validation.readings.clock import clock_mentions, clock_value
from validation.readings.dates import date_places
from validation.readings.numbers import number_mentions

# Characters `normalize` drops to join a word ("U.S." -> "us"): never a word boundary.
_JOINING = "'.,’ʼ"


MAX_WORD_HITS = 64  # occurrences of one word tried in the folded context before normalising it after all


def any_word_in_context(words: list[str], context: str) -> bool:
    """Is one of these normalised words a whole word of the normalised context? Tried first in the folded
    context, which costs a fraction of normalising a long context: a hit between characters that normalising
    turns into spaces is a word of the normalised text too. Without such a hit, the normalised context says."""
    if not words:
        return False
    folded = fold(context)
    if any(_between_separators(word, folded) for word in words):
        return True
    padded = f" {normalize(context)} "
    return any(f" {w} " in padded for w in words)


def _between_separators(word: str, folded: str) -> bool:
    """A sure (not complete) test: `word` occurs in the folded text between separators (and holds no joining
    mark: "ʼ" is a letter that survives normalising, but is dropped between two word characters)."""
    if any(mark in word for mark in _JOINING):
        return False
    at, end = folded.find(word), len(folded)
    for _ in range(MAX_WORD_HITS):
        if at == -1:
            return False
        after = at + len(word)
        if (at == 0 or _separates(folded[at - 1])) and (after == end or _separates(folded[after])):
            return True
        at = folded.find(word, at + 1)
    return False


def _separates(char: str) -> bool:
    """Does normalising turn this character into a space? Whitespace, ASCII punctuation other than the joining
    marks, and any other non-ASCII character that is neither a letter nor a digit; an ASCII control character
    stays part of its word."""
    if char.isspace():
        return True
    if char.isalnum() or char in _JOINING:
        return False
    return not char.isascii() or "!" <= char <= "~"


def must_be_stated(ground_truth: dict[str, Any], ungrounded: list[str]) -> list[str]:
    """Ungrounded values that cannot be a paraphrase: numbers, and short strings (names, codes, dates).
    Long free text, or a lower-case label ("origin"), may reword the context; "9,948" for "9,984" or an
    invented name or code may not."""
    stated = []
    for path in ungrounded:
        value = _value_at(ground_truth, path)
        short_name = isinstance(value, str) and len(value.split()) <= 5 and re.search(r"[A-Z0-9]", value)
        if (isinstance(value, int | float) and not isinstance(value, bool)) or short_name:
            stated.append(path)
    return stated


_ACRONYM_WORD = re.compile(r"\b[A-Z]{2,5}\b")


_DIGITS = re.compile(r"\d[\d,]*(?:\.\d+)?")


_NAME_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]{3,}")


def near_miss(value: Any, context: str) -> str | None:
    """Why a value the context does not hold looks like a slip rather than a rewording: a number with the
    digits of one of the context's numbers transposed or one digit off ("9948" for "9,984"), or a name none of
    whose words the context uses (an invention). None when it may be a conversion, a computation or a
    paraphrase, which a flag would only hold back."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        slip = _number_slip(value, context)
        if slip is not None:
            return slip
        digits = (
            str(abs(value)).replace(".", "").lstrip("0").rstrip("0") if isinstance(value, float) else str(abs(value))
        )
        if len(digits) < 3:
            return None
        for token in _DIGITS.findall(context):
            written = token.replace(",", "").replace(".", "").lstrip("0")
            if written == digits or len(written) != len(digits):
                continue
            if sorted(written) == sorted(digits) or sum(a != b for a, b in zip(written, digits, strict=True)) == 1:
                return f"{value!r} is not in the context, but {token!r} is: a slip of the digits?"
        return None
    if isinstance(value, str) and _ISO_DATE.fullmatch(value.strip()):
        return _date_slip(value.strip(), context)
    if isinstance(value, str) and (slip := _clock_slip(value.strip(), context)):
        return slip
    if isinstance(value, str) and value.strip() in _currency_codes():
        # Not found: the context names this currency in no way (code, name, plural, symbol) the toolkit reads.
        return f"{value!r}: the context never names this currency (its code, name or symbol)"
    if isinstance(value, str):
        words = {w.lower() for w in _NAME_WORD.findall(value)}
        lowered = context.lower()
        acronyms = {a.lower() for a in _ACRONYM_WORD.findall(value)}  # "TV" of "the TV screen" is a word too
        said = any(re.search(rf"\b{re.escape(a)}\b", lowered) for a in acronyms)
        if words and not said and not any(w in lowered or _abbreviated_in(w, lowered) for w in words):
            return f"{value!r}: none of its words is in the context"
        proper = value.split()
        if 2 <= len(proper) <= 4 and all(w[:1].isupper() for w in proper) and all(w in lowered for w in words):
            return f"{value!r}: each of its words is in the context, but never together"
    return None


@lru_cache(maxsize=1)
def _calendar_abbreviations() -> dict[str, tuple[str, ...]]:
    """Day and month names with their short forms ("tuesday" -> tue, tues), from the standard calendar."""
    import calendar

    names = [*zip(calendar.day_name, calendar.day_abbr, strict=True)]
    names += [*zip(calendar.month_name, calendar.month_abbr, strict=True)][1:]
    extra = {"tuesday": ("tues",), "thursday": ("thur", "thurs"), "september": ("sept",)}
    return {full.lower(): (short.lower(), *extra.get(full.lower(), ())) for full, short in names}


def _abbreviated_in(word: str, lowered_context: str) -> bool:
    """A day or month name written short in the context ("Tue" for "Tuesday" on a form)."""
    shorts = _calendar_abbreviations().get(word, ())
    return any(re.search(rf"\b{short}\b\.?", lowered_context) for short in shorts)


@lru_cache(maxsize=1)
def _currency_codes() -> frozenset[str]:
    from babel.numbers import list_currencies

    return frozenset(list_currencies())


_ISO_DATE = re.compile(r"(\d{4})-(\d{2})(?:-(\d{2}))?")


_MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
    "december",
)  # fmt: skip


def _date_slip(value: str, context: str) -> str | None:
    """A date the context writes in no form the toolkit reads: its year never stands within a few words of its
    month (by name, or as a number of a numeric date). A year of another event ("2023-02" where the text says
    "February 2022" and "Jan 29, 2023") looks like this; a date written another way seldom does."""
    match = _ISO_DATE.fullmatch(value)
    assert match is not None
    year, month = match.group(1), int(match.group(2))
    if not 1 <= month <= 12:
        return None
    name = _MONTHS[month - 1]
    if date_places(value, context):
        return None  # "14.03.2025", or "the first of June" with the year said elsewhere
    lowered = context.lower()
    at = lowered.find(year)
    while at >= 0:
        window = lowered[max(0, at - 30) : at + 34]
        if name[:3] in window or re.search(rf"(?<!\d)0?{month}[/.-]|[/.-]0?{month}(?!\d)", window):
            return None
        at = lowered.find(year, at + 1)
    return f"{value!r}: the context never writes {year} with its month ({name.title()})"


def _clock_slip(value: str, context: str) -> str | None:
    """A time given on the wrong side of the clock: "11:10" where the context says "11.10 pm" (23:10), or "14:20"
    where it says "2:20 a.m." (02:20). Only times the context pins to one half of the day count."""
    minutes = clock_value(value) if re.fullmatch(r"\d{1,2}:\d{2}", value) else None
    if minutes is None or len(minutes) != 1:
        return None
    wanted = next(iter(minutes))
    for start, end, said in clock_mentions(context):
        if len(said) == 1 and abs(next(iter(said)) - wanted) == 720:
            hour, minute = divmod(next(iter(said)), 60)
            written = context[start:end].strip()
            return f"{value!r} is not in the context, but {written!r} is: {hour:02d}:{minute:02d}, twelve hours apart"
    return None


_DOWNWARD = re.compile(
    r"\b(?:down(?:ward|wards)?|below|beneath|under|minus|negative|loss|losses|lost|deficit|decrease[sd]?|"
    r"decline[sd]?|fell|fall|falls|drop(?:ped|s)?|lower(?:ed)?|shrank|debt|owe[sd]?|overdrawn|south|west)\b",
    re.IGNORECASE,
)


def _said_downward(magnitude: float, context: str) -> bool:
    """Is the number written beside a word that gives it a negative direction (a fall, a loss, downward)?"""
    number = f"{magnitude:g}"
    for match in re.finditer(rf"(?<![\d.]){re.escape(number)}(?![\d])", context):
        window = context[max(0, match.start() - 50) : match.end() + 30]
        if _DOWNWARD.search(window):
            return True
    return False


def _number_slip(value: float, context: str) -> str | None:
    """A number whose sign, fraction or place the context contradicts: 4.2 where it says -4.2, 12 where it
    says twelve and a half, 40 found only in a transcript's timestamps."""
    from validation.grounding import NormalizedContext, is_grounded

    if value and is_grounded(-value, NormalizedContext(context)):
        if value < 0 and _said_downward(-value, context):
            return None  # "thrown downward with a speed of 8" is -8: the sign is the direction the text gives
        return f"{value!r} is not in the context, but {-value!r} is: the sign dropped?"
    halves = [v for _, _, v, how in number_mentions(context) if v != int(v) and int(v) == value]
    if halves:
        return f"{value!r} is not in the context, but {float(halves[0])!r} is: the fraction dropped?"
    if isinstance(value, int) and 0 <= value < 60 and re.search(rf"^\[\d+:{value:02d}\] ", context, re.M):
        return f"{value!r} is found only in the transcript's timestamps, which are no evidence"
    return _percent_slip(value, context)


_PERCENT_AFTER = re.compile(r"\s?(?:%|percent\b|per cent\b)", re.IGNORECASE)


def _percent_slip(value: float, context: str) -> str | None:
    """A fraction ten times too small or too large for a percentage the context gives: 0.023 or 2.3 where it says
    "23 percent" (0.23)."""
    if not 0 < abs(value) < 10 or isinstance(value, bool):
        return None
    wanted = Decimal(repr(value))
    for start, end, said, _ in number_mentions(context) if len(context) < 200_000 else ():
        if not _PERCENT_AFTER.match(context, end) or said == 0:
            continue
        if wanted in (said / 1000, said / 10) and wanted != said / 100:
            written = context[start : end + 8].strip()
            return f"{value!r} is not in the context, but {written!r} is: {said / 100} as a fraction?"
    for match in re.finditer(r"(?<![\d.,])\d+(?:\.\d+)?(?=\s?(?:%|percent\b|per cent\b))", context):
        said = Decimal(match.group())
        if said and wanted in (said / 1000, said / 10) and wanted != said / 100:
            return f"{value!r} is not in the context, but {match.group()}% is: {said / 100} as a fraction?"
    return None
