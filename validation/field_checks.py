"""Does each value belong to its field? Checks that read a value's place in the context against what its field
says it is. None of them can be sure, so each raises a doubt (a `GroundingIssue`) that the gate turns into a
flag for a person, never a rejection:

* `unit_mismatch`: the field names a unit (`height_cm`, "length in km") and the value is the number written
  beside another unit of the same dimension, unconverted ("1.2 metres" given as 1.2 cm).
* `number_from_other_phrase`: a count or measure whose number belongs to a name ("Euro Stoxx 50", "Route 66")
  or counts something else ("FOUR EUROS" given as a number of items), or is an ordinal ("third album").
* `boolean_against_text`: a boolean whose field's words stand in the context beside negation or outcome words
  that say the opposite ("discontinued" for a `supported` true, "dropped" for an `adopted` true).
* `absent_but_stated`: null or [] for a field whose words the context uses beside a value of the field's kind.
* `duplicate_item`: a list with the same item twice (or nearly: the same words).
* `copied_span`: a long passage, several lines or a table pasted as the value of a field that names one thing.
* `speaker_mismatch`: a meeting's speaker field naming someone who is not the speaker of the utterances that
  hold the record's related values.
* `possible_swap`: two values of one kind, each standing by words that name the other's field.

The checks that read a value's neighbourhood (a correction right after it, the enumeration a list was taken
from, the article or label it stands in, another event's words, the other object's entity) are in
validation/neighbour_checks.py."""

from __future__ import annotations

from typing import Any

from validation.field_hints import hint_for
from validation.field_rules.absent import _check_absent, _check_absent_date, _check_absent_deadline
from validation.field_rules.boolean import _check_boolean
from validation.field_rules.copies import _check_copy, _check_letters, _check_speaker, _is_speaker_field
from validation.field_rules.lists import (
    _check_bounds,
    _check_counts,
    _check_departed_items,
    _check_duplicates,
    _check_list_runs,
    _check_year_outside_entry,
)
from validation.field_rules.phrases import _check_corrected_everywhere, _check_number_phrase
from validation.field_rules.swaps import _check_other_phrase, _check_swaps
from validation.field_rules.units import _check_after_point, _check_hundredths, _check_scale, _check_sign, _check_unit
from validation.field_rules.words import Doubt, Finder, _answer_counts, _is_row, _narrow, shape_of
from validation.neighbour_articles import check_other_article, check_speaker_topic
from validation.neighbour_checks import check_number_label, check_other_event, check_row_number
from validation.neighbour_pairs import check_comparison, check_cross_pairing, check_labels
from validation.readings.fields import FieldHint, field_words
from validation.readings.numbers import to_decimal


