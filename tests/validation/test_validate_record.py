"""The whole pipeline: every failure of a record in one report, and the canonical validated output."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from core.models import Record
from core.verdicts import ValidationReport
from validation import validate_many, validate_record

MakeRecord = Callable[..., Record]


def codes(report: ValidationReport) -> set[tuple[str, str, str]]:
    return {(f.check, f.code, f.path) for f in report.failures}


def test_good_record_passes_with_canonical_output(make_record: MakeRecord, good_ground_truth: dict[str, Any]) -> None:
    # Keys in another order than the schema declares, at the top and inside the array's objects.
    shuffled = dict(reversed(list(good_ground_truth.items())))
    shuffled["cast"] = [dict(reversed(list(member.items()))) for member in shuffled["cast"]]
    record = make_record(ground_truth=shuffled)
    report, output = validate_record(record)
    assert report.passed and report.failures == []
    assert output == good_ground_truth
    assert list(output) == ["film", "release_year", "director", "cast", "genres", "studio"]
    assert list(output["cast"][0]) == ["actor", "character"]
    assert list(record.output.ground_truth) == list(shuffled)  # the record itself is not modified
    assert report.grounding is not None and report.grounding.fraction == 1.0
    assert report.complexity is not None and report.complexity.level == "hard"


def test_every_failure_of_a_bad_record_is_reported(make_record: MakeRecord) -> None:
    schema = {
        "type": "object",
        "properties": {
            "film": {"type": "string"},
            "year": {"type": "integer"},
            "tags": {"type": "array"},
            "note": {},
        },
        "required": ["film", "year"],
    }
    ground_truth = {"film": "An Invented Title", "year": "1994", "tags": [], "extra": {}}
    record = make_record(schema=schema, ground_truth=ground_truth)
    report, output = validate_record(record)
    assert output is None and not report.passed
    assert codes(report) == {
        ("ground_truth", "ground_truth_schema_mismatch", "$.year"),
        ("alignment", "required_incomplete", "$.properties.tags"),
        ("alignment", "required_incomplete", "$.properties.note"),
        ("alignment", "array_without_items", "$.properties.tags"),
        ("alignment", "leaf_without_type", "$.properties.note"),
        ("alignment", "missing_property", "$.note"),
        ("alignment", "undeclared_key", "$.extra"),
        ("alignment", "empty_array", "$.tags"),
        ("alignment", "empty_object", "$.extra"),
    }
    assert report.complexity is not None  # a valid schema: complexity is still measured
    assert report.grounding is not None and report.grounding.ungrounded_paths == ["$.film"]


def test_invalid_schema_skips_what_needs_it_but_runs_the_rest(make_record: MakeRecord) -> None:
    record = make_record(schema={"type": "object", "properties": {"a": {"type": "strng"}}}, ground_truth={"a": "x"})
    record.input.question = ""
    report, output = validate_record(record)
    assert output is None
    assert codes(report) == {
        ("pydantic", "pydantic_string_too_short", "$.input.question"),
        ("json_schema", "schema_invalid_2020_12", "$.properties.a.type"),
        ("json_schema", "schema_invalid_draft7", "$.properties.a.type"),
    }
    assert report.complexity is None
    assert report.grounding is not None and report.grounding.ungrounded_paths == ["$.a"]


def test_report_is_json_serialisable(make_record: MakeRecord) -> None:
    report, _ = validate_record(make_record(ground_truth={"film": "x"}))
    assert json.loads(report.model_dump_json())["passed"] is False


def test_validate_many_yields_record_report_and_output(make_record: MakeRecord) -> None:
    records = [make_record(question=f"Question {i}?") for i in range(3)] + [make_record(ground_truth={"film": 1})]
    results = list(validate_many(iter(records)))
    assert [r.record for r in results] == records
    assert [r.report.passed for r in results] == [True, True, True, False]
    assert results[0].validated_output is not None and results[3].validated_output is None
