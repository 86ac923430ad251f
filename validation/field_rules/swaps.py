"""`value_from_other_phrase` and `possible_swap`: a value that stands by another field's words, or two values each by
the other's."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from validation.field_hints import hint_for
from validation.field_rules.phrases import _with_spelled
from validation.field_rules.words import (
    _GENERIC,
    _NUMBER_IN_TEXT,
    _SENTENCE_BREAK,
    _WORDS,
    Doubt,
    Finder,
    LayoutLike,
    _clause,
    affinity,
    key_meaning,
    mentioned,
    shape_of,
    window_words,
)
from validation.grounding import lowered_text
from validation.readings.fields import FieldHint, field_words
from validation.readings.numbers import close, to_decimal
from validation.readings.units import parse_unit
from validation.table_units import cell_header


def _check_other_phrase(
    leaves: list[Any],
    spans: dict[str, tuple[int, int]],
    layout: LayoutLike,
    hints: dict[str, FieldHint] | None,
    find: Finder,
    doubt: Doubt,
    names: list[str],
) -> None:
    """A number or year that stands by none of its field's words anywhere it is written, while another number of
    its kind does: "formed in 2013 and debuted in 2014" given as a formation year 2014; "4,000 in all with 3,677
    seated" given as seated 4,000; "Euro Stoxx 50" given as a count of countries."""
    text = layout.text
    lowered = lowered_text(text)
    siblings: dict[tuple[str, str], set[str]] = {}  # (parent, shape) -> keys
    for leaf in leaves:
        if leaf.key:
            siblings.setdefault((leaf.parent, shape_of(leaf.value)), set()).add(leaf.key)
    for leaf in leaves:
        if leaf.path not in spans or not leaf.key or shape_of(leaf.value) not in ("year", "number"):
            continue
        # The field's own words: not those it shares with a sibling of its kind (`seated_capacity` beside
        # `total_capacity` is "seated", not "capacity"; `formed_by`, a name, takes nothing from `formed_year`).
        own = _own_words(leaf.key, frozenset(siblings.get((leaf.parent, shape_of(leaf.value)), ())))
        if not own or not mentioned(own, lowered):
            continue  # the text never uses the field's words: no number stands by them
        located = spans[leaf.path]
        by_own_words = affinity(window_words(text, *located, before=_NEAR_BEFORE, after=_NEAR_AFTER, inside=True), own)
        if by_own_words and (not names or _names_near(layout, located[0], names)):
            continue  # where it was placed, its field's words stand by it: the common case, settled cheaply
        found = find(leaf.value, hint_for(hints, leaf.path, leaf.key))
        places = _with_spelled(list(dict.fromkeys([located, *found])), text, leaf.value)  # its evidence counts too
        # Only where the record's own entities are written: another entity's "formed in 2014" says nothing.
        about = [p for p in places if _names_near(layout, p[0], names)] or places
        if any(
            (
                by_own_words
                if (start, end) == located  # its words were read there above
                else affinity(window_words(text, start, end, before=_NEAR_BEFORE, after=_NEAR_AFTER, inside=True), own)
            )
            or affinity(field_words(cell_header(text, start) or ""), own)  # a table cell: its column's header
            or _subject_names(_subject_words(layout, start), own)
            for start, end in about
        ):
            continue
        shape = shape_of(leaf.value)
        number = to_decimal(leaf.value)
        if number is None:
            continue
        rival = _rival_by_field_words(text, layout, about, shape, number, own)
        if rival is not None:
            start, end = rival
            doubt(
                "value_from_other_phrase",
                f"{leaf.value!r} stands by none of the words of {leaf.key!r} where it is written; "
                f"{text[start:end]!r} in the same sentence does ({text[max(0, start - 30) : end + 20].strip()!r})",
                leaf.path,
            )


_KIND_WORDS = frozenset({"year", "date", "number", "count", "total", "amount"})


@lru_cache(maxsize=4096)
def _own_words(key: str, kin: frozenset[str]) -> frozenset[str]:
    """A field's own words among its siblings of one kind (`kin`, its own key included): once per schema."""
    shared = set().union(*(key_meaning(k) for k in kin if k != key))
    return key_meaning(key) - shared - _GENERIC - _KIND_WORDS


