"""A located value beside its entity and its field's label (`value_not_near_entity`, `value_in_wrong_field`)."""

from __future__ import annotations

import re
from typing import Any

from validation.evidence_given import EvidenceResult, _show
from validation.evidence_places import (
    MAX_OCCURRENCES,
    Layout,
    Leaf,
    _lowered,
    _mentions,
    _occurrences,
    _whole_word_in,
    _words,
    places_of,
)
from validation.field_hints import hint_for
from validation.field_rules.words import affinity, key_meaning, mentioned, shape_of, window_words
from validation.grounding import NormalizedContext
from validation.readings import number_places, string_places
from validation.readings.fields import FieldHint
from validation.readings.numbers import to_decimal
from validation.table_units import cell_header

ANCHOR_KEYS = (
    "name", "title", "full_name", "person", "entity", "company", "organization", "organisation", "player", "team",
    "film", "book", "movie", "band", "album", "song", "city", "country", "place", "route", "code", "label",
)  # fmt: skip


def _by_field_words(places: list[tuple[int, int, str]], text: str, key: str) -> list[tuple[int, int, str]]:
    """The places of a value, those standing by its field's words first (stable otherwise): a year written
    twice is placed where "founded" stands, for a `founded_year`."""
    wanted = key_meaning(key)
    if not wanted or not mentioned(wanted, _lowered(text)):
        return places
    scored = [(-affinity(window_words(text, start, end), wanted), n) for n, (start, end, _) in enumerate(places)]
    return [places[n] for _, n in sorted(scored)]


def _other_readings(value: Any, text: str, hint: FieldHint, stamped: str | None = None) -> list[tuple[int, int, str]]:
    """Places of a value written another way; only those with offsets (a reading without one, such as a name
    found without its diacritics, grounds the value through `is_grounded`'s forgiving search instead)."""
    number = to_decimal(value)
    found = number_places(number, text, hint, stamped) if number is not None else []
    if not found and isinstance(value, str):
        found = string_places(value, text)
    return [(start, end, "normalised") for start, end, _ in found if end > start][:MAX_OCCURRENCES]


_ALIAS_KEYS = re.compile(
    r"role|title|position|office|post|alias|abbreviation|acronym|short|nickname|known_as|also_called|job", re.I
)


def _object_strings(leaves: list[Leaf]) -> dict[str, tuple[str, ...]]:
    """Other names each object's entity goes by: the values of its role and alias fields ("the treasurer",
    "KU"), which a text may use instead of the name."""
    found: dict[str, list[str]] = {}
    for leaf in leaves:
        value = leaf.value
        if isinstance(value, str) and leaf.key and _ALIAS_KEYS.search(leaf.key) and 2 <= len(value) <= 40:
            found.setdefault(leaf.parent, []).append(value)
    return {parent: tuple(values) for parent, values in found.items()}


def _anchors(by_path: dict[str, Leaf]) -> dict[str, Leaf | None]:
    """The anchor of every object holding leaves, found in one pass over the leaves (not one per leaf)."""
    children: dict[str, list[Leaf]] = {}
    for leaf in by_path.values():
        if isinstance(leaf.value, str) and leaf.key:
            children.setdefault(leaf.parent, []).append(leaf)
    return {parent: _anchor(parent, candidates) for parent, candidates in children.items()}


def _anchor(parent: str, candidates: list[Leaf]) -> Leaf | None:
    """The name-like leaf of an object (`name`, `title`, `*_name`, ...) among its keyed string leaves, if it
    has one. The root object is no entity: its fields often gather several (the film, its director, the city)."""
    if parent == "$":
        return None
    for key in ANCHOR_KEYS:
        for leaf in candidates:
            if leaf.key == key:
                return leaf
    for leaf in candidates:
        assert leaf.key is not None
        if leaf.key.endswith(("_name", "_title")):
            return leaf
    return None


