"""The ground truth validates against its schema (Draft 2020-12), every error at its JSON path."""

from __future__ import annotations

from typing import Any

from validation.ground_truth import check_ground_truth, compiled_validator


def test_good_ground_truth_passes(good_schema: dict[str, Any], good_ground_truth: dict[str, Any]) -> None:
    assert check_ground_truth(good_ground_truth, good_schema) == []


def test_every_mismatch_is_reported_at_its_path(good_schema: dict[str, Any], good_ground_truth: dict[str, Any]) -> None:
    good_ground_truth["release_year"] = "1994"
    good_ground_truth["cast"][1]["actor"] = 7
    del good_ground_truth["cast"][0]["character"]
    good_ground_truth["cast"][0]["agent"] = "unknown"
    del good_ground_truth["director"]
    failures = check_ground_truth(good_ground_truth, good_schema)
    assert {f.code for f in failures} == {"ground_truth_schema_mismatch"}
    assert {f.check for f in failures} == {"ground_truth"}
    found = {(f.path, f.message.split(":")[0]) for f in failures}
    assert found == {
        ("$.release_year", "type"),
        ("$.cast[1].actor", "type"),
        ("$.cast[0].character", "required"),  # points at the missing property
        ("$.cast[0]", "additionalProperties"),
        ("$.director", "required"),
    }


def test_null_is_fine_only_where_the_schema_allows_it(
    good_schema: dict[str, Any], good_ground_truth: dict[str, Any]
) -> None:
    good_ground_truth["cast"][0]["character"] = None  # ["string", "null"]
    good_ground_truth["studio"] = None  # anyOf string | null
    assert check_ground_truth(good_ground_truth, good_schema) == []
    good_ground_truth["film"] = None
    assert [f.path for f in check_ground_truth(good_ground_truth, good_schema)] == ["$.film"]


def test_formats_are_not_asserted() -> None:
    schema = {"type": "object", "properties": {"when": {"type": "string", "format": "date"}}}
    assert check_ground_truth({"when": "sometime in May"}, schema) == []


def test_local_refs_resolve_and_remote_refs_are_not_fetched() -> None:
    local = {"type": "object", "$defs": {"year": {"type": "integer"}}, "properties": {"y": {"$ref": "#/$defs/year"}}}
    assert [f.path for f in check_ground_truth({"y": "x"}, local)] == ["$.y"]
    remote = {"type": "object", "properties": {"y": {"$ref": "https://example.invalid/year.json"}}}
    failures = check_ground_truth({"y": 1}, remote)
    assert [f.code for f in failures] == ["schema_unresolvable_ref"]


def test_validators_are_cached_by_content_and_isolated_from_later_edits(good_schema: dict[str, Any]) -> None:
    first = compiled_validator(good_schema)
    assert compiled_validator(dict(good_schema)) is first  # equal content, another dict: same validator
    good_schema["properties"]["film"]["type"] = "integer"  # editing the caller's dict...
    assert first.schema["properties"]["film"]["type"] == "string"  # ...does not reach the cached copy
