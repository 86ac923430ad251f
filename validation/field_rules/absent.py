"""`absent_but_stated`: null or `absent` where the text states the value."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from validation.date_mentions import iso_date_places
from validation.field_rules.words import _GENERIC, Doubt, LayoutLike, LeafLike, _clause, _field_places, shape_of
from validation.readings.fields import FieldHint, field_words
from validation.readings.numbers import number_mentions, to_decimal
from validation.readings.units import convert, quantity_mentions

_DATE_FIELD_WORDS = {"birth", "born", "death", "died", "date", "founded", "opened", "released", "dob", "dod"}


_DATE_NEAR = re.compile(
    r"\b(?:\d{1,2}\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?:\d{1,2},?\s+)?\d{4}\b"
    r"|\(\s*(?:born\s+|b\.\s*)?\d{4}\s*[-–]|\bborn\b[^.;]{0,40}\b\d{4}\b",
    re.IGNORECASE,
)


def _check_absent_date(leaf: LeafLike, hint: FieldHint, layout: LayoutLike, leaves: list[Any], doubt: Doubt) -> bool:
    """A date of birth, death or founding given as not stated, where the entity of the record is written with
    its dates ("Shirley Temple Black (April 23, 1928 – February 10, 2014)")."""
    words = field_words(hint.key)
    if not words & _DATE_FIELD_WORDS or words & {"place", "state", "city", "country", "town", "location", "cause"}:
        return False  # a place or cause of birth or death is no date
    if hint.is_boolean:
        return False  # `born_in_england`: a yes or no, which a date beside the name does not answer
    names = [
        o.value for o in leaves if o.parent == leaf.parent and isinstance(o.value, str) and shape_of(o.value) == "name"
    ]
    text = layout.text
    if any(_UNKNOWN.search(text[max(0, o - 60) : o + 60]) for o in _field_places(words & _DATE_FIELD_WORDS, text)):
        return False  # "the exact date of his birth is not recorded"
    given = {o.value for o in leaves if isinstance(o.value, str) and o.path != leaf.path}
    for name in names[:4]:
        for match in re.finditer(re.escape(name), text):
            after = text[match.end() : match.end() + 90]
            found = _DATE_NEAR.search(after)
            if found and found.start() < 40 and not any(iso_date_places(g, found.group()) for g in given):
                doubt(
                    "absent_but_stated",
                    f"given as not stated, but the text gives {name!r} with a date: "
                    f"{(name + after[: found.end()])[:100]!r}",
                    leaf.path,
                )
                return True
    return False


_DEADLINE_SAID = re.compile(
    r"\b(?:by|before|until|till|due)\s+(?:the\s+)?(?:(?:end|start|beginning|middle)\s+of\s+(?:the\s+)?)?(?:next\s+)?"
    r"(?:week|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|\d{1,2}(?:st|nd|rd|th)?\b|"
    r"(?:first|second|third|fourth|fifth|tenth|twentieth|thirtieth|fifteenth)\b|"
    r"january|february|march|april|may|june|july|august|september|october|november|december)",
    re.IGNORECASE,
)


def _check_absent_deadline(
    leaf: LeafLike,
    hint: FieldHint,
    layout: LayoutLike,
    leaves: list[Any],
    spans: dict[str, tuple[int, int]],
    doubt: Doubt,
) -> bool:
    """An action's deadline given as not stated, while the line that assigns the action says "BY THE END OF
    NOVEMBER": the object's other values (its task) are located on that line."""
    if leaf.parent == "$" or not field_words(hint.key) & {"deadline", "due", "when", "date", "by"}:
        return False
    for other in leaves:
        if other.parent != leaf.parent or other.path not in spans or not isinstance(other.value, str):
            continue
        line_start, line_end = layout.line(spans[other.path][0])
        said = _DEADLINE_SAID.search(layout.text, line_start, line_end)
        if said is not None:
            doubt(
                "absent_but_stated",
                f"given as not stated, but the line of its {other.key!r} says {said.group()!r}",
                leaf.path,
            )
            return True
    return False


_MONTH_NAMES = "january|february|march|april|may|june|july|august|september|october|november|december"


