"""The calibration4 HotpotQA cases are well-formed data (checked by tests/data/calibration4/check_hotpotqa.py),
and the checker reports the faults it is there to catch. This checks the cases, never the gate."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from loaders.hotpotqa import load_hotpotqa

FOLDER = Path(__file__).parent / "data" / "calibration4"
CASES = FOLDER / "hotpotqa.jsonl"


def _checker():
    spec = importlib.util.spec_from_file_location("check_hotpotqa", FOLDER / "check_hotpotqa.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def checker():
    return _checker()


@pytest.fixture(scope="module")
def contexts(checker):
    return {item.source_id: item.context for item in load_hotpotqa(checker.HOTPOT_ROWS).items}


def test_the_set_is_well_formed_and_balanced(checker, contexts):
    problems, labels = checker.check(CASES, contexts, set())
    assert problems == []
    assert labels[("hotpotqa", "right")] == labels[("hotpotqa", "wrong")] == 24
    lines = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]
    inline = [case for case in lines if "context" in case]
    assert len(inline) == 24 and all(case["source_id"].startswith("v4-hp-ctx-") for case in inline)
    assert {case["source_id"] for case in lines if "context" not in case} == set(contexts)  # all 20 rows used


def test_the_checker_reports_broken_lines(checker, contexts, tmp_path):
    first, second, third = (json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()[:3])
    first["evidence"]["$.ed_wood.birth_date"]["quote"] = "October 11, 1924"  # not in the row's context
    second["id"] = first["id"]
    second["ground_truth"]["ambassador_to"] = "Ghana"  # not the array its schema asks for
    third["source_id"] = "not-a-row"
    broken = tmp_path / "broken.jsonl"
    broken.write_text("".join(json.dumps(case) + "\n" for case in (first, second, third)), encoding="utf-8")
    problems, _ = checker.check(broken, contexts, set())
    assert any("quote of $.ed_wood.birth_date not in the context" in p for p in problems)
    assert any("duplicate id" in p for p in problems)
    assert any("ground truth invalid at ['ambassador_to']" in p for p in problems)
    assert any("not-a-row not in the dev sample" in p for p in problems)
