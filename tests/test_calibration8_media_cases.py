"""The AMI and olmOCR cases of tests/data/calibration8/ (a blind labelled set) are well-formed data, checked by the
checker written with them, and the checker reports the faults it is there to catch. This checks the cases, never the
gate."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "tests" / "data" / "calibration8"
CHECKER = FOLDER / "check_media.py"


def _cases(folder: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in (folder / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def _run(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(CHECKER), str(folder)], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize("name", ["ami.jsonl", "olmocr.jsonl"])
def test_each_file_has_twelve_right_and_twelve_wrong_and_no_split(name: str) -> None:
    cases = _cases(FOLDER, name)
    assert sum(c["label"] == "right" for c in cases) == sum(c["label"] == "wrong" for c in cases) == 12
    assert not any("split" in c for c in cases)


def test_the_checker_passes_the_set_as_it_is() -> None:
    result = _run(FOLDER)
    assert result.returncode == 0, result.stdout


@pytest.mark.parametrize("how", ["quote", "type", "window", "page", "split"])
def test_the_checker_reports_a_broken_line(tmp_path: Path, how: str) -> None:
    for name in ("ami.jsonl", "olmocr.jsonl"):
        shutil.copy(FOLDER / name, tmp_path / name)
    name = "olmocr.jsonl" if how == "page" else "ami.jsonl"
    cases = _cases(FOLDER, name)
    broken = cases[0]
    first = next(iter(broken["ground_truth"]))
    if how == "quote":  # evidence quoting words the context never says
        broken["evidence"] = {f"$.{first}": "words the context never says at all"}
    elif how == "type":  # a value of the wrong type for its schema
        broken["ground_truth"][first] = {"not": "valid"}
    elif how == "window":  # a real-meeting window that is not the loader's lines
        broken["context"] = broken["context"].replace("FEE005", "MEE006", 1)
    elif how == "page":  # a real olmOCR page that is not the file as it is
        broken["context"] = broken["context"] + "\nan added line"
    else:
        broken["split"] = "test"
    (tmp_path / name).write_text("\n".join(json.dumps(c, ensure_ascii=False) for c in cases) + "\n", "utf-8")
    result = _run(tmp_path)
    assert result.returncode != 0, how
    assert broken["id"] in result.stdout
