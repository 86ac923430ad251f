"""Quantities with units (pint), durations in several units, a unit carried from the last quantity said, conversions."""

from __future__ import annotations

import re
from decimal import Decimal
from functools import lru_cache
from typing import Any

from validation.number_words import spelled_number
from validation.readings.numbers import _PLAIN_NUMBER, _SPELLED_WORDS, _number_token, _spelled_lines, number_mentions

# Unit words a field name or description may carry, as pint reads them. Only these: pint also reads "in"
# (inch), "a" (year) and "at" as units, which field names are full of.
_UNIT_WORDS = {
    "mm": "millimeter", "cm": "centimeter", "m": "meter", "km": "kilometer", "metre": "meter", "metres": "meter",
    "meter": "meter", "meters": "meter", "centimetres": "centimeter", "centimeters": "centimeter",
    "centimetre": "centimeter", "millimetres": "millimeter", "kilometre": "kilometer", "kilometres": "kilometer",
    "kilometer": "kilometer", "kilometers": "kilometer", "mile": "mile", "miles": "mile", "mi": "mile",
    "ft": "foot", "foot": "foot", "feet": "foot", "inch": "inch", "inches": "inch", "yard": "yard", "yards": "yard",
    "km/h": "kilometer_per_hour", "m/s": "meter_per_second", "ft/s": "foot_per_second", "mi/h": "mile_per_hour",
    '"': "inch", "″": "inch", "”": "inch", "in.": "inch", "'": "foot", "′": "foot",
    "ms": "millisecond", "msec": "millisecond", "milliseconds": "millisecond", "millisecond": "millisecond",
    "sec": "second", "secs": "second",
    "kg": "kilogram", "kilogram": "kilogram", "kilograms": "kilogram", "kilos": "kilogram", "g": "gram",
    "gram": "gram", "grams": "gram", "lb": "pound", "lbs": "pound", "oz": "ounce", "tonne": "metric_ton",
    "tonnes": "metric_ton", "ton": "metric_ton", "tons": "metric_ton", "l": "liter", "litre": "liter",
    "litres": "liter", "liter": "liter", "liters": "liter", "ml": "milliliter", "gallon": "gallon",
    "gallons": "gallon", "mph": "mile_per_hour", "kmh": "kilometer_per_hour", "kph": "kilometer_per_hour",
    "knots": "knot", "acre": "acre", "acres": "acre", "hectare": "hectare", "hectares": "hectare", "ha": "hectare",
    "km2": "kilometer**2", "km²": "kilometer**2", "m²": "meter**2", "m2": "meter**2", "mi²": "mile**2",
    "sq km": "kilometer**2", "sq mi": "mile**2", "sq m": "meter**2", "sqkm": "kilometer**2", "sqmi": "mile**2",
    "celsius": "degree_Celsius", "°c": "degree_Celsius", "ºc": "degree_Celsius", "℃": "degree_Celsius",
    "degrees celsius": "degree_Celsius", "degree celsius": "degree_Celsius", "degrees c": "degree_Celsius",
    "°f": "degree_Fahrenheit", "ºf": "degree_Fahrenheit", "℉": "degree_Fahrenheit",
    "degrees fahrenheit": "degree_Fahrenheit", "degree fahrenheit": "degree_Fahrenheit",
    "degrees f": "degree_Fahrenheit", "kelvin": "kelvin",
    "fahrenheit": "degree_Fahrenheit", "seconds": "second", "second": "second", "minutes": "minute",
    "minute": "minute", "mins": "minute", "hours": "hour", "hour": "hour", "hrs": "hour", "days": "day",
    "day": "day", "weeks": "week", "week": "week", "months": "month", "years": "year", "year": "year",
    "kw": "kilowatt", "mw": "megawatt", "kwh": "kilowatt_hour", "w": "watt", "watts": "watt", "volts": "volt",
    "v": "volt", "mah": "milliampere_hour", "gb": "gigabyte", "mb": "megabyte",
    "pa": "pascal", "kpa": "kilopascal", "mpa": "megapascal", "gpa": "gigapascal", "psi": "psi",
    "mg": "milligram", "milligrams": "milligram", "µg": "microgram", "μg": "microgram", "ug": "microgram",
    "micrograms": "microgram", "m3": "meter**3", "m³": "meter**3", "cm3": "centimeter**3", "cm³": "centimeter**3",
}  # fmt: skip


