"""Hostile input: non-schemas, unicode, huge contexts, deep nesting. Reported, never raised."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from core.limits import MAX_GROUND_TRUTH_NESTING, nesting_depth
from core.models import Record
from validation import check_alignment, check_grounding, check_nesting, validate_record

MakeRecord = Callable[..., Record]


def codes(report: Any) -> set[tuple[str, str]]:
    return {(f.code, f.path) for f in report.failures}


@pytest.mark.parametrize("schema", [["type", "object"], "object", 42, None])
def test_schema_that_is_not_a_dict(make_record: MakeRecord, schema: Any) -> None:
    record = make_record()
    record.input.json_schema = schema  # only possible by assignment: the model would refuse it
    report, output = validate_record(record)
    assert output is None and report.complexity is None
    assert ("schema_not_a_schema", "$") in codes(report)
    assert any(f.code.startswith("pydantic_") and f.path == "$.input.json_schema" for f in report.failures)
    assert report.grounding is not None and report.grounding.fraction == 1.0  # grounding still runs


def test_misspelt_type_at_top_level(make_record: MakeRecord) -> None:
    report, output = validate_record(make_record(schema={"type": "strng"}, ground_truth={"a": "x"}))
    assert output is None
    assert codes(report) == {
        ("schema_not_object", "$.type"),
        ("schema_invalid_2020_12", "$.type"),
        ("schema_invalid_draft7", "$.type"),
    }


def test_ground_truth_that_is_not_an_object(make_record: MakeRecord) -> None:
    record = make_record()
    record.output.ground_truth = ["Ed Wood"]  # type: ignore[assignment]
    report, output = validate_record(record)
    assert output is None
    assert {("pydantic_dict_type", "$.output.ground_truth"), ("ground_truth_schema_mismatch", "$")} <= codes(report)


def test_unicode_keys_and_values(make_record: MakeRecord) -> None:
    schema = {
        "type": "object",
        "properties": {
            "名前": {"type": "string"},
            "first name": {"type": "string"},
            "ключ": {
                "type": "array",
                "items": {"type": "object", "properties": {"é": {"type": "string"}}, "required": ["é"]},
            },
            "emoji 🎬": {"type": "string"},
        },
        "required": ["名前", "first name", "ключ", "emoji 🎬"],
        "additionalProperties": False,
    }
    context = "映画『エド・ウッド』はティム・バートン監督。 Ed Wood, directed by Tim Burton 🎬."
    good = {"名前": "エド・ウッド", "first name": "Tim Burton", "ключ": [{"é": "Ed Wood"}], "emoji 🎬": "🍿"}
    report, output = validate_record(make_record(schema=schema, ground_truth=good, context=context))
    assert report.passed and output == good
    assert report.grounding is not None and report.grounding.ungrounded_paths == ['$["emoji 🎬"]']
    bad = {"名前": 1, "first name": "Tim Burton", "ключ": [{"ü": "x"}], "emoji 🎬": "🎬"}
    report, _ = validate_record(make_record(schema=schema, ground_truth=bad, context=context))
    assert {
        ("ground_truth_schema_mismatch", "$.名前"),
        ("ground_truth_schema_mismatch", "$.ключ[0].é"),
        ("missing_property", "$.ключ[0].é"),
        ("undeclared_key", "$.ключ[0].ü"),
    } <= codes(report)


def test_one_megabyte_context_through_the_pipeline(make_record: MakeRecord, ed_wood_context: str) -> None:
    context = (ed_wood_context + "\n\n") * (1_000_000 // len(ed_wood_context) + 1)
    assert len(context) >= 1_000_000
    started = time.perf_counter()
    report, output = validate_record(make_record(context=context))
    elapsed = time.perf_counter() - started
    assert report.passed and output is not None
    assert report.grounding is not None and report.grounding.fraction == 1.0
    assert elapsed < 1.0, f"a 1 MB context took {elapsed:.2f}s"


def nested(depth: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """A schema and matching data nesting `depth` objects."""
    schema: dict[str, Any] = {"type": "string"}
    data: Any = "Ed Wood"
    for _ in range(depth):
        schema = {
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}, "next": schema},
            "required": ["a", "b", "next"],
        }
        data = {"a": "Tim Burton", "b": "Johnny Depp", "next": data}
    return schema, data


def test_deep_but_allowed_nesting_passes(make_record: MakeRecord) -> None:
    schema, data = nested(MAX_GROUND_TRUTH_NESTING)
    report, output = validate_record(make_record(schema=schema, ground_truth=data))
    assert report.passed, report.failures
    assert output == data
    assert report.complexity is not None and report.complexity.depth == MAX_GROUND_TRUTH_NESTING


def test_too_deep_nesting_is_reported_not_raised(make_record: MakeRecord) -> None:
    schema, data = nested(2000)  # far beyond Python's recursion limit
    report, output = validate_record(make_record(schema=schema, ground_truth=data))
    assert output is None and report.complexity is None
    assert {f.code for f in report.failures} == {"schema_too_deep", "ground_truth_too_deep"}
    assert report.grounding is None  # nothing walks an oversized ground truth

    good_schema, _ = nested(3)
    report, _ = validate_record(make_record(schema=good_schema, ground_truth=data))
    assert {f.code for f in report.failures} == {"ground_truth_too_deep"}
    assert report.complexity is not None


def test_self_containing_and_exponentially_shared_structures_end_quickly(make_record: MakeRecord) -> None:
    # Only Python can build these (JSON cannot), but a batch must not hang on them either.
    cyclic: dict[str, Any] = {"film": "Ed Wood", "cast": []}
    cyclic["cast"].append(cyclic)
    shared: Any = ["Ed Wood"]
    for _ in range(30):  # 2**30 paths to walk, in 31 lists
        shared = [shared, shared]
    for ground_truth, code in ((cyclic, "ground_truth_too_deep"), ({"cast": shared}, "ground_truth_too_large")):
        record = make_record()
        record.output.ground_truth = ground_truth
        started = time.perf_counter()
        report, output = validate_record(record)
        assert time.perf_counter() - started < 2.0
        assert output is None and [f.code for f in report.failures] == [code]
        assert report.complexity is not None  # the schema is fine


def test_limits_hold_on_cyclic_structures() -> None:
    cyclic: dict[str, Any] = {"a": []}
    cyclic["a"].append(cyclic)
    assert nesting_depth(cyclic, 10) == 11
    assert {f.code for f in check_nesting(cyclic, cyclic)} == {"schema_too_deep", "ground_truth_too_deep"}
    assert check_grounding({"a": "x"}, "x").grounded == 1


def test_alignment_survives_odd_schema_values() -> None:
    schema = {
        "type": "object",
        "properties": {"a": True, "b": {"$ref": "#/$defs/missing"}, "c": {"anyOf": [{"type": "null"}]}},
        "required": ["a", "b", "c"],
    }
    failures = check_alignment(schema, {"a": {"x": []}, "b": {}, "c": "text"})
    assert {(f.code, f.path) for f in failures} == {
        ("leaf_without_type", "$.properties.a"),
        ("empty_array", "$.a.x"),
        ("empty_object", "$.b"),
    }
