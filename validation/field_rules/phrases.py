"""`number_from_other_phrase` and `corrected_value`: a number that belongs to another phrase (a name, an ordinal,
money), or that the text corrects."""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from functools import lru_cache
from typing import Any

from validation.field_rules.words import (
    _MONTHS,
    _ORDINAL,
    _WORDS,
    Doubt,
    LayoutLike,
    LeafLike,
    _narrow,
    key_meaning,
)
from validation.grounding import lowered_text
from validation.neighbour_checks import check_corrected, may_be_corrected
from validation.readings.fields import FieldHint
from validation.readings.numbers import number_mentions, to_decimal


def narrowed_spans(leaves: list[Any], spans: dict[str, tuple[int, int]], text: str) -> dict[str, tuple[int, int]]:
    """Every number's place narrowed to the number itself: a curator's quote ("4,000 capacity (3,677 seated)")
    holds the words of other fields too."""
    narrowed = dict(spans)
    for leaf in leaves:
        place = spans.get(leaf.path)
        if place is not None and isinstance(leaf.value, int | float) and not isinstance(leaf.value, bool):
            narrowed[leaf.path] = _narrow(text, place, leaf.value)
    return narrowed


def _check_number_phrase(
    leaf: LeafLike,
    hint: FieldHint,
    text: str,
    place: tuple[int, int],
    doubt: Doubt,
    places: Callable[[], list[tuple[int, int]]],
) -> None:
    """The number's phrase says it is no value of its field; unless the value is also written elsewhere in a
    phrase that raises no doubt ("Cool 4" is not where "four members" comes from)."""
    found: list[tuple[str, str]] = []
    _number_phrase_doubt(leaf, hint, text, place, lambda code, message, path: found.append((code, message)))
    if not found:
        return
    others = _with_spelled(places()[:8], text, leaf.value, place)  # "three tests" beside "Table 3"
    for other in others:
        if other != place:
            clean: list[str] = []
            _number_phrase_doubt(leaf, hint, text, other, lambda code, message, path, seen=clean: seen.append(code))
            if not clean:
                return
    doubt(found[0][0], found[0][1], leaf.path)


def _with_spelled(
    places: list[tuple[int, int]], text: str, value: Any, inside: tuple[int, int] | None = None
) -> list[tuple[int, int]]:
    """The places of a number, and where it is also said in words ("Eighteen teams" beside an "18" elsewhere):
    the finder stops at the digits when it finds them."""
    number = to_decimal(value) if not isinstance(value, str) else None
    if number is None or number != int(number) or not 0 < number < 1000:
        return places
    from num2words import num2words

    # Read only around the places the number's words are written: a whole long context is not read for them.
    word = num2words(int(number)).split("-")[0].split(" ")[0]
    lowered = lowered_text(text)
    spelled: list[tuple[int, int]] = []
    at = lowered.find(word)
    while at >= 0 and len(spelled) < 8:
        low = max(0, at - 40)
        for s, e, said, how in number_mentions(text[low : at + 60]):
            start, end = low + s, low + e
            if how == "spelled out" and said == number and e - s <= 40 and not (inside and start <= inside[0] < end):
                spelled.append((start, end))
        at = lowered.find(word, at + 60)
    return list(dict.fromkeys([*places, *spelled]))


def _check_corrected_everywhere(
    leaf: LeafLike,
    number: Decimal,
    place: tuple[int, int],
    layout: LayoutLike,
    doubt: Doubt,
    others: list[tuple[int, int]],
    leaves: list[Any],
) -> None:
    """A figure corrected where it is found, unless it is also said elsewhere and left standing there: "FIVE" of
    one criterion, corrected, is not the "FIVE" given to the next one. Where the object's own name (a criterion)
    is said, only the places after it and before another object's name count."""
    if not any(may_be_corrected(candidate, layout) for candidate in dict.fromkeys([place, *others])):
        return  # no correction word after any of its places: most figures, settled before their objects' marks
    marks = _object_marks(leaf, leaves, layout.text)
    own = _in_own_region([place, *others], marks)
    found: list[tuple[str, str, str]] = []
    # In the object's own talk the last figure said is the one that stands: only it can be corrected.
    for candidate in own[-1:] or list(dict.fromkeys([place, *others])):
        # The talk about this object ends where another object is named: a correction after that is of it.
        limit = min((at for at, mine in marks if at > candidate[1] and not mine), default=None)
        said: list[tuple[str, str, str]] = []
        check_corrected(
            leaf,
            number,
            candidate,
            layout,
            lambda code, message, path, seen=said: seen.append((code, message, path)),
            limit,
        )
        if not said:
            return
        found += said
    doubt(*found[0])


def _object_marks(leaf: LeafLike, leaves: list[Any], text: str) -> list[tuple[int, bool]]:
    """Where the names of the objects of the leaf's array are said (a criterion, an item), each marked as the
    leaf's own object or another."""
    if leaf.parent == "$":
        return []
    container = _array_of(leaf.parent)
    lowered = lowered_text(text)
    marks: list[tuple[int, bool]] = []
    for other in leaves:
        if not isinstance(other.value, str) or len(other.value) < 4 or _array_of(other.parent) != container:
            continue
        mine = other.parent == leaf.parent
        marks += [(at, mine) for at in _literal_places(other.value.lower(), lowered, 8)]
    return sorted(marks)


