"""`copied_span`, `letter_not_in_context` and `speaker_mismatch`: a string value that copies a span, uses a letter
the context never does, or names the wrong speaker."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from validation.field_rules.words import (
    _FREE_TEXT_WORDS,
    _GENERIC,
    _LIST_WORDS,
    _ONE_THING_WORDS,
    _SPEAKER_WORDS,
    MAX_COPY_WORDS,
    MAX_NAME_WORDS,
    Doubt,
    LayoutLike,
    LeafLike,
    affinity,
    key_meaning,
)
from validation.readings.fields import FieldHint, field_words

_ITEM_SEPARATORS = re.compile(r"\s*(?:[,;|\n]|\s/\s)\s*")


_MARKUP_IN_VALUE = re.compile(r"(?:^|\n)\s*\[\d{1,2}:\d{2}(?::\d{2})?\] [^:\n]{1,64}: ")


_NUMBER_CELL = re.compile(r"[-+−$€£(]*\d[\d,.]*[%)]?(?:[KMBTkmbt]|bn|mn)?")


_CODE_WORDS = {
    "phone",
    "telephone",
    "tel",
    "fax",
    "isbn",
    "issn",
    "code",
    "id",
    "number",
    "numbers",
    "digits",
    "serial",
}


def _check_letters(leaf: LeafLike, layout: Any, doubt: Doubt) -> None:
    """A letter the context never uses ("Sólvang" where it says "Solvang"): a typing slip or a forged variant."""
    value = unicodedata.normalize("NFC", leaf.value)
    if value.isascii():
        return
    original = unicodedata.normalize("NFC", getattr(layout, "original", None) or layout.text)
    foreign = sorted({c for c in value if not c.isascii() and c.isalpha() and c not in original})
    if foreign:
        shown = ", ".join(f"{c!r} (U+{ord(c):04X})" for c in foreign[:5])
        doubt("letter_not_in_context", f"{shown} never occurs in the context", leaf.path)


_QUOTING_WORDS = {"transcript", "excerpt", "lines", "line", "utterances", "utterance", "quote", "quotation"}


def _check_copy(leaf: LeafLike, hint: FieldHint, text: str, doubt: Doubt) -> None:
    value = leaf.value.strip()
    words = value.split()
    utterances = len(_MARKUP_IN_VALUE.findall(value))
    # One timestamp and speaker label inside a value is enough: an answer never carries the transcript's markup.
    if utterances >= 1 and not field_words(leaf.key or "") & _QUOTING_WORDS:
        doubt(
            "copied_span",
            f"{utterances} utterance(s) of the transcript, with their timestamps and speaker labels, pasted as the "
            f"value of {leaf.key!r}",
            leaf.path,
        )
        return
    if hint.words & _FREE_TEXT_WORDS:
        return
    if (
        len(words) >= 4
        and all(_NUMBER_CELL.fullmatch(word) for word in words)
        and not hint.words & (_LIST_WORDS | _CODE_WORDS)
    ):
        doubt(
            "copied_span",
            f"{len(words)} numbers pasted as the one value of {leaf.key!r} (a table's row or column, not a value)",
            leaf.path,
        )
        return
    if leaf.key and not leaf.key.endswith("s") and not hint.words & _LIST_WORDS:  # a field of one thing
        items = [item for item in _ITEM_SEPARATORS.split(value) if item]
        if len(items) >= 4:
            doubt(
                "copied_span",
                f"{len(items)} items pasted as the one value of {leaf.key!r} (a table column or a list, not a value)",
                leaf.path,
            )
            return
    several_lines = value.count("\n") >= 2 or value.count("|") >= 4
    names_one = bool(field_words(leaf.key or "") & _ONE_THING_WORDS)
    if len(words) > MAX_COPY_WORDS or several_lines or (names_one and len(words) > MAX_NAME_WORDS):
        doubt(
            "copied_span",
            f"a passage of {len(words)} words{' over several lines' if several_lines else ''} pasted as the value "
            f"of {leaf.key!r}, a field that names one thing",
            leaf.path,
        )


def _speaker_of(layout: LayoutLike, offset: int) -> str | None:
    start, end = layout.line(offset)
    match = re.match(r"\[[\d:]+\] ([^:\n]{1,64}): ", _original_line(layout, start, end))
    return match.group(1) if match else None


def _original_line(layout: Any, start: int, end: int) -> str:
    original = getattr(layout, "original", None) or layout.text
    return original[start:end]


def _speaker_labels(layout: Any) -> frozenset[str]:
    original = getattr(layout, "original", None) or layout.text
    return frozenset(re.findall(r"^\[[\d:]+\] ([^:\n]{1,64}): ", original, re.M))


def _is_speaker_field(hint: FieldHint) -> bool:
    key_words = field_words(hint.key)
    return bool(key_words & _SPEAKER_WORDS) or any(w.endswith(("er", "or")) for w in key_words)


def _check_speaker(
    leaf: LeafLike,
    hint: FieldHint,
    layout: LayoutLike,
    spans: dict[str, tuple[int, int]],
    leaves: list[Any],
    doubt: Doubt,
) -> None:
    key_words = field_words(hint.key, hint.description)
    if not key_words & _SPEAKER_WORDS and not any(w.endswith(("er", "or")) for w in field_words(hint.key)):
        return
    siblings = [
        other for other in leaves
        if other.parent == leaf.parent and other.path != leaf.path and other.path in spans
        and isinstance(other.value, str | int | float) and not isinstance(other.value, bool)
        and str(other.value).strip() not in (leaf.value,) and str(other.value).strip() not in _speaker_labels(layout)
    ]  # fmt: skip
    topic = key_meaning(hint.key) - _SPEAKER_WORDS - _GENERIC
    about = [o for o in siblings if o.key and affinity(key_meaning(o.key), topic)]
    if not siblings:
        return
    speaker = leaf.value.strip()
    nearby: set[str] = set()
    for other in about or siblings:
        start = spans[other.path][0]
        line_start, line_end = layout.line(start)
        # The sibling the field names ("objection" for `first_objection_by`) was said by that speaker; any
        # other sibling only by someone speaking around it.
        offsets = (line_start,) if about else (line_start, max(0, line_start - 1), line_end + 1)
        for offset in offsets:
            who = _speaker_of(layout, min(offset, max(0, len(layout.text) - 1)))
            if who:
                nearby.add(who)
    if nearby and speaker not in nearby:
        doubt(
            "speaker_mismatch",
            f"{speaker} is not the speaker of the utterances that hold this item's values "
            f"({', '.join(sorted(nearby))})",
            leaf.path,
        )
