"""The schema must be valid for Draft 2020-12 and Draft 7, and an object at the top level."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft7Validator, Draft202012Validator

from validation.schema_check import check_schema


def codes_at(schema: Any) -> set[tuple[str, str]]:
    return {(f.code, f.path) for f in check_schema(schema)}


def test_good_schema_passes(good_schema: dict[str, Any]) -> None:
    assert check_schema(good_schema) == []


@pytest.mark.parametrize("schema", [[{"type": "object"}], "object", 3, None, True])
def test_not_a_dict_is_not_a_schema(schema: Any) -> None:
    failures = check_schema(schema)
    assert [(f.check, f.code, f.path) for f in failures] == [("json_schema", "schema_not_a_schema", "$")]


def test_misspelt_type_fails_both_drafts_and_is_not_an_object() -> None:
    assert codes_at({"type": "strng"}) == {
        ("schema_not_object", "$.type"),
        ("schema_invalid_2020_12", "$.type"),
        ("schema_invalid_draft7", "$.type"),
    }


def test_array_at_top_level_is_not_an_object() -> None:
    schema = {"type": "array", "items": {"type": "string"}}
    assert codes_at(schema) == {("schema_not_object", "$.type")}


def test_every_nested_error_is_reported_with_its_schema_path(good_schema: dict[str, Any]) -> None:
    good_schema["properties"]["film"]["type"] = "text"
    good_schema["properties"]["cast"]["items"]["properties"]["actor"]["minLength"] = -1
    good_schema["properties"]["genres"]["items"] = {"type": "string", "pattern": "["}
    found = codes_at(good_schema)
    for code in ("schema_invalid_2020_12", "schema_invalid_draft7"):
        assert (code, "$.properties.film.type") in found
        assert (code, "$.properties.cast.items.properties.actor.minLength") in found
        assert (code, "$.properties.genres.items.pattern") in found
    assert len(found) == 6


def test_draft7_only_failure() -> None:
    # `additionalItems` is no 2020-12 keyword (anything goes) but must be a schema in Draft 7.
    schema = {"type": "object", "properties": {"tags": {"type": "array", "items": {}, "additionalItems": 5}}}
    assert codes_at(schema) == {("schema_invalid_draft7", "$.properties.tags.additionalItems")}


def test_2020_12_only_failure() -> None:
    # Draft 7 allows tuple `items`; 2020-12 wants a schema there (tuples are `prefixItems`).
    schema = {"type": "object", "properties": {"pair": {"type": "array", "items": [{"type": "string"}]}}}
    assert codes_at(schema) == {("schema_invalid_2020_12", "$.properties.pair.items")}


def test_required_must_hold_unique_strings() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "a", 3]}
    found = codes_at(schema)
    assert ("schema_invalid_2020_12", "$.required") in found
    assert ("schema_invalid_draft7", "$.required[2]") in found


def test_results_are_cached_but_not_shared(good_schema: dict[str, Any]) -> None:
    good_schema["properties"]["film"]["type"] = "text"
    first = check_schema(good_schema)
    second = check_schema(good_schema)
    assert first == second and first[0] is not second[0]


# The decomposed check must agree with jsonschema's own metaschema validation.
AGREEMENT_CASES: list[dict[str, Any]] = [
    {"type": "object", "properties": {"a": {"type": "string", "description": "x"}}},
    {"type": "object", "properties": {"a": {"type": ["string", "null"]}}, "required": ["a"]},
    {"type": "object", "$defs": {"p": {"type": "integer", "minimum": 0}}, "properties": {"a": {"$ref": "#/$defs/p"}}},
    {"type": "object", "$defs": {"p": {"type": "intger"}}},
    {"type": "object", "definitions": {"p": {"minItems": "3"}}},
    {"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "nul"}]}}},
    {"type": "object", "properties": {"a": {"oneOf": []}}},
    {"type": "object", "properties": {"a": {"enum": "abc"}}},
    {"type": "object", "properties": {"a": {"type": "number", "multipleOf": 0}}},
    {"type": "object", "properties": {"a": 5}},
    {"type": "object", "properties": []},
    {"type": "object", "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": False},
    {"type": "object", "dependencies": {"a": ["b", 1]}},
    {"type": "object", "dependencies": {"a": {"type": "strin"}}},
    {"type": "object", "if": {"properties": {"a": {"const": 1}}}, "then": {"required": "a"}},
    {"type": "object", "not": {"type": ["string", "string"]}},
    {"type": "object", "properties": {"a": {"type": "array", "prefixItems": [{"type": "bad"}]}}},
    {"type": "object", "properties": {"a": {"type": "array", "items": [{"type": "bad"}]}}},
    {"type": "object", "title": 3, "description": ["no"], "examples": "no", "default": {"x": 1}},
    {"type": "object", "dependentRequired": {"a": "b"}, "dependentSchemas": {"a": {"type": "objec"}}},
    {"type": "object", "properties": {"a": {"contentSchema": {"type": "x"}, "unevaluatedProperties": 3}}},
]


@pytest.mark.parametrize("schema", AGREEMENT_CASES)
def test_agrees_with_jsonschema_metaschemas(schema: dict[str, Any]) -> None:
    failures = check_schema(schema)
    for validator, code in (
        (Draft202012Validator, "schema_invalid_2020_12"),
        (Draft7Validator, "schema_invalid_draft7"),
    ):
        official = validator(validator.META_SCHEMA, format_checker=validator.FORMAT_CHECKER)
        assert official.is_valid(schema) == (not any(f.code == code for f in failures)), code
