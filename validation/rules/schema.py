"""Rules on the schema, the types of the ground truth and its alignment with the schema: all reject (a record
that fails them cannot be scored), all guard against a schema error or data loss."""

from __future__ import annotations

import copy
from typing import Any

from core.limits import MAX_GROUND_TRUTH_CONTAINERS, MAX_GROUND_TRUTH_NESTING, MAX_SCHEMA_CONTAINERS, MAX_SCHEMA_NESTING
from validation.rules.base import GROUND_TRUTH, SCHEMA, lake, with_property
from validation.rules.model import Example, Rule

RIGHT = lake("the lake record: a valid schema and a ground truth that follows it")


def _schema(**changes: Any) -> dict[str, Any]:
    return copy.deepcopy(SCHEMA) | changes


def _property(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    schema = copy.deepcopy(SCHEMA)
    schema["properties"][name] = spec
    return schema


def _nested(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        node = {"type": "object", "properties": {"inner": node}, "required": ["inner"]}
    return node


def _deep_schema() -> dict[str, Any]:
    return {"json_schema": _property("deep", _nested(MAX_SCHEMA_NESTING + 1))}


def _large_schema() -> dict[str, Any]:
    many = {f"p{i}": {"type": "object", "properties": {}} for i in range(MAX_SCHEMA_CONTAINERS + 1)}
    return {"json_schema": _property("wide", {"type": "object", "properties": many})}


def _deep_ground_truth() -> dict[str, Any]:
    value: Any = "x"
    for _ in range(MAX_GROUND_TRUTH_NESTING + 1):
        value = [value]
    return {"ground_truth": GROUND_TRUTH | {"lake": value}}


def _large_ground_truth() -> dict[str, Any]:
    return {"ground_truth": GROUND_TRUTH | {"lake": [[] for _ in range(MAX_GROUND_TRUTH_CONTAINERS + 1)]}}


def _schema_rule(code: str, summary: str, why: str, wrong: Example, checks: tuple[str, ...]) -> Rule:
    return Rule(
        code=code,
        summary=summary,
        outcome="reject",
        stage="validation",
        why=why,
        right=RIGHT,
        wrong=wrong,
        checks=checks,
        guards=True,
        family="schema, types and alignment",
    )


SCHEMA_CHECK = "validation.schema_check:check_schema"
LIMITS = "core.limits:check_nesting"
GROUND_TRUTH_CHECK = "validation.ground_truth:check_ground_truth"
STRUCTURE = "validation.alignment:check_schema_structure"
DATA_ALIGNMENT = "validation.alignment:check_data_alignment"
PYDANTIC = "validation.pydantic_check:check_pydantic"
SCORED = "SOB's evaluator scores an answer against its schema: a record whose schema or data is broken cannot be scored"

RULES = (
    _schema_rule(
        "schema_not_a_schema",
        "The schema is not a JSON object.",
        SCORED,
        lake("a list given as the schema", json_schema=["not", "a", "schema"]),
        (SCHEMA_CHECK,),
    ),
    _schema_rule(
        "schema_not_object",
        "The top-level schema does not have `type: object`.",
        "SOB's records answer with a JSON object; a top-level array or string has no fields to score.",
        lake("`type: array` at the top", json_schema=_schema(type="array")),
        (SCHEMA_CHECK,),
    ),
    _schema_rule(
        "schema_invalid_2020_12",
        "The schema fails the Draft 2020-12 metaschema.",
        SCORED,
        lake("a type that does not exist", json_schema=_property("built", {"type": "integr"})),
        (SCHEMA_CHECK,),
    ),
    _schema_rule(
        "schema_invalid_draft7",
        "The schema fails the Draft 7 metaschema (models and tools still read Draft 7).",
        SCORED,
        lake("a type that does not exist", json_schema=_property("built", {"type": "integr"})),
        (SCHEMA_CHECK,),
    ),
    _schema_rule(
        "schema_too_deep",
        f"The schema nests more than {MAX_SCHEMA_NESTING} objects/arrays.",
        "Nothing may walk, copy or hash an oversized part: the limits keep every check bounded.",
        lake(f"a property nested {MAX_SCHEMA_NESTING + 1} deep", build=_deep_schema),
        (LIMITS,),
    ),
    _schema_rule(
        "schema_too_large",
        f"The schema holds more than {MAX_SCHEMA_CONTAINERS:,} objects/arrays.",
        "Nothing may walk, copy or hash an oversized part: the limits keep every check bounded.",
        lake(f"{MAX_SCHEMA_CONTAINERS + 1:,} empty objects", build=_large_schema),
        (LIMITS,),
    ),
    _schema_rule(
        "ground_truth_too_deep",
        f"The ground truth nests more than {MAX_GROUND_TRUTH_NESTING} objects/arrays (or validating it recursed "
        "too deeply).",
        "Nothing may walk, copy or hash an oversized part: the limits keep every check bounded.",
        lake(f"a value nested {MAX_GROUND_TRUTH_NESTING + 1} lists deep", build=_deep_ground_truth),
        (LIMITS, GROUND_TRUTH_CHECK),
    ),
    _schema_rule(
        "ground_truth_too_large",
        f"The ground truth holds more than {MAX_GROUND_TRUTH_CONTAINERS:,} objects/arrays.",
        "Nothing may walk, copy or hash an oversized part: the limits keep every check bounded.",
        lake(f"{MAX_GROUND_TRUTH_CONTAINERS + 1:,} empty lists", build=_large_ground_truth),
        (LIMITS,),
    ),
    _schema_rule(
        "schema_bad_pattern",
        "A `pattern` of the schema is not a valid regular expression.",
        SCORED,
        Example(
            note="an unclosed group (the metaschema rejects it first on the full path: this runs the check alone)",
            json_schema=_property("lake", {"type": "string", "pattern": "(Lake"}),
            ground_truth=dict(GROUND_TRUTH),
            alone=True,
        ),
        (GROUND_TRUTH_CHECK,),
    ),
    _schema_rule(
        "schema_unresolvable_ref",
        "A `$ref` of the schema points nowhere in the schema.",
        SCORED,
        lake("a reference to a definition that is not there", json_schema=_property("lake", {"$ref": "#/$defs/nil"})),
        (GROUND_TRUTH_CHECK,),
    ),
    _schema_rule(
        "schema_pattern_too_slow",
        "A `pattern` of the schema takes too long on the value (catastrophic backtracking).",
        "A pattern that backtracks without end would stall every run that validates the record.",
        with_property(
            "codes",
            {"type": "array", "items": {"type": "string", "pattern": "^(a|aa)+$"}},
            ["a" * 40 + "!"] * 50,
            "`^(a|aa)+$` on fifty strings of forty a's and a `!`",
        ),
        (GROUND_TRUTH_CHECK, "validation.regex_limit:budget"),
    ),
    _schema_rule(
        "ground_truth_schema_mismatch",
        "The ground truth does not validate against its schema.",
        SCORED,
        lake("a year written as a string", ground_truth=GROUND_TRUTH | {"built": "1931"}),
        (GROUND_TRUTH_CHECK,),
    ),
    _schema_rule(
        "pydantic_*",
        "A part of the record is not of the type the record model declares (`pydantic_<error type>`).",
        "Every stage reads records through the record model: a part of the wrong type would fail later, far from "
        "its cause.",
        lake("a ground truth that is a list, not an object", ground_truth=["Lake Varn", 1931, 38]),
        (PYDANTIC,),
    ),
    _schema_rule(
        "too_few_properties",
        "The top level declares fewer than three properties.",
        "SOB's records ask for several fields: a one- or two-field answer tests little structure.",
        lake(
            "two properties",
            json_schema=_schema(
                properties={"lake": SCHEMA["properties"]["lake"], "built": SCHEMA["properties"]["built"]},
                required=["lake", "built"],
            ),
            ground_truth={"lake": "Lake Varn", "built": 1931},
        ),
        (STRUCTURE,),
    ),
    _schema_rule(
        "required_incomplete",
        "A declared property is not listed in `required`.",
        "An optional field is both missing and null to a scorer; SOB's schemas require every field.",
        lake("`built` left out of `required`", json_schema=_schema(required=["lake", "dam_height_m"])),
        (STRUCTURE,),
    ),
    _schema_rule(
        "leaf_without_type",
        "A leaf of the schema declares no `type` (or is `true`).",
        "A leaf without a type accepts anything, so the schema does not say what answer it expects.",
        lake("`built` with a description only", json_schema=_property("built", {"description": "year it was built"})),
        (STRUCTURE,),
    ),
    _schema_rule(
        "array_without_items",
        "An array schema does not declare `items`.",
        "An array without `items` accepts anything in it, so the schema does not say what answer it expects.",
        with_property("owners", {"type": "array"}, ["Telmark Water"], "a list of owners without `items`"),
        (STRUCTURE,),
    ),
    _schema_rule(
        "missing_property",
        "The ground truth lacks a property the schema declares.",
        "Missing and null are different states to a scorer: a missing value is lost data.",
        lake("`built` left out", ground_truth={"lake": "Lake Varn", "dam_height_m": 38}),
        (DATA_ALIGNMENT,),
    ),
    _schema_rule(
        "undeclared_key",
        "The ground truth holds a key the schema does not declare.",
        "A key the schema does not declare is never asked for: a scorer cannot score it.",
        lake(
            "a `volume` key the schema does not declare",
            json_schema=_schema(additionalProperties=True),
            ground_truth=GROUND_TRUTH | {"volume": 42},
        ),
        (DATA_ALIGNMENT,),
    ),
    _schema_rule(
        "empty_array",
        "A list of the ground truth is empty (unless its evidence is `absent`).",
        "An empty list is most often a value not filled in; a page with no such items says so with `absent`.",
        with_property("owners", {"type": "array", "items": {"type": "string"}}, [], "no owners listed"),
        (DATA_ALIGNMENT,),
    ),
    _schema_rule(
        "empty_object",
        "An object of the ground truth is empty.",
        "An empty object is a value not filled in.",
        with_property("dam", {"type": "object", "additionalProperties": True}, {}, "an empty `dam` object"),
        (DATA_ALIGNMENT,),
    ),
)
