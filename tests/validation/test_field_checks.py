"""Each check that ties a value to its field raises its doubt on a wrong value and stays quiet on a right one."""

from __future__ import annotations

from typing import Any

import pytest

from core.evidence import parse_evidence_map
from validation.evidence import check_evidence
from validation.field_hints import field_hints


def _schema(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return {"type": "object", "properties": {k: _schema(v) for k, v in value.items()}}
    if isinstance(value, list):
        return {"type": "array", "items": _schema(value[0]) if value else {}}
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int | float):
        return {"type": "number"}
    return {"type": ["string", "null"]}


def doubts(truth: dict[str, Any], context: str, evidence: dict[str, Any] | None = None) -> set[tuple[str, str]]:
    """The field checks' doubts (a null without `absent` evidence is doubted anyway, by another check)."""
    parsed, problems = parse_evidence_map(evidence or {})
    assert not problems
    result = check_evidence(truth, context, parsed, field_hints(truth, _schema(truth)))
    return {(issue.code, issue.path) for issue in result.issues if issue.code != "unexplained_null"}


ARENA = "The Colisee is a 4,000 capacity (3,677 seated) arena in Lewiston, Maine, that opened in 1958."
BAND = "Winner is a South Korean boy group formed in 2013 by YG Entertainment and debuted in 2014."


@pytest.mark.parametrize(
    ("truth", "context", "code", "path"),
    [
        (
            {"arena": "Colisee", "seated_capacity": 4000, "total_capacity": 3677},
            ARENA,
            "value_from_other_phrase",
            "$.seated_capacity",
        ),
        (
            {"group": "Winner", "formed_by": "YG Entertainment", "formed_year": 2014},
            BAND,
            "value_from_other_phrase",
            "$.formed_year",
        ),
        (
            {"tower": "Mast", "height_cm": 1.2, "city": "Elsford"},
            "The Mast in Elsford is 1.2 metres tall.",
            "unit_mismatch",
            "$.height_cm",
        ),
        (
            {"project": "Scout", "cost_usd": 43, "city": "Kansas City"},
            "Scout, in Kansas City, cost $43 million.",
            "scale_dropped",
            "$.cost_usd",
        ),
        (
            {"firm": "Acme", "supports_usb": True, "year": 2001},
            "Acme dropped USB support in 2001; USB is discontinued.",
            "boolean_against_text",
            "$.supports_usb",
        ),
        (
            {"works": ["Hollin Canal", "The Hollin Canal"], "engineer": "Pell", "year": 1771},
            "Pell built the Hollin Canal (1771) and the harbour wall.",
            "duplicate_item",
            "$.works[1]",
        ),
        (
            {"actress": "Shirley Temple", "birth_date": None, "role": "Corliss"},
            "Shirley Temple (April 23, 1928 – February 10, 2014) played Corliss.",
            "absent_but_stated",
            "$.birth_date",
        ),
    ],
)
def test_a_wrong_value_raises_its_doubt(truth: dict[str, Any], context: str, code: str, path: str) -> None:
    assert (code, path) in doubts(truth, context)


@pytest.mark.parametrize(
    ("truth", "context"),
    [
        ({"arena": "Colisee", "seated_capacity": 3677, "total_capacity": 4000}, ARENA),
        ({"group": "Winner", "formed_by": "YG Entertainment", "formed_year": 2013}, BAND),
        ({"tower": "Mast", "height_cm": 120, "city": "Elsford"}, "The Mast in Elsford is 1.2 metres tall."),
        ({"project": "Scout", "cost_usd": 43000000, "city": "Kansas City"}, "Scout, in Kansas City, cost $43 million."),
        ({"firm": "Acme", "supports_usb": False, "year": 2001}, "Acme dropped USB support in 2001."),
        (
            {"works": ["Hollin Canal", "harbour wall"], "engineer": "Pell", "year": 1771},
            "Pell built the Hollin Canal (1771) and the harbour wall.",
        ),
        (
            {"actress": "Shirley Temple", "birth_place": None, "role": "Corliss"},
            "Shirley Temple (April 23, 1928 – February 10, 2014) played Corliss.",
        ),
    ],
)
def test_the_right_value_raises_none(truth: dict[str, Any], context: str) -> None:
    assert doubts(truth, context) == set()


def test_swapped_speakers_of_a_transcript_are_doubted() -> None:
    meeting = "[0:01] AB: WE COULD ADD VOICE CONTROL\n[0:05] CD: VOICE CONTROL DOESN'T WORK IN THE WIND"
    right = {"objection": "VOICE CONTROL DOESN'T WORK IN THE WIND", "objection_by": "CD", "topic": "VOICE CONTROL"}
    wrong = {**right, "objection_by": "AB"}
    assert ("speaker_mismatch", "$.objection_by") in doubts(wrong, meeting)
    assert ("speaker_mismatch", "$.objection_by") not in doubts(right, meeting)


def test_a_pasted_passage_is_doubted_unless_the_field_asks_for_text() -> None:
    passage = " ".join(["word"] * 60)
    context = f"Title. {passage}."
    assert ("copied_span", "$.title") in doubts({"title": passage}, context)
    assert not doubts({"summary": passage}, context) & {("copied_span", "$.summary")}


def test_a_table_column_pasted_as_one_value_is_doubted() -> None:
    page = "| Route | First sailing |\n| F1 | 07:15 |\n| F2 | 08:00 |\n| F3 | 09:30 |\n| F4 | 10:45 |"
    pasted = {"route": "F1", "first_sailing": "07:15, 08:00, 09:30, 10:45", "operator": "Harbour"}
    assert ("copied_span", "$.first_sailing") in doubts(pasted, page)
    assert ("copied_span", "$.first_sailings") not in doubts({**pasted, "first_sailing": "07:15"}, page)


def test_a_number_named_by_its_field_is_no_other_phrase() -> None:
    text = "The road is Route 66, and the Euro Stoxx 50 index fell."
    assert ("number_from_other_phrase", "$.route_number") not in doubts({"route_number": 66, "x": "a"}, text)
    assert ("number_from_other_phrase", "$.countries") in doubts({"countries": 50, "x": "a"}, text)


def test_a_count_its_own_list_contradicts_is_doubted() -> None:
    text = "They agreed on three items: the case, the buttons and the price."
    truth = {"agenda_items": ["case", "buttons", "price"], "num_agenda_items": 4, "meeting": "Kickoff"}
    assert ("count_mismatch", "$.num_agenda_items") in doubts(truth, text)
    assert ("count_mismatch", "$.num_agenda_items") not in doubts({**truth, "num_agenda_items": 3}, text)


def test_a_value_under_another_column_that_names_the_field_is_doubted() -> None:
    table = "| Source | Tokens | Words |\n|---|---|---|\n| StarCoder | 83.0B | 70.0B |"
    assert ("value_in_wrong_field", "$.tokens") in doubts({"source": "StarCoder", "tokens": "70.0B", "x": "y"}, table)
    assert ("value_in_wrong_field", "$.tokens") not in doubts(
        {"source": "StarCoder", "tokens": "83.0B", "x": "y"}, table
    )


def test_a_letter_the_context_never_uses_is_doubted() -> None:
    text = "The director, Ingrid Solvang, studied in Oslo."
    assert ("letter_not_in_context", "$.name") in doubts({"name": "Ingrid So\u0301lvang", "x": "a", "y": "b"}, text)
    assert ("letter_not_in_context", "$.name") not in doubts({"name": "Ingrid Solvang", "x": "a", "y": "b"}, text)