def _labelled_value(words: set[str], text: str, offset: int) -> re.Match[str] | None:
    """A form's "Telephone: 0161 496 0732" (or "| Telephone | 0161 ... |"): the field's word as a label with a
    value after it on its line. A blank, a dash or "n/a" states nothing."""
    line_start = text.rfind("\n", 0, offset) + 1
    line_end = text.find("\n", offset)
    line = text[line_start : line_end if line_end >= 0 else len(text)]
    line = re.sub(r"<[^>]{1,40}>", " ", re.sub(r"</t[dh]>\s*<t[dh][^>]{0,40}>", " | ", line))  # an HTML row
    label = re.match(r"\s*[|*#-]*\s*(?P<label>[^:|]{1,40}?)\s*\**\s*[:|]\s*\**\s*(?P<value>[^|]*)", line)
    if label is None or not field_words(label.group("label")) & words:
        return None
    value = label.group("value").strip(" *_|")
    if not value or re.fullmatch(r"[-–—_.\s]*|n/?a|none|not given|unknown|\[\s*\]", value, re.IGNORECASE):
        return None
    return label


# The text saying that it does not know a value: the `absent` claim is the text's own.
_UNKNOWN = re.compile(
    r"\b(?:(?:is|are|was|were|remains?|has|have|had)\s+(?:not\s+|never\s+)?(?:been\s+)?"
    r"(?:unknown|uncertain|unrecorded|undisclosed|unclear|not\s+(?:known|recorded|documented|disclosed|given|stated|"
    r"specified|decided|agreed|confirmed|set|fixed)|never\s+(?:recorded|disclosed|announced|confirmed))"
    r"|no\s+(?:record|records)\s+of|not\s+yet\s+(?:decided|agreed|set|fixed|known|confirmed)|to\s+be\s+(?:decided|"
    r"confirmed|announced|determined)|tb[acd]\b|haven'?t\s+(?:decided|agreed|set|fixed))",
    re.IGNORECASE,
)


def _check_absent(
    leaf: LeafLike, hint: FieldHint, layout: LayoutLike, doubt: Doubt, names: list[str], taken: set[Decimal]
) -> bool:
    words = {w for w in field_words(hint.key) if len(w) >= 5 and w not in _GENERIC}
    words = {w[:-1] if w.endswith("s") and len(w) > 5 else w for w in words}  # "colours" is written "colour" too
    if not words:
        return False
    for offset in _field_places(words, layout.text)[:8]:
        if _UNKNOWN.search(layout.text[max(0, offset - 60) : offset + 60]):
            return False  # "the exact date of his birth is not recorded": the text says it does not say
        clause = _clause(layout, offset)
        about = (clause + " " + (layout.paragraph_head(offset) if hasattr(layout, "paragraph_head") else "")).lower()
        if names and not any(name.lower() in about for name in names[:8]):
            continue  # another entity's deadline or price says nothing of this one's
        if taken and taken & _numbers_in(clause):
            continue  # "JUNIOR FEE GOES TO SEVENTY FIVE": the value another object of the answer holds
        if hint.unit and not _has_dimension_of(hint.unit, clause):
            stated = None  # "a 52-story tower" says nothing of a height in metres
        elif hint.unit or hint.currency is not None or hint.is_count or hint.is_number:
            counted = clause if "year" in field_words(hint.key) else _YEARS.sub(" ", clause)  # "a 1998 novel"
            stated = re.search(r"\d", counted) or (layout.is_transcript and _spelled_in(clause))
        elif hint.is_time or "deadline" in words or "date" in hint.words:
            stated = re.search(r"\d|\b(?:monday|tuesday|wednesday|thursday|friday|tomorrow|tonight|next week|"
                               r"(?:end|start|beginning|middle) of (?:the )?(?:week|month|" + _MONTH_NAMES + r"))\b",
                               clause, re.IGNORECASE)  # fmt: skip
        else:
            stated = _labelled_value(words, layout.text, offset)
        if stated:
            doubt(
                "absent_but_stated",
                f"given as not stated, but the text speaks of {leaf.key!r} here: {clause.strip()[:90]!r}",
                leaf.path,
            )
            return True
    return False


_YEARS = re.compile(r"\b(?:1[5-9]|20)\d\d\b")


def _numbers_in(clause: str) -> set[Decimal]:
    digits = {n for m in re.finditer(r"\d+(?:\.\d+)?", clause) if (n := to_decimal(m.group())) is not None}
    return digits | {said for _, _, said, _ in number_mentions(clause)}


def _has_dimension_of(unit: str, clause: str) -> bool:
    """Does the clause state a quantity convertible to `unit` (a length for a field in metres)?"""
    return any(convert(Decimal(1), said, unit) is not None for _, _, _, said in quantity_mentions(clause))


def _spelled_in(clause: str) -> bool:
    """A number in words in a line of a meeting ("ONE SPECIAL COLOUR")."""
    return any(how != "decimal comma" for _, _, _, how in number_mentions(clause))
