"""The calibration5 cases (the blind holdout) are well-formed data, checked by the checkers written with them
(tests/data/calibration5/check_hotpotqa.py, check_media.py), and the checkers report the faults they are there to
catch. This checks the cases, never the gate."""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

FOLDER = Path(__file__).parent / "data" / "calibration5"


def _module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, FOLDER / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _lines(name: str) -> list[str]:
    return [line for line in (FOLDER / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_hotpotqa_cases_are_well_formed_balanced_and_held_out() -> None:
    lines = _lines("hotpotqa.jsonl")
    assert _module("check_hotpotqa").check(lines) == []
    cases = [json.loads(line) for line in lines]
    assert sum(c["label"] == "right" for c in cases) == sum(c["label"] == "wrong" for c in cases) == 24
    assert {c["split"] for c in cases} == {"test"}


def _broken(case: dict, how: str) -> dict:
    broken = copy.deepcopy(case)
    if how == "split":
        broken["split"] = "dev"
    elif how == "type":  # a value of the wrong type for its schema
        key = next(iter(broken["ground_truth"]))
        broken["ground_truth"][key] = {"not": "valid"}
    elif how == "key":
        broken["comment"] = "an unknown key"
    return broken


@pytest.mark.parametrize("how", ["split", "type", "key"])
def test_the_hotpotqa_checker_reports_a_broken_line(how: str) -> None:
    lines = _lines("hotpotqa.jsonl")
    broken = json.dumps(_broken(json.loads(lines[0]), how), ensure_ascii=False)
    assert _module("check_hotpotqa").check([broken, *lines[1:]])


@pytest.mark.parametrize(
    ("name", "prefix", "source"), [("ami.jsonl", "v5-ami-", "ami"), ("olmocr.jsonl", "v5-olm-", "olmocr")]
)
def test_the_media_cases_are_well_formed_balanced_and_held_out(name: str, prefix: str, source: str) -> None:
    checker = _module("check_media")
    cases = [json.loads(line) for line in _lines(name)]
    assert [problem for case in cases for problem in checker.check_line(case, prefix, source)] == []
    assert sum(c["label"] == "right" for c in cases) == sum(c["label"] == "wrong" for c in cases) == 12
    assert {c["split"] for c in cases} == {"test"}


@pytest.mark.parametrize("how", ["split", "type"])
def test_the_media_checker_reports_a_broken_line(how: str) -> None:
    case = json.loads(_lines("ami.jsonl")[0])
    assert _module("check_media").check_line(_broken(case, how), "v5-ami-", "ami")
