"""The calibration6 cases (a blind holdout, now a development set) are well-formed data, checked by the checkers
written with them (tests/data/calibration6/check_hotpotqa.py, check_media.py), and the checkers report the faults
they are there to catch. This checks the cases, never the gate."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "tests" / "data" / "calibration6"


def _cases(name: str) -> list[dict]:
    return [json.loads(line) for line in (FOLDER / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def _run(checker: str, target: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(FOLDER / checker), str(target)], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize(("name", "count"), [("hotpotqa.jsonl", 24), ("ami.jsonl", 12), ("olmocr.jsonl", 12)])
def test_each_file_balances_right_and_wrong_and_is_all_held_out(name: str, count: int) -> None:
    cases = _cases(name)
    assert sum(c["label"] == "right" for c in cases) == sum(c["label"] == "wrong" for c in cases) == count
    assert {c["split"] for c in cases} == {"test"}


def test_the_checkers_pass_the_set_as_it_is() -> None:
    assert _run("check_hotpotqa.py", FOLDER / "hotpotqa.jsonl").returncode == 0
    assert _run("check_media.py", FOLDER).returncode == 0


@pytest.mark.parametrize("how", ["split", "quote", "type"])
def test_the_checkers_report_a_broken_line(tmp_path: Path, how: str) -> None:
    for name in ("hotpotqa.jsonl", "ami.jsonl", "olmocr.jsonl"):
        shutil.copy(FOLDER / name, tmp_path / name)
    for name, checker, target in (("hotpotqa.jsonl", "check_hotpotqa.py", tmp_path / "hotpotqa.jsonl"),
                                  ("ami.jsonl", "check_media.py", tmp_path)):  # fmt: skip
        cases = _cases(name)
        broken = cases[0]
        if how == "split":
            broken["split"] = "dev"
        elif how == "type":  # a value of the wrong type for its schema
            broken["ground_truth"][next(iter(broken["ground_truth"]))] = {"not": "valid"}
        else:  # evidence quoting words the context never says
            broken["evidence"] = {f"$.{next(iter(broken['ground_truth']))}": "words the context never says at all"}
        (tmp_path / name).write_text("\n".join(json.dumps(c, ensure_ascii=False) for c in cases) + "\n", "utf-8")
        assert _run(checker, target).returncode != 0, (name, how)
        shutil.copy(FOLDER / name, tmp_path / name)
