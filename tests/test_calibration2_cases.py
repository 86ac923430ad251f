"""The second labelled calibration set (AMI and olmOCR) stays well formed and balanced."""

import json
from collections import Counter
from pathlib import Path

from scripts.check_calibration_cases import check_files

SET_DIR = Path(__file__).parent / "data" / "calibration2"
FILES = [SET_DIR / "ami.jsonl", SET_DIR / "olmocr.jsonl"]


def test_every_case_is_well_formed():
    assert check_files(FILES) == []


def test_each_source_is_half_right_half_wrong():
    counts = Counter()
    for path in FILES:
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            counts[(case["source"], case["label"])] += 1
    assert counts == {("ami", "right"): 12, ("ami", "wrong"): 12, ("olmocr", "right"): 12, ("olmocr", "wrong"): 12}


def test_checker_rejects_a_quote_missing_from_the_context_and_a_repeated_id(tmp_path):
    case = json.loads(FILES[0].read_text(encoding="utf-8").splitlines()[0])
    case["evidence"] = {"$.shape": "a phrase that the transcript never says"}
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(case) + "\n" + json.dumps(case) + "\n", encoding="utf-8")
    report = check_files([bad])
    assert any("quote not in context" in line for line in report)
    assert any("duplicate id" in line for line in report)


def test_checker_rejects_a_ground_truth_outside_its_schema(tmp_path):
    case = json.loads(FILES[1].read_text(encoding="utf-8").splitlines()[0])
    case["ground_truth"]["extra"] = 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(case) + "\n", encoding="utf-8")
    assert any("ground truth" in line for line in check_files([bad]))