def _near(layout: Layout, offset: int, anchor: str, also: tuple[str, ...] = ()) -> bool:
    """Is a place about the anchor? Its sentence (a transcript: nearby lines) names it, by name, by its initials
    or by another value of its object (a role: "the treasurer"); or the place's paragraph or section is headed by
    it (an article title, a markdown heading); or the sentence opens with a pronoun and the one before names it."""
    others = [a.lower() for a in also if len(a) >= 2]  # named in full: "Ynys Fach" is not "Ynys Bach"
    if layout.is_transcript:
        lines = layout.nearby_lines(offset)
        return _mentions(lines, anchor) or any(_whole_word_in(lines.lower(), other) for other in others)
    sentence = layout.sentence(offset)
    if _mentions(sentence, anchor) or _initials_in(sentence, anchor):
        return True
    if any(_whole_word_in(sentence.lower(), other) for other in others):
        return True
    if _mentions(layout.paragraph_head(offset), anchor) or _mentions(layout.heading(offset), anchor):
        return True
    if _PRONOUN_START.match(sentence.lstrip()):
        return _mentions(layout.sentence_before(offset), anchor)
    return False


_PRONOUN_START = re.compile(r"(?:he|she|it|they|his|her|its|their|this|the company|the band|the group)\b", re.I)


def _initials_in(text: str, name: str) -> bool:
    words = [w for w in re.split(r"[\s-]+", name) if w[:1].isupper()]
    if len(words) < 2:
        return False
    initials = "".join(w[0] for w in words)
    return bool(re.search(rf"\b{re.escape(initials)}\b", text))


def _locate(
    leaf: Leaf,
    ctx: NormalizedContext,
    layout: Layout,
    anchors: dict[str, Leaf | None],
    result: EvidenceResult,
    hint: FieldHint,
    also: tuple[str, ...] = (),
) -> tuple[int, int, str] | None:
    """The best place of a value without evidence: near its object's anchor, under its own label. A value not
    written as it is may be written another way (validation/readings/: a unit conversion, a decimal comma,
    a clock time, an abbreviation, ...)."""
    places = _occurrences(leaf.value, ctx) or _other_readings(leaf.value, ctx.raw, hint, ctx.original)
    if not places:
        return None
    if len(places) > 1 and leaf.key:
        places = _by_field_words(places, layout.text, leaf.key)
    return _place_near_entity(leaf, places, layout, anchors, result, also)


def _place_near_entity(
    leaf: Leaf,
    places: list[tuple[int, int, str]],
    layout: Layout,
    anchors: dict[str, Leaf | None],
    result: EvidenceResult,
    also: tuple[str, ...],
) -> tuple[int, int, str]:
    """The first of a value's places that stands near its object's anchor. With none near it, the first place,
    doubted (`value_not_near_entity`) unless the page's layout ties the value to its field."""
    anchor = anchors.get(leaf.parent)
    if anchor is None or anchor.path == leaf.path:
        return places[0]
    for place in places:
        if _near(layout, place[0], anchor.value, also):
            return place
    line_start, line_end = layout.line(places[0][0])
    in_row = layout.text[line_start:line_end].lstrip().startswith("|") or cell_header(layout.text, places[0][0])
    if _under_own_label(leaf, places[0][0], layout):
        return places[0]  # "CodeText:" above (or before) it: the page's layout ties it to its field
    if not _ONE_PAGE.search(layout.text) or in_row:  # a table's row names its own entity
        # Among paragraphs on several subjects, or speakers, a value far from its entity may be another's. On one
        # page (a form, an invoice, a paper: markdown headings or tables, as OCR writes them) the entity is the
        # page's subject and its values stand where the layout puts them.
        result.doubt(
            "value_not_near_entity",
            f"{_show(leaf.value)} is in the context, but never near {anchor.value!r}, the entity it is given for",
            leaf.path,
        )
    return places[0]


def _under_own_label(leaf: Leaf, start: int, layout: Layout) -> bool:
    """A value after a "Label:" naming its field, on its line or alone on the line above ("CodeText:" /
    "SE, whatever we've scraped")."""
    wanted = _words(leaf.key or "")
    line_start, line_end = layout.line(start)
    if not wanted or layout.is_transcript or layout.text[line_start:line_end].lstrip().startswith("|"):
        return False  # a column header names the field of every row: which row is the entity's is the question
    if _words(layout.label(start)) & wanted:
        return True
    if layout.text[line_start:start].strip():
        return False
    above = layout.text[: max(0, line_start - 1)].rstrip("\n ").rsplit("\n", 1)[-1].strip()
    return above.endswith(":") and len(above) <= 42 and bool(_words(above) & wanted)


