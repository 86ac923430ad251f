"""Rules on a value and its field (validation/field_checks.py): each only flags, for a person to settle."""

from __future__ import annotations

from validation.rules.base import case, with_property
from validation.rules.model import Example, Rule

FAMILY = "a value and its field"


def _flag(
    code: str,
    summary: str,
    why: str,
    wrong: Example,
    right: Example,
    checks: tuple[str, ...],
    readings: tuple[str, ...] = (),
) -> Rule:
    return Rule(
        code=code,
        summary=summary,
        outcome="flag",
        stage="validation",
        why=why,
        right=right,
        wrong=wrong,
        checks=checks,
        readings=readings,
        family=FAMILY,
    )


RULES = (
    _flag(
        "unit_mismatch",
        "The field names a unit the value was not converted to (a height in feet in a `_m` field, a share given as "
        "a percentage).",
        "A number copied without its conversion is the commonest wrong answer that looks right.",
        case("calibration/hotpotqa-025", "a height in feet given for a field in metres"),
        case("calibration/hotpotqa-024"),
        ("validation.field_rules.units:_check_unit", "validation.field_rules.units:_check_hundredths"),
        ("numbers", "units", "money"),
    ),
    _flag(
        "scale_dropped",
        'A dropped "million" or a glued scale letter: "78.7M" given as 78.7.',
        "The digits are right and the value is a million times off.",
        case("calibration3/v3-olmocr-w03", "a figure in millions given as units"),
        case("calibration3/v3-olmocr-r05"),
        ("validation.field_rules.units:_check_scale", "validation.field_rules.units:_check_after_point"),
        ("numbers",),
    ),
    _flag(
        "sign_against_text",
        'A positive value the text writes "below sea level" or "below zero".',
        "The digits are right and the sign is lost.",
        case("calibration6/v6-hp-f26", "an elevation below sea level given as positive"),
        case("calibration6/v6-hp-f25"),
        ("validation.field_rules.units:_check_sign",),
        ("numbers", "units"),
    ),
    _flag(
        "number_from_other_phrase",
        "A number that belongs to a name, an ordinal, money, a row label or `#N` rather than to the field.",
        "A number taken from the wrong phrase is found in the context, so grounding alone passes it.",
        case("calibration6/v6-ami-010", "a number taken from another phrase"),
        case("calibration6/v6-ami-017"),
        ("validation.field_rules.phrases:_number_phrase_doubt", "validation.neighbour_checks:check_row_number"),
        ("numbers", "money", "codes"),
    ),
    _flag(
        "value_from_other_phrase",
        "A number or a year stands by none of its field's words while another one in its sentence does; an item "
        "of a list that left; another event's year.",
        "A value taken from the next phrase over is found in the context, so grounding alone passes it.",
        case("calibration/inline-lake-wrong-number", "the water volume given as the dam height"),
        case("calibration/inline-lake-right"),
        (
            "validation.field_rules.swaps:_check_other_phrase",
            "validation.field_rules.lists:_check_departed_items",
            "validation.neighbour_checks:check_other_event",
        ),
        ("numbers", "dates"),
    ),
    _flag(
        "value_from_other_entity",
        "A value that belongs to another article's subject, another numbered item, or another reference entry.",
        "A value of the neighbouring entity is found in the context, so grounding alone passes it.",
        case("calibration7/v7-hp-c08b", "a value of another article's subject"),
        case("calibration7/v7-hp-c08a"),
        (
            "validation.field_rules.lists:_check_year_outside_entry",
            "validation.neighbour_articles:check_other_article",
            "validation.neighbour_checks:check_number_label",
        ),
        ("numbers", "dates"),
    ),
    _flag(
        "possible_swap",
        "Two values each stand by the other's words, bounds are in the wrong order, or pairs cross.",
        "Swapped values are both found in the context, so grounding alone passes them.",
        case("calibration2/v2-olmocr-lincoln-swap", "two values swapped"),
        case("calibration2/v2-olmocr-notes-cm"),
        (
            "validation.field_rules.lists:_check_bounds",
            "validation.field_rules.swaps:_swaps_in",
            "validation.neighbour_pairs:check_cross_pairing",
        ),
        ("numbers", "dates"),
    ),
    _flag(
        "boolean_against_text",
        "A boolean the words around its field deny (or affirm, for `false`).",
        "A flipped yes/no is found nowhere and contradicted somewhere: the commonest boolean slip.",
        case("calibration5/v5-hp-d06", "a boolean the text denies"),
        case("calibration5/v5-hp-c10"),
        ("validation.field_rules.boolean:_check_boolean",),
    ),
    _flag(
        "absent_but_stated",
        "Null or `absent` where the text states the value (a form fills in the field's label, a line assigning an "
        "action gives its deadline), unless the text says the value is unknown.",
        "A value left out where the text gives it is lost data.",
        case("calibration7/v7-olm-16", "a value the page states, left null"),
        case("calibration7/v7-olm-01"),
        (
            "validation.field_rules.absent:_check_absent",
            "validation.field_rules.absent:_check_absent_date",
            "validation.field_rules.absent:_check_absent_deadline",
        ),
        ("dates", "clock"),
    ),
    _flag(
        "duplicate_item",
        "A list holds the same item twice.",
        "A repeated item is a copy slip; a scorer counts it twice.",
        case("calibration4/v4-olm-12", "an item listed twice"),
        case("calibration4/v4-olm-07"),
        ("validation.field_rules.lists:_check_duplicates",),
    ),
    _flag(
        "copied_span",
        "A passage, a list, or one transcript line with its `[m:ss] SPEAKER:` label pasted as one value.",
        "A pasted span is grounded but answers nothing.",
        case("calibration5/v5-hp-d10", "a passage pasted as the value"),
        case("calibration5/v5-hp-c10"),
        ("validation.field_rules.copies:_check_copy",),
    ),
    _flag(
        "speaker_mismatch",
        "A meeting's speaker who did not say it (or who spoke on another topic).",
        "Speakers of a meeting all appear in the transcript, so grounding alone passes the wrong one.",
        case("calibration7/v7-ami-02", "the wrong speaker"),
        case("calibration7/v7-ami-21"),
        ("validation.field_rules.copies:_check_speaker", "validation.neighbour_articles:check_speaker_topic"),
    ),
    _flag(
        "count_mismatch",
        "A count that is not the length of the list it counts.",
        "A count and its list disagree: one of them is wrong.",
        case("calibration5/v5-hp-d04", "a count that does not match its list"),
        case("calibration5/v5-hp-c10"),
        ("validation.field_rules.lists:_check_counts",),
        ("numbers",),
    ),
    _flag(
        "letter_not_in_context",
        'A letter the context never uses ("Sólvang" where it says "Solvang").',
        "A typing slip or a forged variant of a name.",
        with_property(
            "engineer",
            {"type": "string", "description": "who built the dam"},
            "Ingrid Sólvang",
            "an accent the context never uses",
            context="Lake Varn is a reservoir in Telmark. It was "
            "built in 1931 by Ingrid Solvang and holds 42 million cubic metres of water. Its dam is 38 "
            "metres high.",
        ),
        with_property(
            "engineer",
            {"type": "string", "description": "who built the dam"},
            "Ingrid Solvang",
            "the name as written",
            context="Lake Varn is a reservoir in Telmark. It was built in 1931 by "
            "Ingrid Solvang and holds 42 million cubic metres of water. Its dam is 38 metres high.",
        ),
        ("validation.field_rules.copies:_check_letters",),
        ("codes",),
    ),
)