def _subject_words(layout: LayoutLike, offset: int) -> set[str]:
    """The first words of a short sentence's clause that holds a number: its subject ("Unit tests tasks are run to a
    maximum of 100 steps")."""
    if layout.is_transcript:
        return set()
    sentence = layout.sentence(offset)
    at = layout.text.rfind(sentence[:20], 0, offset + 1) if sentence else -1
    if at < 0 or offset - at > 70 or re.search(r"[,;:]", layout.text[at:offset]):
        return set()
    return set(field_words(" ".join(re.findall(r"[A-Za-z]+", layout.text[at:offset])[:3])))


def _subject_names(subject: set[str], own: frozenset[str]) -> bool:
    """Does a sentence's subject name the field: two of its words (one for a field of one), "unit tests" for
    `unit_test`, not "The film" for `feature_films_edited`."""
    stems = {w[:4] for w in own if len(w) >= 3}
    named = {w[:4] for w in subject} & stems
    return bool(stems) and len(named) >= min(2, len(stems))


_NEAR_BEFORE, _NEAR_AFTER = 28, 20  # characters around a number that say what it counts ("27 km in circumference")


def _comparable(other: Any, number: Any) -> bool:
    """Numbers of one order of magnitude (a fraction and a count, or 754 and 803,600, are not rivals)."""
    a, b = abs(float(other)), abs(float(number))
    if a == 0 or b == 0:
        return a == b
    return max(a, b) / min(a, b) <= 10 or (a < 1) == (b < 1) and max(a, b) / min(a, b) <= 100


def _names_near(layout: LayoutLike, offset: int, names: list[str]) -> bool:
    if not names:
        return False
    clause = _clause(layout, offset).lower()
    return any(name.lower() in clause for name in names[:8])


def _rival_by_field_words(
    text: str, layout: LayoutLike, places: list[tuple[int, int]], shape: str, number: Any, own: frozenset[str]
) -> tuple[int, int] | None:
    """Another number of the same kind, in a sentence where the value is written, that stands by the field's
    words."""
    ends = dict(places)

    def end_of(start: int) -> int:
        return min(ends.get(start, start), len(text) - 1)

    for start, _ in places[:16]:
        line_start, line_end = layout.line(start)
        for match in _NUMBER_IN_TEXT.finditer(text, line_start, line_end):
            if abs(match.start() - start) > 160:
                continue
            other = match.group().replace(",", "")
            other_value: Any = int(other) if other.isdigit() else float(other)
            if shape_of(other_value) != shape or close(other_value, number) or not _comparable(other_value, number):
                continue
            if (text[match.end() : match.end() + 1] == "%") != (text[end_of(start)] == "%"):
                continue  # a percentage is no rival of a count, nor the other way round
            words = window_words(text, match.start(), match.end(), before=_NEAR_BEFORE, after=_NEAR_AFTER, inside=True)
            if affinity(words, own):
                return match.start(), match.end()
    return None


def _check_swaps(
    leaves: list[Any], spans: dict[str, tuple[int, int]], text: str, hints: dict[str, FieldHint] | None, doubt: Doubt
) -> None:
    """Two siblings of one kind, each standing by the words of the other's field and not of its own."""
    lowered = lowered_text(text)
    by_parent: dict[str, list[Any]] = {}
    for leaf in leaves:
        if leaf.key and leaf.path in spans and not isinstance(leaf.value, bool) and leaf.value is not None:
            by_parent.setdefault(leaf.parent, []).append(leaf)
    for siblings in by_parent.values():
        if len(siblings) < 2:
            continue
        by_shape: dict[str, list[Any]] = {}
        for leaf in siblings:
            by_shape.setdefault(shape_of(leaf.value), []).append(leaf)
        for group in by_shape.values():
            _swaps_in(group, spans, text, lowered, doubt, hints)


def _governed_by(text: str, start: int, own: frozenset[str], other: frozenset[str]) -> str | None:
    """Which field's word stands last before a value in its clause ("signed on 4 May 1950 and came into force on
    9 June 1951": "signed" governs the first date, "force" the second): "own", "other" or None."""
    line_start = text.rfind("\n", 0, start) + 1
    head = _SENTENCE_BREAK.split(text[max(line_start, start - 48) : start])[-1]
    for word in reversed([w.lower().strip("'") for w in _WORDS.findall(head)]):
        mine, theirs = affinity([word], own), affinity([word], other)
        if mine != theirs:
            return "own" if mine > theirs else "other"
    return None


