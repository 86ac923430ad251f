"""What a field's key and description say about its value: its words, its unit and scale, and whether it is
money, a count, a time or a date."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

from validation.readings.money import _currency_in
from validation.readings.units import _UNIT_WORDS

# Words of a field that name a point in time rather than a duration: "year" in `birth_year` is no unit.
_NOT_DURATION = {"birth", "born", "death", "died", "founded", "start", "end", "release", "released", "date", "when"}


_MONEY_WORDS = {"price", "cost", "fare", "fee", "amount", "budget", "salary", "revenue", "money", "paid", "pay"}


_COUNT_WORDS = {"count", "number", "num", "how", "many", "total", "n"}


_TIME_WORDS = {
    "time",
    "times",
    "clock",
    "hour",
    "starts",
    "start",
    "begins",
    "departure",
    "arrival",
    "sailing",
    "opens",
}


@dataclass(frozen=True)
class FieldHint:
    key: str = ""
    description: str = ""
    unit: str | None = None  # pint unit name the value is in
    currency: str | None = None  # ISO code the value is in
    is_count: bool = False
    is_time: bool = False
    is_number: bool = False  # the schema types it a number (or integer) only
    is_boolean: bool = False  # the schema types it a boolean only (`born_in_england` holds no date)

    @cached_property  # hints are shared (`field_hint` is cached) and asked for their words by many rules
    def words(self) -> frozenset[str]:
        return field_words(self.key, self.description)


@lru_cache(maxsize=8192)
def field_words(key: str, description: str = "") -> frozenset[str]:
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", f"{key} {description}")
    return frozenset(w for w in re.split(r"[^a-z0-9]+", text.lower()) if w)


@lru_cache(maxsize=4096)
def field_hint(key: str, description: str = "", types: frozenset[str] = frozenset()) -> FieldHint:
    """What a field's key and description say about its value's unit, currency, count or clock time."""
    description = _DATE_PATTERN.sub(" ", description)  # the "MM" of "YYYY-MM-DD" is no millimetre
    key_words = field_words(key)
    words = field_words(key, description)
    unit = _compound_unit(key)
    # A unit in the key wins over one in the description ("height_cm": "height of the tower").
    for source in (key_words, words):
        if unit:
            break
        for word in sorted(source, key=lambda w: -len(w)):
            if word in _UNIT_WORDS and not (word in ("year", "years", "day", "days") and words & _NOT_DURATION):
                if word == "m" and "m" not in key.lower().split("_"):
                    continue
                unit = _UNIT_WORDS[word]
                break
        if unit:
            break
    if unit is None and key.lower().split("_")[-1:] == ["s"] and len(key.split("_")) > 1:
        unit = "second"  # `duration_s`
    currency = _currency_in(words)
    if currency is not None and unit == "pound":
        unit = None  # "price in pounds": money, not mass
    if unit in _TIME_UNITS and _currency_in(key_words) is not None:
        unit = None  # `day_ticket_eur`, `price_per_hour_usd`: an amount of money, the time word names what it buys
    if currency is None and words & _MONEY_WORDS:
        currency = ""  # money in an unnamed currency
    lowered = key.lower()
    is_count = (
        bool(key_words & {"count", "num", "total"})
        or lowered.startswith(("n_", "number_of", "num_"))
        or "how many" in description.lower()
        or "number of" in description.lower()
    )
    is_time = bool(key_words & _TIME_WORDS) and not is_count and (not types or "string" in types)
    is_number = bool(types) and types - {"null"} <= {"number", "integer"} and bool(types - {"null"})
    is_boolean = types - {"null"} == {"boolean"}
    return FieldHint(key, description, unit, currency, is_count, is_time, is_number, is_boolean)


_TIME_UNITS = {"second", "minute", "hour", "day", "week", "month", "year"}


_DATE_PATTERN = re.compile(r"\b(?:yyyy|yy|mm|dd|hh|ss)(?:\s?[-/.:]\s?(?:yyyy|yy|mm|dd|hh|ss))+\b", re.IGNORECASE)


def _compound_unit(key: str) -> str | None:
    """A unit written over two tokens of a key: `speed_m_s` (m/s), `speed_km_h`, `velocity_ft_s`."""
    tokens = [t for t in re.split(r"[^a-z0-9]+", key.lower()) if t]
    for first, second in zip(tokens, tokens[1:], strict=False):
        name = _UNIT_WORDS.get(f"{first}/{second}")
        if name:
            return name
    return None
