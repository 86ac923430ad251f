"""The labelled AMI and olmOCR calibration cases (tests/data/calibration/{ami,olmocr}.jsonl) are well
formed, balanced, and built on the real inputs they name: an AMI context is a run of consecutive lines
of the loader's own transcript, an olmOCR context is an olmOCR output page as stored."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from core.evidence import parse_evidence_map
from loaders.ami import load_ami, sample_path

DATA = Path(__file__).resolve().parent / "data"
CALIBRATION = DATA / "calibration"
PARTS = {"ami": CALIBRATION / "ami.jsonl", "olmocr": CALIBRATION / "olmocr.jsonl"}
FIELDS = {"id", "label", "kind", "note", "source", "source_id", "question", "json_schema", "ground_truth"}
FIELDS |= {"annotator", "context"}
OPTIONAL = {"evidence", "split"}
CASES_PER_LABEL = 21
MIN_TOP_LEVEL_PROPERTIES = 3  # the toolkit's record format: a schema's top level declares at least 3 properties
PATH_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")


def read_cases(part: str) -> list[dict[str, Any]]:
    lines = PARTS[part].read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def leaf(value: Any, path: str) -> Any:
    """The value at a `$.a.b[0]` path; KeyError/IndexError when it is not there."""
    assert path.startswith("$"), path
    rest = path[1:]
    for match in PATH_STEP.finditer(rest):
        key, index = match.groups()
        value = value[key] if key else value[int(index)]
    assert "".join(m.group(0) for m in PATH_STEP.finditer(rest)) == rest, f"unreadable path {path}"
    return value


def top_level_property_count(schema: dict[str, Any]) -> int:
    """How many properties the schema's top level declares (0 when the top level is not an object)."""
    return len(schema.get("properties", {})) if schema.get("type") == "object" else 0


def test_top_level_property_count_sees_short_schemas() -> None:
    described = {"type": "string", "description": "x"}
    assert top_level_property_count({"type": "object", "properties": {"a": described, "b": described}}) == 2
    assert top_level_property_count({"type": "array", "items": described}) == 0


@pytest.mark.parametrize("part", PARTS)
def test_cases_are_well_formed_and_balanced(part: str) -> None:
    cases = read_cases(part)
    assert Counter(c["label"] for c in cases) == {"right": CASES_PER_LABEL, "wrong": CASES_PER_LABEL}
    assert len({c["id"] for c in cases}) == len(cases), "ids must be unique"
    for case in cases:
        assert FIELDS <= case.keys() <= FIELDS | OPTIONAL, case["id"]
        assert case["source"] == part and case["context"].strip() and case["kind"].strip(), case["id"]
        Draft202012Validator.check_schema(case["json_schema"])
        count = top_level_property_count(case["json_schema"])
        assert count >= MIN_TOP_LEVEL_PROPERTIES, f"{case['id']}: top level declares {count} properties"
        errors = [e.message for e in Draft202012Validator(case["json_schema"]).iter_errors(case["ground_truth"])]
        assert not errors, f"{case['id']}: {errors}"
        evidence, problems = parse_evidence_map(case.get("evidence"))
        assert not problems, f"{case['id']}: {problems}"
        for path, entry in evidence.items():
            leaf(case["ground_truth"], path)
            for source in entry.sources:
                leaf(case["ground_truth"], source)
            if entry.quote is not None:
                assert entry.quote in case["context"], f"{case['id']} {path}: quote not in the context"


def test_ami_contexts_are_consecutive_loader_lines() -> None:
    transcripts = {
        item.source_id: item.context.split("\n")
        for path in (DATA / "ami" / "ES2002d.ihm.jsonl", sample_path())
        for item in load_ami(path).items
    }
    for case in read_cases("ami"):
        meeting = case["source_id"].split("@")[0]
        lines = case["context"].split("\n")
        transcript = transcripts[meeting]
        assert 30 <= len(lines) <= 150, case["id"]
        starts = [i for i, line in enumerate(transcript) if line == lines[0]]
        assert any(transcript[i : i + len(lines)] == lines for i in starts), f"{case['id']}: not a window of {meeting}"


def test_olmocr_contexts_are_stored_pipeline_pages() -> None:
    pages = {p.read_text(encoding="utf-8") for p in (DATA / "olmocr_bench" / "olmocr_pipeline").rglob("*.md")}
    real = [c for c in read_cases("olmocr") if not c["source_id"].startswith("sample:")]
    assert len(real) >= 30
    for case in real:
        assert case["context"] in pages, f"{case['id']}: context is not a stored olmOCR page"
