"""jsonschema-rs answers "valid?" only for schemas whose keywords it reads exactly as `jsonschema` does:
side by side on tricky values, and the errors still come from `jsonschema`."""

from __future__ import annotations

import itertools

import pytest
from jsonschema import Draft202012Validator

from validation.cache import schema_key
from validation.ground_truth import _fast_supported, _fast_validator, check_ground_truth

VALUES = [
    None, True, False, 0, 1, -1, 1.0, 1.5, -0.0, 2**63, 2**70, -(2**70), 1e308, float("nan"), float("inf"),
    "", "a", "é", "𝄞𝄞", "1", "abc", "ab", [], [1], [1, "a"], [1, 1], ["a", "b", "c"], {}, {"a": 1}, {"a": "x", "b": 2},
    {"a": None}, {"b": [1, 2]},
]  # fmt: skip
SCHEMAS = [
    {"type": "integer"},
    {"type": "number"},
    {"type": "string"},
    {"type": "boolean"},
    {"type": "null"},
    {"type": ["string", "null"]},
    {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 2},
    {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]},
    {"type": "string", "minLength": 1, "maxLength": 2},
    {"type": "number", "minimum": 0, "maximum": 1.5},
    {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 2**64},
    {"enum": ["a", "b"]},
    {"const": "a"},
    {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "array", "items": {"type": "number"}}},
        "required": ["a"],
        "additionalProperties": False,
    },
    {"type": "object", "additionalProperties": {"type": "string"}, "minProperties": 1, "maxProperties": 1},
    {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    {"oneOf": [{"type": "number"}, {"type": "integer"}]},
    {"allOf": [{"type": "number"}, {"minimum": 1}]},
    {"not": {"type": "null"}, "description": "anything but null"},
]


@pytest.mark.parametrize("schema", SCHEMAS, ids=[str(i) for i in range(len(SCHEMAS))])
def test_fast_validator_agrees_with_jsonschema(schema: dict) -> None:
    reference = Draft202012Validator(schema, format_checker=None)
    fast = _fast_validator(schema, schema_key(schema))
    assert fast is not None, "every schema here uses only shared keywords"
    for value in VALUES:
        try:
            answer = fast.is_valid(value)
        except (ValueError, OverflowError):
            answer = False  # check_ground_truth then asks jsonschema
        if answer:  # "valid" is final; "invalid" (NaN is no number for jsonschema-rs) goes to jsonschema
            assert reference.is_valid(value), (schema, value)
        expected = sorted(str(list(e.absolute_path)) + e.message for e in reference.iter_errors(value))
        found = check_ground_truth(value, schema, key=schema_key(schema))
        assert len(found) == len(expected), (schema, value)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "pattern": "^(?!x)"},
        {"type": "string", "format": "date"},
        {"$ref": "#/$defs/a", "$defs": {"a": {"type": "string"}}},
        {"type": "number", "multipleOf": 0.1},
        {"enum": [1, "a"]},
        {"const": 1},
        {"type": "array", "uniqueItems": True},
        {"type": "array", "items": True},
        {"properties": {"a": {"type": "object", "patternProperties": {"^x": {}}}}},
    ],
)
def test_other_keywords_are_left_to_jsonschema(schema: dict) -> None:
    assert not _fast_supported(schema)
    assert _fast_validator(schema, schema_key(schema)) is None


def test_errors_still_come_from_jsonschema_with_paths() -> None:
    schema = SCHEMAS[13]
    failures = check_ground_truth({"a": "1", "b": [1, "x"], "c": 0}, schema, key=schema_key(schema))
    assert sorted(f.path for f in failures) == ["$", "$.a", "$.b[1]"]
    assert all(f.code == "ground_truth_schema_mismatch" for f in failures)
    assert check_ground_truth({"a": 1, "b": [1.5]}, schema, key=schema_key(schema)) == []


def test_values_jsonschema_rs_cannot_read_fall_back() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    for value, bad in [({1: 2}, False), ({"a": (1, 2)}, True)]:
        expected = list(Draft202012Validator(schema).iter_errors(value))
        assert len(check_ground_truth(value, schema, key=schema_key(schema))) == len(expected) == int(bad)


def test_every_pair_of_shared_keywords_compiles() -> None:
    for first, second in itertools.combinations(SCHEMAS[:6], 2):
        schema = {"anyOf": [first, second]}
        assert _fast_validator(schema, schema_key(schema)) is not None
