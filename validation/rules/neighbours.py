"""Rules that read a value beside its neighbours in the text (validation/neighbour_checks.py): each only flags."""

from __future__ import annotations

from validation.rules.base import case
from validation.rules.model import Rule

NEIGHBOURS = "validation.neighbour_checks"
PAIRS = "validation.neighbour_pairs"
FAMILY = "a value beside its neighbours"

RULES = (
    Rule(
        code="corrected_value",
        summary='A figure the speaker or the page corrects a few lines later ("sorry, I mean ...").',
        outcome="flag",
        stage="validation",
        why="The first figure is found in the context, so grounding alone passes it.",
        right=case("calibration6/v6-olm-006"),
        wrong=case("calibration6/v6-olm-020", "the figure before its correction"),
        # Entered through the field rules, which first look for a correction word after any of the figure's places
        # (a figure with none costs only that look): the entry is where the rule's cost is measured.
        checks=("validation.field_rules.phrases:_check_corrected_everywhere",),
        readings=("numbers",),
        family=FAMILY,
    ),
    Rule(
        code="list_missing_item",
        summary="A list that skips an item of the enumeration it was taken from.",
        outcome="flag",
        stage="validation",
        why="A dropped item is lost data, and the rest of the list is found in the context.",
        right=case("calibration4/v4-hp-37"),
        wrong=case("calibration4/v4-hp-30", "an enumeration with an item left out"),
        checks=(f"{NEIGHBOURS}:check_list_gaps",),
        family=FAMILY,
    ),
    Rule(
        code="comparison_against_values",
        summary="A comparison (older, larger, first) that the answer's own values contradict.",
        outcome="flag",
        stage="validation",
        why="The answer disagrees with itself: one of its values or its comparison is wrong.",
        right=case("calibration2/v2-hp-09"),
        wrong=case("calibration2/v2-hp-10", "a comparison its own dates contradict"),
        checks=(f"{PAIRS}:check_comparison",),
        readings=("numbers", "dates"),
        family=FAMILY,
    ),
    Rule(
        code="value_in_wrong_field",
        summary="A value that stands under another field's label or column.",
        outcome="flag",
        stage="validation",
        why="Both fields' values are found in the context, so grounding alone passes the mix-up.",
        right=case("calibration/ocr-rtg-conference"),
        wrong=case("calibration/ocr-rtg-coauthors", "a value under another field's label"),
        checks=("validation.evidence_fields:_check_fields", f"{PAIRS}:check_labels"),
        family=FAMILY,
    ),
    Rule(
        code="value_not_near_entity",
        summary="A value found in the context, but never near the entity it is given for.",
        outcome="flag",
        stage="validation",
        why="A value of another entity is found in the context, so grounding alone passes it.",
        right=case("calibration/hotpotqa-027"),
        wrong=case("calibration/hotpotqa-028", "a value far from its entity"),
        checks=(
            "validation.evidence_fields:_check_fields",
            "validation.evidence_fields:_place_near_entity",
            "validation.evidence_fields:_near",
        ),
        family=FAMILY,
    ),
)
