"""Schema-to-data alignment: every rule, at every depth, through arrays, nullable unions and refs."""

from __future__ import annotations

from typing import Any

from validation.alignment import check_alignment, check_data_alignment, check_schema_structure


def found(failures: list[Any]) -> set[tuple[str, str]]:
    return {(f.code, f.path) for f in failures}


def test_good_schema_and_data_are_aligned(good_schema: dict[str, Any], good_ground_truth: dict[str, Any]) -> None:
    assert check_alignment(good_schema, good_ground_truth) == []


def test_missing_and_undeclared_at_every_depth(good_schema: dict[str, Any], good_ground_truth: dict[str, Any]) -> None:
    del good_ground_truth["director"]
    good_ground_truth["budget"] = "unknown"
    del good_ground_truth["cast"][1]["character"]
    good_ground_truth["cast"][0]["agent"] = "unknown"
    failures = check_data_alignment(good_schema, good_ground_truth)
    assert {f.check for f in failures} == {"alignment"}
    assert found(failures) == {
        ("missing_property", "$.director"),
        ("undeclared_key", "$.budget"),
        ("undeclared_key", "$.cast[0].agent"),
        ("missing_property", "$.cast[1].character"),
    }


def test_null_is_present_missing_is_not(good_schema: dict[str, Any], good_ground_truth: dict[str, Any]) -> None:
    good_ground_truth["cast"][0]["character"] = None  # nullable type list
    good_ground_truth["studio"] = None  # anyOf with null
    assert check_data_alignment(good_schema, good_ground_truth) == []
    del good_ground_truth["studio"]
    assert found(check_data_alignment(good_schema, good_ground_truth)) == {("missing_property", "$.studio")}


def test_empty_arrays_and_objects(good_schema: dict[str, Any], good_ground_truth: dict[str, Any]) -> None:
    good_ground_truth["genres"] = []
    good_ground_truth["cast"] = [{}]
    assert found(check_data_alignment(good_schema, good_ground_truth)) == {
        ("empty_array", "$.genres"),
        ("empty_object", "$.cast[0]"),
        ("missing_property", "$.cast[0].actor"),
        ("missing_property", "$.cast[0].character"),
    }


def test_nullable_object_union_is_walked_through_its_object_branch() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "b": {"type": "string"},
            "place": {
                "anyOf": [
                    {"type": "null"},
                    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
                ]
            },
        },
        "required": ["a", "b", "place"],
    }
    assert check_alignment(schema, {"a": "x", "b": "y", "place": None}) == []
    assert found(check_alignment(schema, {"a": "x", "b": "y", "place": {"town": "z"}})) == {
        ("missing_property", "$.place.city"),
        ("undeclared_key", "$.place.town"),
    }


def test_refs_are_followed_into_defs() -> None:
    schema = {
        "type": "object",
        "$defs": {"person": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}},
        "properties": {
            "a": {"type": "string"},
            "b": {"type": "string"},
            "people": {"type": "array", "items": {"$ref": "#/$defs/person"}},
        },
        "required": ["a", "b", "people"],
    }
    assert check_alignment(schema, {"a": "x", "b": "y", "people": [{"name": "n"}]}) == []
    assert found(check_alignment(schema, {"a": "x", "b": "y", "people": [{"nom": "n"}]})) == {
        ("missing_property", "$.people[0].name"),
        ("undeclared_key", "$.people[0].nom"),
    }


def test_schema_structure_rules_report_schema_paths() -> None:
    schema = {
        "type": "object",
        "properties": {
            "untyped": {"description": "no type"},
            "tags": {"type": "array"},
            "anything": {"type": "array", "items": {}},
            "nested": {
                "type": "object",
                "properties": {"x": {"type": "string"}, "y": {"type": "integer"}},
                "required": ["x"],
            },
        },
        "required": ["untyped", "tags", "anything"],
    }
    failures = check_schema_structure(schema)
    assert {f.check for f in failures} == {"alignment"}
    assert found(failures) == {
        ("leaf_without_type", "$.properties.untyped"),
        ("array_without_items", "$.properties.tags"),
        ("leaf_without_type", "$.properties.anything.items"),
        ("required_incomplete", "$.properties.nested"),
        ("required_incomplete", "$.properties.nested.properties.y"),
    }


def test_nullable_leaves_are_typed() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": ["string", "null"]},
            "b": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "c": {"oneOf": [{"type": "string"}, {"enum": ["x"]}]},
        },
        "required": ["a", "b", "c"],
    }
    assert found(check_schema_structure(schema)) == {("leaf_without_type", "$.properties.c.oneOf[1]")}


def test_too_few_top_level_properties() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        "required": ["a", "b"],
    }
    assert found(check_schema_structure(schema)) == {("too_few_properties", "$.properties")}
    assert found(check_schema_structure({"type": "object"})) == {("too_few_properties", "$.properties")}


def test_maps_declared_by_additional_properties_are_not_undeclared() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "b": {"type": "string"},
            "scores": {"type": "object", "additionalProperties": {"type": "integer"}},
        },
        "required": ["a", "b", "scores"],
    }
    assert check_alignment(schema, {"a": "x", "b": "y", "scores": {"alice": 3, "bob": 4}}) == []