def _per_volume_units() -> dict[str, str]:
    """Densities and concentrations, as papers write them: "g/cm3", "g/cm³", "g cm-3", "g cm⁻³", "mg/l", "mg l-1"."""
    masses = {"kg": "kilogram", "g": "gram", "mg": "milligram", "µg": "microgram", "μg": "microgram", "ug": "microgram"}
    volumes = {"m": ("meter**3", "3", "³"), "cm": ("centimeter**3", "3", "³"), "l": ("liter", "", "¹"),
               "ml": ("milliliter", "", "¹")}  # fmt: skip
    units = {}
    for mass, mass_name in masses.items():
        for volume, (volume_name, cube, superscript) in volumes.items():
            power = "3" if cube else "1"
            spellings = {f"{mass}/{volume}{cube}", f"{mass}/{volume}{superscript if cube else ''}",
                         f"{mass} {volume}-{power}", f"{mass} {volume}⁻{superscript}"}  # fmt: skip
            units.update(dict.fromkeys(spellings, f"{mass_name} / {volume_name}"))
    return units


_UNIT_WORDS = _per_volume_units() | _UNIT_WORDS  # the plain units win where a spelling is both


_QUANTITY = re.compile(
    r"(?<![\w.,])(?P<number>\d{1,3}(?:[ \u00a0\u2009\u202f]\d{3})+(?:\.\d+)?(?![\d.,])"  # "4 050 metres"
    r"|(?<![\w.])[-−–]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.])[-−–]?\d+(?:[.,]\d+)?)\s?-?\s?"
    r"(?P<unit>(?:sq(?:uare)?\.?\s)?[a-zA-Zµμ°º℃℉/²³]+(?:[23](?!\d))?"  # "km²", "g/cm3"
    r"(?:\s(?:per|an|a)\s[a-z]+|\s(?:Celsius|Fahrenheit|C|F)\b)?|[\"″”′])"
)


_UNIT_NAMES = frozenset(_UNIT_WORDS.values())


