"""Where a value is written in a text however it is written: the places of a number, a string, a quote that
supports a value, a conversion; the search the evidence and grounding checks call, over the kinds of readings."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from validation.readings.clock import clock_mentions, clock_value
from validation.readings.codes import (
    _ACRONYM,
    _CAPITALISED_RUN,
    _initials,
    _reordered_name,
    ascii_places,
    demonym_places,
    ocr_slip_places,
    subdivision_places,
)
from validation.readings.dates import date_places, decade_places
from validation.readings.fields import FieldHint
from validation.readings.money import _MINOR_MONEY, currency_names_of
from validation.readings.numbers import (
    _PLAIN_NUMBER,
    Place,
    _number_token,
    _rounded_places,
    close,
    number_mentions,
    precision_of,
    to_decimal,
)
from validation.readings.units import carried_quantities, convert, parse_unit, quantity_mentions
from validation.table_units import header_unit_numbers


def string_places(value: str, text: str) -> list[Place]:
    """Where a string is written another way: without diacritics, as an abbreviation or its expansion, as a
    currency word for an ISO code, as a decade or a clock time."""
    stripped = value.strip()
    if not stripped:
        return []
    places = decade_places(stripped, text)
    if places:
        return places
    minutes = clock_value(stripped)
    if minutes is not None:
        return [(s, e, "normalised") for s, e, said in clock_mentions(text) if said & minutes]
    places = ascii_places(stripped, text)
    if places:
        return places
    places = _reordered_name(stripped, text)
    if places:
        return places
    places = date_places(stripped, text)
    if places:
        return places
    if stripped[:1].isupper() and len(stripped) <= 60:
        places = demonym_places(stripped, text)
        if places:
            return places
    places = ocr_slip_places(stripped, text)
    if places:
        return places
    initials = _initials(stripped)
    if initials and len(initials) >= 2:
        places += [(m.start(), m.end(), "abbreviation") for m in re.finditer(rf"\b{re.escape(initials)}\b", text)]
    if _ACRONYM.fullmatch(stripped):
        if len(stripped) <= 3:
            places += subdivision_places(stripped, text)
        for match in _CAPITALISED_RUN.finditer(text):
            if _initials(match.group()) == stripped.upper():
                places.append((match.start(), match.end(), "expansion"))
        for name in currency_names_of(stripped.upper()):
            pattern = rf"\b{re.escape(name)}\b" if name[:1].isalpha() and name[-1:].isalpha() else re.escape(name)
            places += [(m.start(), m.end(), "currency") for m in re.finditer(pattern, text, re.IGNORECASE)]
    return places


_PER_HUNDRED = re.compile(
    r"\s*(?:parts?\s+)?(?:per\b|percent|%|in\s+(?:a\s+|one\s+)?hundred|in\s+100|of\s+100|out\s+of)", re.I
)


_FRACTION_WORDS = {"fraction", "share", "proportion", "ratio", "rate", "part", "parts", "portion"}


# What follows a number written below zero: "86 metres below sea level", "12 °C below freezing".
BELOW_ZERO = re.compile(
    r"\s*(?:[a-zA-Z°%.′\"]{1,12}\s*){0,2}\(?\s*(?:[\d,.]+\s*[a-z]{1,6}\s*\)?\s*)?(?:below|under)\s+"
    r"(?:sea[\s-]level|zero|freezing|mean sea level)",
    re.IGNORECASE,
)


def number_places(value: Decimal, text: str, hint: FieldHint | None = None, stamped: str | None = None) -> list[Place]:
    """Where a number is written another way than its digits, including converted from another unit when its
    field names one, and a negative one as its size "below sea level"."""
    rounding = precision_of(value)
    places: list[Place] = [(s, e, how) for s, e, said, how in number_mentions(text) if close(said, value)]
    if value < 0:
        places += [(m.start(), m.end(), "below zero") for m in _PLAIN_NUMBER.finditer(text)
                   if (n := _number_token(m.group())) is not None and close(n, -value)
                   and BELOW_ZERO.match(text, m.end())]  # fmt: skip
    places += _rounded_places(value, text)
    if hint is not None and hint.words & {"percent", "percentage", "pct"} and value > 1:
        places += [(s, e, how) for s, e, said, how in number_mentions(text) if close(said * 100, value)]
    if hint is not None and hint.words & _FRACTION_WORDS and 0 < value < 1:
        hundred = value * 100  # "40 parts in 100", "about sixty [per cent]" for a share
        places += [
            (s, e, "per hundred") for s, e, said, how in number_mentions(text)
            if how == "spelled out" and close(said, hundred)
        ]  # fmt: skip
        places += [(m.start(), m.end(), "per hundred") for m in _PLAIN_NUMBER.finditer(text)
                   if (n := _number_token(m.group())) is not None and n == hundred
                   and _PER_HUNDRED.match(text, m.end())]  # fmt: skip
    if hint is not None and hint.currency is not None:
        from text_to_num import alpha2digit

        for match in _MINOR_MONEY.finditer(alpha2digit(text.lower(), "en") if len(text) < 400 else text):
            if close(Decimal(match.group(1)) / 100, value):
                places.append((0, min(len(text), match.end()), "minor currency unit"))
    for start, end, magnitude, written in header_unit_numbers(text) if hint is not None else ():
        if written == "%" and hint.words & _FRACTION_WORDS and close(magnitude / 100, value):
            places.append((start, end, "per hundred, the header's unit"))
        elif hint.unit and (unit := parse_unit(written)) is not None and str(unit) != hint.unit:
            converted = convert(magnitude, str(unit), hint.unit)
            if converted is not None and close(converted, value, rounding=rounding):
                places.append((start, end, "converted from the header's unit"))
    if hint is not None and hint.unit:
        for start, end, magnitude, unit in quantity_mentions(text):
            if unit == hint.unit:  # "a centimetre" for 1 in a field in cm: a number only its unit's words say
                if close(magnitude, value):
                    places.append((start, end, "with its unit"))
                continue
            converted = convert(magnitude, unit, hint.unit)
            if converted is not None and close(converted, value, rounding=rounding):
                places.append((start, end, "converted"))
        if not places:
            for start, end, magnitude, unit in carried_quantities(text, stamped):
                converted = convert(magnitude, unit, hint.unit)
                if converted is not None and unit != hint.unit and close(converted, value, rounding=rounding):
                    places.append((start, end, "converted"))
    return places


def quote_supports(value: Any, quote: str, hint: FieldHint | None = None) -> bool:
    """Is `value` a reading of `quote` by any of the rules above?"""
    if isinstance(value, bool) or value is None:
        return False
    number = to_decimal(value)
    if number is not None and not isinstance(value, str):
        return bool(number_places(number, quote, hint))
    if isinstance(value, str):
        if number is not None and number_places(number, quote, hint):
            return True
        return bool(string_places(value, quote))
    return False


def conversion_supports(value: Any, quote: str, unit_from: str | None, unit_to: str | None) -> bool | None:
    """For `convert` evidence: does a number of the quote, in its unit or `unit_from`, equal the value in `unit_to`?
    None when the quote holds no number or the units cannot be read. False only when the quote holds one number and its
    conversion is another value: a quote with several ("forty miles ... the Old Mill is twenty five") may hold the
    right one in a form the toolkit does not read, so a mismatch there is a doubt, not a proof."""
    number = to_decimal(value)
    if number is None or unit_to is None:
        return None
    target = str(parse_unit(unit_to) or unit_to)
    origin = str(parse_unit(unit_from) or unit_from) if unit_from else None
    quantities = quantity_mentions(quote)
    candidates: list[tuple[Decimal, str]] = [(m, u) for _, _, m, u in quantities]
    if origin is not None:  # the curator names the unit: every other number of the quote may be in it
        rest = quote
        for start, end, _, _ in quantities:  # "3 200 metres" is one number, not 3 and 200
            if quote[start : start + 1].isdigit() and end - start < 40:  # (a spelled quantity stands for its line)
                rest = rest[:start] + " " * (end - start) + rest[end:]
        bare = [n for n in (_number_token(t) for t in _PLAIN_NUMBER.findall(rest)) if n is not None]
        candidates += [(n, origin) for n in bare + [said for _, _, said, _ in number_mentions(rest)]]
    elif not candidates:
        return None
    converted = [convert(magnitude, unit, target) for magnitude, unit in candidates]
    if origin is not None:
        converted += [convert(magnitude, origin, target) for magnitude, _ in candidates]
    readable = [c for c in converted if c is not None]
    if any(close(c, number, rounding=precision_of(number)) for c in readable):
        return True
    if not readable:
        return None
    return False if len({magnitude for magnitude, _ in candidates}) == 1 else None
