"""The third labelled calibration set (AMI and olmOCR parts) is well formed and grounded in real data.

Checks each line the way the set's README promises: it parses, ids are unique, labels are balanced,
every schema is a Draft 2020-12 object schema with at least 3 described properties whose ground truth
validates, every quoted evidence span occurs verbatim in the context, AMI contexts are windows of
30-150 consecutive lines of the loader's own transcript, and olmOCR contexts are whole real pages.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from loaders.ami import load_ami

DATA = Path(__file__).parent / "data"
SET_DIR = DATA / "calibration3"
AMI_MEETING = DATA / "ami" / "ES2002d.ihm.jsonl"
OLMOCR_PAGES = DATA / "olmocr_bench" / "olmocr_pipeline"
PARTS = {"ami": SET_DIR / "ami.jsonl", "olmocr": SET_DIR / "olmocr.jsonl"}


def read_cases(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def quoted_spans(evidence: dict[str, Any]) -> list[str]:
    """The spans a case claims to copy from its context ("absent" and derivations quote nothing)."""
    spans = []
    for value in evidence.values():
        if isinstance(value, str) and value != "absent":
            spans.append(value)
        elif isinstance(value, dict) and "quote" in value:
            spans.append(value["quote"])
    return spans


def case_problems(case: dict[str, Any]) -> list[str]:
    """Every reason a case breaks the set's format; empty when it is well formed."""
    problems = []
    schema = case["json_schema"]
    Draft202012Validator.check_schema(schema)
    if schema.get("type") != "object" or schema.get("additionalProperties") is not False:
        problems.append("schema is not a closed object")
    if len(schema.get("properties", {})) < 3:
        problems.append("fewer than 3 top-level properties")
    for key, prop in schema.get("properties", {}).items():
        if not prop.get("description"):
            problems.append(f"property {key} has no description")
    errors = [e.message for e in Draft202012Validator(schema).iter_errors(case["ground_truth"])]
    problems += [f"ground truth: {message}" for message in errors]
    for span in quoted_spans(case.get("evidence", {})):
        if span not in case["context"]:
            problems.append(f"quote not in context: {span[:60]}")
    if case["label"] not in ("right", "wrong"):
        problems.append(f"bad label {case['label']!r}")
    return problems


@pytest.fixture(scope="module")
def ami_transcript() -> list[str]:
    result = load_ami(str(AMI_MEETING))
    (item,) = result.items
    return item.context.splitlines()


@pytest.mark.parametrize("part", sorted(PARTS))
def test_part_is_balanced_and_well_formed(part: str) -> None:
    cases = read_cases(PARTS[part])
    assert len(cases) == 24
    assert Counter(c["label"] for c in cases) == {"right": 12, "wrong": 12}
    assert {c["source"] for c in cases} == {part}
    for case in cases:
        assert case["id"].startswith("v3-")
        assert "split" not in case
        assert case_problems(case) == [], case["id"]


def test_ids_and_source_ids_are_unique() -> None:
    cases = [c for path in PARTS.values() for c in read_cases(path)]
    assert len({c["id"] for c in cases}) == len(cases)
    assert len({c["source_id"] for c in cases}) == len(cases)


def test_ami_contexts_are_windows_of_the_loaders_transcript(ami_transcript: list[str]) -> None:
    joined = "\n".join(ami_transcript)
    for case in read_cases(PARTS["ami"]):
        lines = case["context"].splitlines()
        assert 30 <= len(lines) <= 150, case["id"]
        assert case["context"] in joined, case["id"]


def test_olmocr_contexts_are_whole_real_pages() -> None:
    pages = {p.read_text(encoding="utf-8") for p in OLMOCR_PAGES.rglob("*.md")}
    for case in read_cases(PARTS["olmocr"]):
        assert case["context"].strip(), case["id"]
        assert case["context"] in pages, case["id"]


def test_a_broken_case_is_reported_with_its_reasons() -> None:
    case = copy.deepcopy(read_cases(PARTS["olmocr"])[0])
    case["evidence"] = {"$.date": "a sentence that is not on the page"}
    first_key = next(iter(case["json_schema"]["properties"]))
    case["ground_truth"][first_key] = 12345
    del case["json_schema"]["properties"][first_key]["description"]
    problems = case_problems(case)
    assert any(p.startswith("quote not in context") for p in problems)
    assert any(p.startswith("ground truth:") for p in problems)
    assert any("has no description" in p for p in problems)