def check_field_ties(
    leaves: list[Any],
    spans: dict[str, tuple[int, int]],
    layout: Any,
    hints: dict[str, FieldHint] | None,
    ground_truth: Any,
    containers: dict[str, Any],
    speakers: frozenset[str],
    doubt: Doubt,
    find: Finder,
    question: str = "",
) -> None:
    text = layout.text
    names = [
        leaf.value
        for leaf in leaves
        if isinstance(leaf.value, str) and shape_of(leaf.value) == "name" and leaf.value.strip() not in speakers
    ]  # a speaker label is blanked out of the transcript's lines: it names no entity there
    sibling_values: dict[str, dict[str, Any]] = {}
    for leaf in leaves:
        if leaf.key:
            sibling_values.setdefault(leaf.parent, {})[leaf.key] = leaf.value
    object_names: dict[str, list[str]] = {}  # an object's own names: another object's say nothing of its nulls
    for leaf in leaves:
        if isinstance(leaf.value, str):
            object_names.setdefault(leaf.parent, []).append(leaf.value)
    for leaf in leaves:
        hint = hint_for(hints, leaf.path, leaf.key)
        place = spans.get(leaf.path)
        value = leaf.value
        if place is not None and isinstance(value, int | float) and not isinstance(value, bool):
            place = _narrow(text, place, value)  # the number itself inside a curator's longer quote
            _check_scale(leaf, hint, text, place, doubt)
            _check_unit(leaf, hint, text, place, doubt, getattr(layout, "original", None))
            _check_hundredths(leaf, hint, text, place, doubt)
            _check_after_point(leaf, text, place, doubt)
            _check_sign(leaf, hint, text, place, doubt)
            counted = hint.is_count and value in _answer_counts(containers)
            if not counted:  # a count of the answer's own list is computed, not read from any phrase
                _check_number_phrase(leaf, hint, text, place, doubt, lambda v=value, h=hint: find(v, h))
            number = to_decimal(value)
            if number is not None:
                _check_corrected_everywhere(leaf, number, place, layout, doubt, find(value, hint)[:8], leaves)
            if leaf.key:
                check_other_event(field_words(leaf.key), leaf, place, text, doubt)
                check_number_label(leaf, place, text, sibling_values.get(leaf.parent, {}), field_words, doubt)
            check_row_number(leaf, hint.is_count, place, layout, doubt)
        if isinstance(value, bool):
            _check_boolean(leaf, hint, layout, spans, doubt)
        if value is None or value == []:
            # An object's own names: a nested object's (an emergency contact's) say nothing of the root's nulls.
            own_names = [n for n in object_names.get(leaf.parent, ()) if n in names]
            taken = {  # the same field's values in the other objects: a clause stating one is about that object
                n
                for o in leaves
                if o.key == leaf.key and o.parent != leaf.parent and (n := to_decimal(o.value)) is not None
            }
            _check_absent(leaf, hint, layout, doubt, own_names, taken) or _check_absent_date(
                leaf, hint, layout, leaves, doubt
            ) or _check_absent_deadline(leaf, hint, layout, leaves, spans, doubt)
        if isinstance(value, str):
            _check_copy(leaf, hint, text, doubt)
            _check_letters(leaf, layout, doubt)
            if speakers and value.strip() in speakers:
                _check_speaker(leaf, hint, layout, spans, leaves, doubt)
                if question and leaf.parent == "$" and _is_speaker_field(hint):  # one speaker the question asks for
                    original = getattr(layout, "original", None) or text
                    check_speaker_topic(leaf.path, value.strip(), field_words(hint.key), question, original, doubt)
    _check_duplicates(containers, doubt)
    _check_year_outside_entry(leaves, spans, layout, doubt)
    _check_list_runs(leaves, containers, spans, layout, question, doubt)
    _check_departed_items(leaves, containers, spans, layout, doubt)
    _check_counts(leaves, containers, hints, doubt)
    _check_bounds(leaves, doubt)
    _check_swaps(leaves, spans, text, hints, doubt)
    # A value said three times or more (a score of 3 in a rating meeting) is located at one of its places by
    # chance: which object it stands beside says nothing of a swap.
    common = {
        leaf.path
        for leaf in leaves
        if layout.is_transcript
        and leaf.path in spans
        and (number := to_decimal(leaf.value)) is not None
        and abs(number) < 100
        and len(find(leaf.value, hint_for(hints, leaf.path, leaf.key))[:3]) >= 3
    }

    def on_line_of(leaf: Any, anchor: Any) -> bool:
        """Are the value and its object's other value written together on one line (its table row)? Small
        numbers are written in many places: the first found of each may be in other rows."""
        lines = {
            line
            for s, _ in find(anchor.value, hint_for(hints, anchor.path, anchor.key))[:20]
            if _is_row(text[(line := layout.line(s))[0] : line[1]])
        }
        return any(layout.line(s) in lines for s, _ in find(leaf.value, hint_for(hints, leaf.path, leaf.key))[:20])

    check_cross_pairing([leaf for leaf in leaves if leaf.path not in common], spans, doubt, on_line_of)
    check_comparison(leaves, field_words, doubt)
    if not layout.is_transcript and hasattr(layout, "label"):
        check_labels(leaves, spans, layout, doubt)
    _check_other_phrase(leaves, spans, layout, hints, find, doubt, names)
    if not layout.is_transcript:
        check_other_article(
            leaves, spans, text, question, find, lambda leaf: hint_for(hints, leaf.path, leaf.key), doubt
        )