_ONE_PAGE = re.compile(r"^(?:#{1,6}\s|\s*\|)|<table", re.MULTILINE | re.IGNORECASE)


def _kind(value: Any) -> str:
    """A number, a date, a clock time or text: which fields could hold a value."""
    shape = shape_of(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return "number"
    return {"year": "date", "name": "text", "phrase": "text"}.get(shape, shape)


def _better_place(leaf: Leaf, start: int, layout: Layout) -> bool:
    """Is the value also written (on the same line: a table row, a form line) under a label that names its field?
    A line item's amount equals its unit price when one is bought: the locator found the price first."""
    line_start, line_end = layout.line(start)
    wanted = _words(leaf.key or "")
    line = layout.text[line_start:line_end]
    number = to_decimal(leaf.value) if not isinstance(leaf.value, bool) else None
    written = places_of(leaf.value, line) or (number_places(number, line) if number is not None else [])
    for other, _, _ in written:  # "1.180,00 €" in both price columns is read as 1180 only another way
        if line_start + other != start and _words(layout.label(line_start + other)) & wanted:
            return True
    return False


def _check_fields(
    leaves: list[Leaf],
    spans: dict[str, tuple[int, int]],
    layout: Layout,
    anchors: dict[str, Leaf | None],
    result: EvidenceResult,
    explicit: set[str],
    object_strings: dict[str, tuple[str, ...]],
    hints: dict[str, FieldHint] | None = None,
) -> None:
    def described(leaf: Leaf) -> set[str]:
        return _words(hint_for(hints, leaf.path, leaf.key).description)

    by_parent: dict[str, list[Leaf]] = {}
    for leaf in leaves:
        if leaf.key and leaf.path in spans:
            by_parent.setdefault(leaf.parent, []).append(leaf)
    for parent, siblings in by_parent.items():
        anchor = anchors.get(parent)
        for leaf in siblings:
            start = spans[leaf.path][0]
            if (
                leaf.path in explicit
                and anchor is not None
                and anchor.path != leaf.path
                and not _near(
                    layout, start, anchor.value, tuple(v for v in object_strings.get(parent, ()) if v != leaf.value)
                )
            ):
                result.doubt(
                    "value_not_near_entity",
                    f"the evidence of {_show(leaf.value)} is not near {anchor.value!r}, the entity it is given for",
                    leaf.path,
                )
            label = _words(layout.label(start))
            if not label:
                continue
            if leaf.path not in explicit and _better_place(leaf, start, layout):
                continue  # located at the first of its places; another, under its own label, is the one meant
            own = len(_words(leaf.key or "") & label)
            # Only a sibling that could hold this value: "Total due" names no `due_date` for an amount.
            alike = [s for s in siblings if s is not leaf and _kind(s.value) == _kind(leaf.value)]
            rivals = [s.key for s in alike if len(_words(s.key or "") & label) > own]
            if not rivals and not own and not any(_words(s.key or "") & label for s in alike):
                # No key names the label ("Total due" for `net_eur`, `gross_eur`): their descriptions may.
                mine = len(described(leaf) & label)
                rivals = [s.key for s in alike if len(described(s) & label) > mine]
            if rivals and len(siblings) >= 2:
                result.doubt(
                    "value_in_wrong_field",
                    f"{_show(leaf.value)} stands under {layout.label(start).strip()[:40]!r}, "
                    f"which names {rivals[0]!r}, not {leaf.key!r}",
                    leaf.path,
                )
                continue
            column = layout.other_column_naming(start, _words(leaf.key or "")) if not own else None
            if column is not None:
                result.doubt(
                    "value_in_wrong_field",
                    f"{_show(leaf.value)} stands under {layout.label(start).strip()[:40]!r}, while the column "
                    f"{column!r} names {leaf.key!r}",
                    leaf.path,
                )