_HAS_UNIT_WORD = re.compile(
    r"\b(?:" + "|".join(sorted((re.escape(w) for w in _UNIT_WORDS if len(w) >= 3), key=len, reverse=True)) + r")\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=1)
def _registry() -> Any:
    import pint

    return pint.UnitRegistry()


@lru_cache(maxsize=512)
def parse_unit(word: str) -> Any:
    """The pint unit a unit word in a text names, or None ("miles" -> mile, "km/h" -> kilometer / hour)."""
    cleaned = word.strip().lower().rstrip(".")
    name = _UNIT_WORDS.get(cleaned) or _UNIT_WORDS.get(cleaned.replace(" ", ""))
    if name is None and word.strip() in _UNIT_NAMES:
        name = word.strip()  # already a unit's name ("centimeter", from a field hint)
    if name is None:
        return None
    try:
        return _registry().parse_units(name)
    except Exception:  # pint raises several kinds for names it does not know
        return None


@lru_cache(maxsize=64)
def quantity_mentions(text: str) -> tuple[tuple[int, int, Decimal, str], ...]:
    """(start, end, magnitude, unit name) of the quantities written with a unit ("500 miles", "1.2 m")."""
    found = []
    for match in _QUANTITY.finditer(text):
        unit_text = match.group("unit")
        unit = None
        words = unit_text.split()
        for size in range(len(words), 0, -1):  # the longest unit phrase pint reads
            unit = parse_unit(" ".join(words[:size]))
            if unit is not None:
                unit_text = " ".join(words[:size])
                break
        if unit is None:
            continue
        written = re.sub(r"[ \u00a0\u2009\u202f]", "", match.group("number"))
        number = _number_token(written.replace(",", "") if "," in written[-4:-3] else written.replace(",", "."))
        if number is None:
            continue
        end = match.start("unit") + len(unit_text)
        found.append((match.start(), end, number, str(unit)))
    found += _digitised_quantities(text)
    found += _worded_quantities(text)
    found += compound_durations(text)
    return tuple(found)


_DURATION_UNITS = {"h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600, "min": 60, "mins": 60,
                   "minute": 60, "minutes": 60, "sec": 1, "secs": 1, "second": 1, "seconds": 1}  # fmt: skip


_DURATION_PART = (
    rf"(?:\d+(?:[.,]\d+)?|an?|(?:(?:{_SPELLED_WORDS})[\s-]+)*(?:{_SPELLED_WORDS}))\s*"
    r"(?:hours?|hrs?|h|minutes?|mins?|min|seconds?|secs?|sec)\b(?:\s+and\s+an?\s+half\b)?"
)


_COMPOUND_DURATION = re.compile(rf"\b{_DURATION_PART}(?:\s*(?:,|and)?\s*{_DURATION_PART})+", re.IGNORECASE)


_HOURS_MINUTES = re.compile(r"(?<![\w.:])(\d{1,2})\s?h\s?(\d{2})\b(?!\s*(?:min|m\b))", re.IGNORECASE)


_TIME_UNIT = re.compile(r"\d\s?h\b|\b(?:hours?|hrs?|minutes?|mins?|seconds?|secs?)\b", re.IGNORECASE)


_ONE_PART = re.compile(
    rf"(?P<number>\d+(?:[.,]\d+)?|an?|(?:(?:{_SPELLED_WORDS})[\s-]+)*(?:{_SPELLED_WORDS}))\s*"
    r"(?P<unit>hours?|hrs?|h|minutes?|mins?|min|seconds?|secs?|sec)\b(?P<half>\s+and\s+an?\s+half\b)?",
    re.IGNORECASE,
)


def compound_durations(text: str) -> list[tuple[int, int, Decimal, str]]:
    """Durations written in several units ("1 hr 10 min", "two hours and fifteen minutes", "1h10", "an hour and a
    half"), as one total in seconds: a field in minutes reads 70 from "1 hr 10 min"."""
    found: list[tuple[int, int, Decimal, str]] = []
    if not _TIME_UNIT.search(text):
        return found
    for match in _COMPOUND_DURATION.finditer(text):
        total = Decimal(0)
        for part in _ONE_PART.finditer(match.group()):
            words = part.group("number").lower()
            number = _number_token(words.replace(",", ".")) or spelled_number(words)
            if words in ("a", "an"):
                number = Decimal(1)
            if number is None:
                break
            seconds = _DURATION_UNITS[part.group("unit").lower()]
            total += number * seconds + (Decimal(seconds) / 2 if part.group("half") else 0)
        else:
            found.append((match.start(), match.end(), total, "second"))
    for match in _HOURS_MINUTES.finditer(text):
        total = Decimal(int(match.group(1)) * 3600 + int(match.group(2)) * 60)
        found.append((match.start(), match.end(), total, "second"))
    for part in _ONE_PART.finditer(text) if "half" in text.lower() else ():  # "an hour and a half"
        if part.group("half") and part.group("number").lower() in ("a", "an", "one", "1"):
            seconds = _DURATION_UNITS[part.group("unit").lower()]
            found.append((part.start(), part.end(), Decimal(seconds) * 3 / 2, "second"))
    return found


_WORDED_QUANTITY = re.compile(
    rf"\b(?P<number>an?|(?:(?:{_SPELLED_WORDS})[\s-]+(?:and[\s-]+)?)*(?:{_SPELLED_WORDS}))\s+(?P<unit>[a-z]{{3,}})\b",
    re.IGNORECASE,
)


def _worded_quantities(text: str) -> list[tuple[int, int, Decimal, str]]:
    """Small quantities in words, where text2num writes no digits: "about a centimetre", "TWO CENTIMETRES"."""
    found = []
    if not _HAS_UNIT_WORD.search(text):
        return found
    for match in _WORDED_QUANTITY.finditer(text):
        unit = parse_unit(match.group("unit"))
        if unit is None:
            continue
        words = match.group("number").lower()
        number = Decimal(1) if words in ("a", "an") else spelled_number(words)
        if number is not None:
            found.append((match.start(), match.end(), number, str(unit)))
    return found


_CARRY_CHARS = 400  # how far back a bare number borrows the unit of the last quantity said


_CARRY_LINES = 8


_CARRY_SECONDS = 60  # in a transcript: within a minute of talk


def carried_quantities(text: str, stamped: str | None = None) -> list[tuple[int, int, Decimal, str]]:
    """Numbers said without a unit right after a quantity with one, read in that unit: "ABOUT TWO CENTIMETRES"
    ... "WE'LL SAY TWO POINT FIVE" is 2.5 centimetres. Only the last unit said, a few lines back, or in a
    meeting (`stamped`: the transcript with its timestamps, same offsets as `text`) within a minute."""
    stamped = stamped if stamped is not None and len(stamped) == len(text) else text
    quantities = sorted(quantity_mentions(text))
    if not quantities:
        return []
    found = []
    for start, end, value, _ in number_mentions(text) + tuple(_plain_numbers(text)):
        if any(q_start <= start < q_end or start <= q_start < end for q_start, q_end, _, _ in quantities):
            continue  # the number of a quantity, or a line that holds one
        if value in _stamp_numbers(stamped, start):
            continue  # a number of a line's timestamp, read with the line's words
        unit = _unit_before(text, stamped, quantities, start)
        if unit is not None:
            found.append((start, end, value, unit))
    return found


def carried_unit(text: str, offset: int, stamped: str | None = None) -> str | None:
    """The unit a bare number at `offset` is said in: that of the last quantity said just before (see
    `carried_quantities`), or None."""
    stamped = stamped if stamped is not None and len(stamped) == len(text) else text
    quantities = sorted(quantity_mentions(text))
    if any(q_start <= offset < q_end for q_start, q_end, _, _ in quantities):
        return None  # a number with its own unit
    return _unit_before(text, stamped, quantities, offset)


def _unit_before(text: str, stamped: str, quantities: list[tuple[int, int, Decimal, str]], start: int) -> str | None:
    before = [q for q in quantities if q[1] <= start]
    if not before:
        return None
    q_start, q_end, _, unit = before[-1]
    said, then = _stamp_seconds(stamped, q_start), _stamp_seconds(stamped, start)
    if said is not None and then is not None:
        near = 0 <= then - said <= _CARRY_SECONDS  # a meeting: the same exchange
    else:
        near = start - q_end <= _CARRY_CHARS and text.count("\n", q_end, start) <= _CARRY_LINES
    return unit if near else None


_STAMP = re.compile(r"\[(\d+):(\d+)(?::(\d+))?\]")


def _stamp_numbers(text: str, offset: int) -> set[Decimal]:
    line_start = text.rfind("\n", 0, offset + 1) + 1
    stamp = _STAMP.match(text, line_start)
    return {Decimal(int(g)) for g in stamp.groups() if g is not None} if stamp else set()


def _stamp_seconds(text: str, offset: int) -> int | None:
    line_start = text.rfind("\n", 0, offset + 1) + 1
    stamp = _STAMP.match(text, line_start)
    if stamp is None:
        return None
    parts = [int(g) for g in stamp.groups() if g is not None]
    return parts[0] * 60 + parts[1] if len(parts) == 2 else parts[0] * 3600 + parts[1] * 60 + parts[2]


def _plain_numbers(text: str) -> list[tuple[int, int, Decimal, str]]:
    found = []
    for match in _PLAIN_NUMBER.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        if text.startswith("[", line_start) and match.start() < text.find("]", line_start):
            continue  # a transcript's timestamp
        value = _number_token(match.group().replace(",", ""))
        if value is not None:
            found.append((match.start(), match.end(), value, "digits"))
    return found


def _digitised_quantities(text: str) -> list[tuple[int, int, Decimal, str]]:
    """Quantities spelled out ("FIFTEEN MINUTES", "TEN CENTS"), placed on their whole line."""
    found = []
    for start, end, digits in _spelled_lines(text):
        for match in _QUANTITY.finditer(digits):
            words = match.group("unit").split()
            unit = next((u for size in range(len(words), 0, -1) if (u := parse_unit(" ".join(words[:size])))), None)
            number = _number_token(match.group("number").replace(",", "."))
            if unit is not None and number is not None:
                found.append((start, end, number, str(unit)))
    return found


def convert(magnitude: Decimal, unit_from: str, unit_to: str) -> Decimal | None:
    """`magnitude unit_from` in `unit_to`, or None when the two are no units of one dimension."""
    registry = _registry()
    try:
        source = registry.Quantity(float(magnitude), registry.parse_units(unit_from))
        return Decimal(str(source.to(registry.parse_units(unit_to)).magnitude))
    except Exception:  # DimensionalityError, UndefinedUnitError, ...
        return None


def unit_of_place(text: str, start: int, end: int) -> str | None:
    """The unit written right after a number found at start-end ("1.2 metres" -> meter), if any."""
    for q_start, q_end, _, unit in quantity_mentions(text):
        if q_start <= start < q_end and end <= q_end + 1:
            return unit
    return None
