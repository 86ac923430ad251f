"""`unit_mismatch`, `scale_dropped` and `sign_against_text`: a number beside the unit, scale or sign its text gives
it."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from validation.field_rules.words import Doubt, LeafLike
from validation.readings import BELOW_ZERO
from validation.readings.fields import FieldHint, field_words
from validation.readings.numbers import close, number_mentions, to_decimal
from validation.readings.units import carried_unit, convert, parse_unit, quantity_mentions


def _check_unit(
    leaf: LeafLike, hint: FieldHint, text: str, place: tuple[int, int], doubt: Doubt, stamped: str | None = None
) -> None:
    if not hint.unit:
        return
    field_unit = parse_unit(hint.unit) or None
    for start, end, magnitude, unit in quantity_mentions(text):
        if start <= place[0] < end or (place[0] < start and end <= place[1] and place[1] - place[0] <= 40):
            # the quantity at the place, or inside a short quote of it ("about 2,340 miles")
            if field_unit is None or str(field_unit) == unit or not close(magnitude, leaf.value):
                return  # in the field's unit, or converted
            written = parse_unit(unit)
            if written is not None and written.dimensionality == field_unit.dimensionality:
                doubt(
                    "unit_mismatch",
                    f"{leaf.value!r} is written {text[start:end]!r} in {unit}, but the field is in {hint.unit}: "
                    "convert it (evidence `convert`) or correct the field's unit",
                    leaf.path,
                )
            return
    if field_unit is None or _calendar_year(leaf.value, hint):
        return  # a year of the calendar ("built in 1868") is a date, no quantity carried on from "six months"
    unit = carried_unit(text, place[0], stamped)  # a bare number: in the unit said just before
    if unit is not None and str(field_unit) != unit:
        as_said = convert(to_decimal(leaf.value) or Decimal(0), str(field_unit), unit)
        line_start, line_end = text.rfind("\n", 0, place[0]) + 1, text.find("\n", place[1])
        line = text[line_start : line_end if line_end >= 0 else len(text)]
        said = [n for _, _, n, _ in number_mentions(line)] + [Decimal(d) for d in re.findall(r"\d+(?:\.\d+)?", line)]
        if as_said is not None and any(close(number, as_said) for number in said):
            return  # converted from what was said: right
        written = parse_unit(unit)
        if written is not None and written.dimensionality == field_unit.dimensionality:
            doubt(
                "unit_mismatch",
                f"{leaf.value!r} is said as {text[place[0] : place[1]].strip()[:40]!r} right after a quantity in "
                f"{unit}, but the field is in {hint.unit}: convert it or correct the field's unit",
                leaf.path,
            )


def _calendar_year(value: Any, hint: FieldHint) -> bool:
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and 1000 <= value <= 2100
        and (hint.is_time or "year" in hint.words or bool(hint.words & _YEAR_EVENT_WORDS))
    )


_YEAR_EVENT_WORDS = {"built", "founded", "opened", "born", "died", "established", "released", "published", "since"}


_AFTER_POINT = re.compile(r"(?:^|\s)(\w+)\s+point\s+(?:\w{1,2}\s+)?$", re.IGNORECASE)  # "TWO POINT T THREE"


_NOT_A_NUMBER_BEFORE = {"this", "that", "the", "a", "one", "some", "each", "every", "which", "what", "any", "no"}


def _check_after_point(leaf: LeafLike, text: str, place: tuple[int, int], doubt: Doubt) -> None:
    """A whole number said right after "point" ("TWO POINT T THREE EURO" given as 3): the digits after a spoken
    decimal point, not a number of their own. "AT THIS POINT THREE ..." is no decimal."""
    value = leaf.value
    if not isinstance(value, int) or isinstance(value, bool) or not 0 < value < 100:
        return
    match = _AFTER_POINT.search(text[max(0, place[0] - 40) : place[0]])
    if match is None or match.group(1).lower() in _NOT_A_NUMBER_BEFORE:
        return
    said = text[max(0, place[0] - 40) + match.start() : place[1]].strip()
    doubt(
        "scale_dropped",
        f"{value!r} is said after a decimal point ({said[:50]!r}): the digits of a decimal, not a whole number",
        leaf.path,
    )


_DOWNWARD_FIELD = {"depth", "deep", "below", "drop", "fall", "decline", "loss", "deficit", "decrease", "under"}


def _check_sign(leaf: LeafLike, hint: FieldHint, text: str, place: tuple[int, int], doubt: Doubt) -> None:
    """A positive value written "86 m below sea level" (or below zero) in a field that is not itself a depth: an
    elevation or temperature below zero is negative."""
    value = leaf.value
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return
    if field_words(hint.key) & _DOWNWARD_FIELD:
        return  # `depth_below_sea_level_m` is positive
    after = text[place[1] : place[1] + 60]
    lowered = after.lower()
    if "below" not in lowered and "under" not in lowered:
        return  # the pattern needs one of them; its letter runs backtrack on every other window
    found = BELOW_ZERO.match(after)
    if found is None:
        return
    doubt(
        "sign_against_text",
        f"{value!r} is written {text[place[0] : place[1]] + found.group()!r}: below zero, so negative?",
        leaf.path,
    )


_PERCENT_SAID = re.compile(r"^\s*%|\b(?:percent|per cent)\b", re.IGNORECASE)  # right after, or later in its line


_MINOR_NEXT = re.compile(r"\s*(?:cents?|pence|p)\b", re.IGNORECASE)


_SHARE_WORDS = {"fraction", "share", "proportion", "ratio"}


_PERCENT_WORDS = {"percent", "percentage", "pct", "per", "cent"}


_MINOR_WORDS = {"cent", "cents", "pence", "penny", "p"}


def _check_hundredths(leaf: LeafLike, hint: FieldHint, text: str, place: tuple[int, int], doubt: Doubt) -> None:
    """A value written with a unit a hundred times smaller than its field's: "SEVENTY PERCENT" given as 70 in a
    field that holds a fraction between 0 and 1, "TEN CENTS" given as 10 in a field in euros."""
    value = leaf.value
    if not 1 < abs(value) <= 10_000:
        return
    after = text[place[1] : place[1] + 12]
    words = hint.words
    line_end = text.find("\n", place[1])
    rest_of_line = text[place[1] : line_end if line_end >= 0 else len(text)][:60]
    if words & _SHARE_WORDS and not words & _PERCENT_WORDS and _PERCENT_SAID.search(rest_of_line):
        doubt(
            "unit_mismatch",
            f"{value!r} is said as a percentage ({(text[place[0] : place[1]] + rest_of_line).strip()[:60]!r}), "
            f"but {leaf.key!r} holds a fraction: {value / 100!r}?",
            leaf.path,
        )
    elif hint.currency and not words & _MINOR_WORDS and _MINOR_NEXT.match(after):
        doubt(
            "unit_mismatch",
            f"{value!r} is written in cents ({text[place[0] : place[1]]}{_MINOR_NEXT.match(after).group()}), but "  # type: ignore[union-attr]
            f"{leaf.key!r} is in {hint.currency}: {value / 100!r}?",
            leaf.path,
        )


_SCALE_AFTER = re.compile(
    r"(\d+(?:[.,]\d+)?)(?:\s*(thousand|million|billion|trillion|bn|mn)\b|((?-i:[KMBT]))(?![\w.]))", re.IGNORECASE
)  # "43 million", "78.7M" (a capital letter glued to the number: not "5 m" of metres)


_SCALE_NAMES = {
    "thousand": 3, "thousands": 3, "k": 3, "million": 6, "millions": 6, "m": 6, "mn": 6, "billion": 9, "billions": 9,
    "bn": 9, "b": 9, "trillion": 12, "trillions": 12, "tn": 12, "t": 12,
}  # fmt: skip


_NOT_SCALED = re.compile(r"\bnot (?:in |as |counted in )?(thousands|millions|billions|trillions)\b", re.IGNORECASE)


_SCALE_LETTERS = frozenset("KMBT")


def _may_name_scale(window: str) -> bool:
    """Could `_SCALE_AFTER` match in the window? An ASCII window without a scale word or letter cannot (most
    numbers): a few substring tests instead of the pattern. Other text may fold to one ("K", the kelvin sign)."""
    if not window.isascii():
        return True
    lowered = window.lower()
    return (
        "thousand" in lowered
        or "illion" in lowered
        or "bn" in lowered
        or "mn" in lowered
        or not _SCALE_LETTERS.isdisjoint(window)
    )


# the words a field's name may count in (not the bare letters "b" and "t", too often other words in a name)
_SCALE_WORDS = set(_SCALE_NAMES) - {"b", "t"}


def _check_scale(leaf: LeafLike, hint: FieldHint, text: str, place: tuple[int, int], doubt: Doubt) -> None:
    """ "$43 million" given as 43 in a field that does not say it counts millions, or "$1.4 billion" given as 1.4
    in a field that counts millions."""
    window = text[place[0] : max(place[1], place[0]) + 14]
    if not _may_name_scale(window):
        return
    match = _SCALE_AFTER.search(window)
    if match is None or not close(float(match.group(1).replace(",", ".")), leaf.value):
        return
    scale = match.group(2) or match.group(3)
    denied = {_SCALE_NAMES[m.group(1).lower()] for m in _NOT_SCALED.finditer(hint.description)}
    # the field's own words, and its object's (`revenue_billions.y2024`)
    named_in = hint.words | field_words(re.sub(r"\[\d+\]", " ", leaf.path))
    field_scales = {_SCALE_NAMES.get(w) for w in named_in & _SCALE_WORDS} - {None} - denied
    if field_scales and _SCALE_NAMES.get(scale.lower()) in field_scales:
        return  # the field counts in the scale the text writes
    named = {"K": "thousand", "M": "million", "B": "billion", "T": "trillion"}.get(scale, scale.lower())
    doubt(
        "scale_dropped",
        f"{leaf.value!r} is written {match.group()!r}: the {named} is dropped, and {leaf.key!r} does not "
        f"say it counts {named}s",
        leaf.path,
    )