@lru_cache(maxsize=4096)
def _array_of(parent: str) -> str:
    """The array an object is an item of ("$.criteria[2]" -> "$.criteria"): asked for every pair of leaves."""
    return _ITEM_INDEX.sub("", parent)


_ITEM_INDEX = re.compile(r"\[\d+\]$")


def _literal_places(needle: str, text: str, limit: int) -> list[int]:
    """The starts of the first `limit` non-overlapping occurrences of `needle` (what `re.finditer` of the escaped
    needle finds, without compiling a pattern per name: a run's names are too many for `re`'s cache)."""
    found: list[int] = []
    at = text.find(needle)
    while at >= 0 and len(found) < limit:
        found.append(at)
        at = text.find(needle, at + len(needle))
    return found


def _in_own_region(places: list[tuple[int, int]], marks: list[tuple[int, bool]]) -> list[tuple[int, int]]:
    """The places of a value that follow a mention of its own object (a criterion's name) rather than a sibling
    object's: in a meeting, a score belongs to the criterion last named before it."""
    if not any(mine for _, mine in marks):
        return []
    kept = []
    for place in dict.fromkeys(places):
        before = [mark for mark in marks if mark[0] < place[0]]
        if before and before[-1][1]:
            kept.append(place)
    return kept


_LEAD_WORDS = {"about", "around", "approximately", "nearly", "almost", "over", "under", "some", "roughly", "only",
               "just", "exactly", "more", "less", "fewer", "up", "at", "by", "with", "from", "since", "after",
               "before", "until", "circa", "each", "every", "all", "another", "its", "their", "his", "her"}  # fmt: skip


def _common_word(word: str, text: str) -> bool:
    """A word capitalised only because a sentence starts with it: a lead-in of quantities ("About 71%"), or a
    word the text also writes in lower case. "Sum" of "Sum 41 is a band" is neither."""
    lowered = word.lower()
    if lowered in _LEAD_WORDS or (len(lowered) >= 5 and lowered.endswith(("ing", "ed"))):
        return True  # "Lying 155 metres below sea level": a participle leads the sentence
    return re.search(rf"\b{re.escape(lowered)}\b", text) is not None


def _starts_a_sentence(before: str, word: str) -> bool:
    """Is `word`, the last word of `before`, the first of a sentence, line or cell ("About 71%": capitalised by
    its place, not a name)?"""
    head = before[: before.rstrip().rfind(word)] if word else before
    return not head.strip() or bool(re.search(r"[.!?:;|>\n]\s*$", head))


def _number_phrase_doubt(leaf: LeafLike, hint: FieldHint, text: str, place: tuple[int, int], doubt: Doubt) -> None:
    start, end = place
    if hint.is_count and text[max(0, start - 1) : start] == "#":
        doubt("number_from_other_phrase", f"'#{text[start:end]}' numbers an item, it counts nothing", leaf.path)
        return
    before = text[max(0, start - 40) : start]
    after = text[end : end + 24]
    words_before = _WORDS.findall(before)
    previous = words_before[-1] if words_before else ""
    glued = before[len(before.rstrip()) :] in (" ", "") and before.rstrip()[-1:].isalpha()
    if (
        previous[:1].isupper()
        and glued
        and previous.lower() not in key_meaning(leaf.key or "") | hint.words
        and previous.lower() not in _MONTHS
        and previous.lower() not in {"the", "a", "in", "of", "on", "at", "by", "and"}
        and not re.search(r"[.!?:;,]\s*$", before)
        and not text[start:end].isupper()
        and len(text[start:end]) <= 3
        and not (_starts_a_sentence(before, previous) and _common_word(previous, text))
        and not re.match(r"\s*(?:%|percent|per cent)", after, re.IGNORECASE)
    ):
        doubt(
            "number_from_other_phrase",
            f"{leaf.value!r} is part of the name {previous + ' ' + text[start:end]!r}, not a {leaf.key or 'value'}",
            leaf.path,
        )
        return
    if hint.is_count and not hint.currency:
        following = [w.lower() for w in _WORDS.findall(after)][:2]
        money = {"euro", "euros", "pound", "pounds", "dollar", "dollars", "cents", "pence", "quid", "percent"}
        if following and following[0] in money:
            doubt(
                "number_from_other_phrase",
                f"{leaf.value!r} counts {following[0]} ({text[start : end + 12].strip()!r}), not what "
                f"{leaf.key!r} counts",
                leaf.path,
            )
            return
        if _ORDINAL.fullmatch(text[start:end].strip()) or re.match(r"(?:st|nd|rd|th)\b", after):
            doubt("number_from_other_phrase", f"{text[start:end]!r} is an ordinal, not a count", leaf.path)
