"""The labelled HotpotQA calibration cases are well formed: every line parses, its ground truth fits its
schema, its evidence quotes the row's context verbatim, and the set stays balanced between right and wrong.

These tests check the cases as data, not the gate: a case that breaks them would measure the gate on a
record that is malformed for reasons other than the one it was written to test."""

from __future__ import annotations

import json
import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from core.evidence import parse_evidence_map
from loaders.hotpotqa import load_hotpotqa, sample_path

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "data" / "calibration" / "hotpotqa.jsonl"
ROWS = (ROOT / "tests" / "data" / "hotpotqa" / "hotpot_dev_distractor_v1.sample.json", sample_path())
REQUIRED = {
    "id",
    "label",
    "kind",
    "note",
    "source",
    "source_id",
    "question",
    "json_schema",
    "ground_truth",
    "annotator",
}
OPTIONAL = {"evidence", "seed_question", "seed_answer", "split"}
PATH_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")
MISSING = object()
MIN_TOP_LEVEL_PROPERTIES = 3  # the toolkit's record format: a schema's top level declares at least 3 properties


@cache
def _contexts() -> dict[str, str]:
    out: dict[str, str] = {}
    for path in ROWS:
        out.update({item.source_id: item.context for item in load_hotpotqa(path).items})
    return out


def _cases() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()]


def resolve(value: Any, path: str) -> Any:
    """The value at a JSON path such as `$.books[0].author`, or MISSING."""
    if not path.startswith("$"):
        return MISSING
    rest, pos = path[1:], 0
    while pos < len(rest):
        step = PATH_STEP.match(rest, pos)
        if step is None:
            return MISSING
        key, index = step.groups()
        if key is not None:
            if not isinstance(value, dict) or key not in value:
                return MISSING
            value = value[key]
        else:
            if not isinstance(value, list) or int(index) >= len(value):
                return MISSING
            value = value[int(index)]
        pos = step.end()
    return value


def schema_problems(schema: dict[str, Any], where: str = "$") -> list[str]:
    """Objects closed and fully required; every property described."""
    problems = []
    if schema.get("type") == "object":
        props = schema.get("properties", {})
        if schema.get("additionalProperties") is not False:
            problems.append(f"{where}: additionalProperties is not false")
        if set(schema.get("required", [])) != set(props):
            problems.append(f"{where}: required does not list every property")
        for name, sub in props.items():
            if not sub.get("description"):
                problems.append(f"{where}.{name}: no description")
            problems += schema_problems(sub, f"{where}.{name}")
    if schema.get("type") == "array":
        problems += schema_problems(schema.get("items", {}), f"{where}[]")
    return problems


def top_level_problems(schema: dict[str, Any]) -> list[str]:
    """The record format's rule for the top level: an object with at least 3 properties."""
    count = len(schema.get("properties", {}))
    if schema.get("type") != "object" or count < MIN_TOP_LEVEL_PROPERTIES:
        return [f"$: the top level declares {count} properties; the record format needs {MIN_TOP_LEVEL_PROPERTIES}"]
    return []


def test_resolve_finds_and_misses_paths() -> None:
    doc = {"a": [{"b": 1}, {"b": None}], "c": {"d": "x"}}
    assert resolve(doc, "$.a[1].b") is None
    assert resolve(doc, "$.c.d") == "x"
    assert resolve(doc, "$.a[2].b") is MISSING
    assert resolve(doc, "$.c.e") is MISSING
    assert resolve(doc, "a.b") is MISSING


def test_schema_problems_catches_open_and_undescribed_objects() -> None:
    bad = {"type": "object", "properties": {"x": {"type": "string"}}, "required": []}
    problems = schema_problems(bad)
    assert any("additionalProperties" in p for p in problems)
    assert any("required" in p for p in problems)
    assert any("no description" in p for p in problems)


def test_top_level_problems_catches_a_two_property_schema() -> None:
    described = {"type": "string", "description": "x"}
    two = {"type": "object", "properties": {"a": described, "b": described}}
    three = {"type": "object", "properties": {"a": described, "b": described, "c": described}}
    assert top_level_problems(two) and "2 properties" in top_level_problems(two)[0]
    assert top_level_problems({"type": "array", "items": described})
    assert top_level_problems(three) == []


def test_set_is_balanced_and_ids_unique() -> None:
    cases = _cases()
    assert len(cases) == 90
    assert Counter(c["label"] for c in cases) == {"right": 45, "wrong": 45}
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c["id"])
def test_case_is_well_formed(case: dict[str, Any]) -> None:
    contexts = _contexts()
    assert REQUIRED <= set(case), f"missing {REQUIRED - set(case)}"
    assert set(case) <= REQUIRED | OPTIONAL, f"unexpected keys {set(case) - REQUIRED - OPTIONAL}"
    assert case["source"] == "hotpotqa" and case["label"] in ("right", "wrong")
    assert case["source_id"] in contexts, "source_id is not a row of the HotpotQA test data"
    context = contexts[case["source_id"]]
    schema = case["json_schema"]
    Draft202012Validator.check_schema(schema)
    assert schema_problems(schema) == []
    assert top_level_problems(schema) == []
    errors = [e.message for e in Draft202012Validator(schema).iter_errors(case["ground_truth"])]
    assert errors == [], errors
    evidence, problems = parse_evidence_map(case.get("evidence"))
    assert problems == []
    for path, ev in evidence.items():
        value = resolve(case["ground_truth"], path)
        assert value is not MISSING, f"evidence for {path}, which is not in the ground truth"
        if ev.kind in ("span", "normalised"):
            assert ev.quote in context, f"{path}: quote {ev.quote!r} is not in the context"
        elif ev.kind == "absent":
            assert value in (None, []), f"{path}: absent evidence for a stated value {value!r}"
        else:
            for source in ev.sources:
                assert resolve(case["ground_truth"], source) is not MISSING, f"{path}: unknown source {source}"