# "written and directed by": participles only ("the offer of exchange by NAME" names no role)
_PARTICIPLE = r"[a-z]+ed|written|sung|drawn|made|built|led|held|sold|taught|shot|won|given|taken|run|done|chosen"


_BY_BEFORE = re.compile(rf"\b({_PARTICIPLE})(?:,?\s+and\s+({_PARTICIPLE}))?\s+by\s*$", re.IGNORECASE)


_WHO_AFTER = re.compile(r"\s*,?\s*(?:who|which)\s+(?:also\s+|had\s+|has\s+|first\s+)?([a-z]+)", re.IGNORECASE)


def _agent_role(text: str, start: int, end: int, own: frozenset[str], other: frozenset[str]) -> str | None:
    """The role a sentence gives a name as the agent of a verb: "produced by NAME", "NAME, who recorded it":
    "own", "other" or None (no such verb, or a verb of neither field)."""
    passive = _BY_BEFORE.search(text, max(0, start - 40), start)
    active = _WHO_AFTER.match(text, end)
    verbs = [g.lower() for g in (passive or active).groups() if g] if (passive or active) else []
    mine = any(affinity([verb], own) for verb in verbs)
    theirs = any(affinity([verb], other) for verb in verbs)
    if mine != theirs:
        return "own" if mine else "other"
    return None


def _agents_crossed(
    first: Any, second: Any, spans: dict[str, tuple[int, int]], text: str, own_a: frozenset[str], own_b: frozenset[str]
) -> bool:
    """Two names each given by the text as the agent of the other field's verb ("directed by A and produced by B"
    for director B, producer A); or one so, and the other the agent of no verb of its own."""
    if shape_of(first.value) != "name" or shape_of(second.value) != "name":
        return False
    role_a = _agent_role(text, *spans[first.path], own_a, own_b)
    role_b = _agent_role(text, *spans[second.path], own_b, own_a)
    return (role_a == "other" and role_b != "own") or (role_b == "other" and role_a != "own")


def _other_dimensions(first: Any, second: Any, hints: dict[str, FieldHint] | None) -> bool:
    """Two fields whose names give units of different kinds (`crossing_minutes`, `distance_km`): their values
    cannot trade places; a value in the wrong kind of unit is the unit check's to find."""
    units = [hint_for(hints, leaf.path, leaf.key).unit for leaf in (first, second)]
    parsed = [parse_unit(unit) if unit else None for unit in units]
    if parsed[0] is None or parsed[1] is None:
        return False
    return bool(parsed[0].dimensionality != parsed[1].dimensionality)


def _swaps_in(
    group: list[Any],
    spans: dict[str, tuple[int, int]],
    text: str,
    lowered: str,
    doubt: Doubt,
    hints: dict[str, FieldHint] | None = None,
) -> None:
    for i, first in enumerate(group):
        for second in group[i + 1 :]:
            if first.value == second.value or _other_dimensions(first, second, hints):
                continue
            own_a = key_meaning(first.key) - key_meaning(second.key)
            own_b = key_meaning(second.key) - key_meaning(first.key)
            if not own_a or not own_b or not mentioned(own_a, lowered) or not mentioned(own_b, lowered):
                continue
            around_a = window_words(text, *spans[first.path])
            around_b = window_words(text, *spans[second.path])
            leans = affinity(around_a, own_b) > affinity(around_a, own_a) and affinity(around_b, own_a) > affinity(
                around_b, own_b
            )
            if (
                leans
                or (
                    shape_of(first.value) in ("year", "date", "time", "number")  # a name's clause has no governing verb
                    and _governed_by(text, spans[first.path][0], own_a, own_b) == "other"
                    and _governed_by(text, spans[second.path][0], own_b, own_a) == "other"
                )
                or _agents_crossed(first, second, spans, text, own_a, own_b)
            ):
                message = f"{first.key!r} and {second.key!r} may be swapped: each value stands by the other's words"
                doubt("possible_swap", message, first.path)
                doubt("possible_swap", message, second.path)
