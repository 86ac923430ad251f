"""Complexity levels and counts: easy (flat), medium (depth 2), hard (arrays of objects or depth >= 3)."""

from __future__ import annotations

from typing import Any

from validation.complexity import assess_complexity

STRING = {"type": "string"}


def obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties)}


def test_flat_object_is_easy_with_depth_1() -> None:
    info = assess_complexity(obj(a=STRING, b={"type": "integer"}, c={"type": ["string", "null"]}))
    assert info.model_dump() == {
        "level": "easy",
        "properties": 3,
        "top_level_properties": 3,
        "required": 3,
        "leaves": 3,
        "depth": 1,
    }


def test_array_of_scalars_is_medium() -> None:
    info = assess_complexity(obj(a=STRING, b=STRING, tags={"type": "array", "items": STRING}))
    assert (info.level, info.depth, info.leaves, info.properties) == ("medium", 2, 3, 3)


def test_nested_object_is_medium() -> None:
    schema = obj(a=STRING, b=STRING, place=obj(city=STRING, country=STRING))
    info = assess_complexity(schema)
    assert (info.level, info.depth, info.properties, info.top_level_properties, info.required, info.leaves) == (
        "medium",
        2,
        5,
        3,
        5,
        4,
    )


def test_array_of_objects_is_hard(good_schema: dict[str, Any]) -> None:
    info = assess_complexity(good_schema)
    assert (info.level, info.depth, info.properties, info.top_level_properties, info.required, info.leaves) == (
        "hard",
        3,
        8,
        6,
        8,
        7,
    )


def test_depth_3_of_objects_is_hard() -> None:
    info = assess_complexity(obj(a=STRING, b=STRING, c=obj(d=obj(e=STRING))))
    assert (info.level, info.depth) == ("hard", 3)


def test_nullable_union_counts_its_non_null_branch_and_refs_are_followed() -> None:
    schema = obj(
        a=STRING,
        b={"anyOf": [{"type": "null"}, obj(x=STRING)]},
        people={"type": "array", "items": {"$ref": "#/$defs/person"}},
    )
    schema["$defs"] = {"person": obj(name=STRING)}
    info = assess_complexity(schema)
    assert (info.level, info.depth, info.properties, info.leaves) == ("hard", 3, 5, 3)


def test_recursive_schema_terminates() -> None:
    schema = obj(a=STRING, b=STRING, child={"$ref": "#"})
    info = assess_complexity(schema)
    # The recursion is expanded once, then counted as a leaf where it repeats.
    assert (info.top_level_properties, info.properties, info.depth, info.level) == (3, 6, 2, "medium")
