"""The blind sets written with their own checkers (tests/data/calibration6/ and calibration7/: holdouts, now
development sets; tests/data/calibration8/: the blind holdout) are well-formed data, checked by the checkers written
with them (check_hotpotqa.py, check_media.py in each folder), and the checkers report the faults they are there to
catch. This checks the cases, never the gate."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Each set is checked by the checkers written with it (never shared: each was written blind, with its set).
HOTPOTQA = ("hotpotqa.jsonl", "check_hotpotqa.py")
MEDIA = ("ami.jsonl", "check_media.py")  # the media checker reads ami.jsonl and olmocr.jsonl of its folder
SETS = {
    "calibration6": (HOTPOTQA, MEDIA),
    "calibration7": (HOTPOTQA, MEDIA),
    "calibration8": (HOTPOTQA, MEDIA),
}
FILES = [
    (name, file)
    for name, parts in SETS.items()
    for part, _ in parts
    for file in ((part,) if part == "hotpotqa.jsonl" else ("ami.jsonl", "olmocr.jsonl"))
]
COUNTS = {"hotpotqa.jsonl": 24, "ami.jsonl": 12, "olmocr.jsonl": 12}  # right answers (and as many wrong) per file


def _cases(folder: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in (folder / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def _run(folder: Path, checker: str, target: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(folder / checker), str(target)], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def _target(folder: Path, file: str) -> Path:
    """What a checker is given: the hotpotqa file itself, or the folder holding ami.jsonl and olmocr.jsonl."""
    return folder / file if file == "hotpotqa.jsonl" else folder


@pytest.mark.parametrize(("name", "file"), FILES)
def test_each_file_balances_right_and_wrong_and_is_all_held_out(name: str, file: str) -> None:
    cases = _cases(ROOT / "tests" / "data" / name, file)
    assert sum(c["label"] == "right" for c in cases) == sum(c["label"] == "wrong" for c in cases) == COUNTS[file]
    assert {c["split"] for c in cases} == {"test"}


@pytest.mark.parametrize("name", SETS)
def test_the_checkers_pass_the_set_as_it_is(name: str) -> None:
    folder = ROOT / "tests" / "data" / name
    for file, checker in SETS[name]:
        result = _run(folder, checker, _target(folder, file))
        assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("name", SETS)
@pytest.mark.parametrize("how", ["split", "quote", "type"])
def test_the_checkers_report_a_broken_line(tmp_path: Path, name: str, how: str) -> None:
    folder = ROOT / "tests" / "data" / name
    for file in ("hotpotqa.jsonl", "ami.jsonl", "olmocr.jsonl"):
        if (folder / file).is_file():
            shutil.copy(folder / file, tmp_path / file)
    for file, checker in SETS[name]:
        cases = _cases(folder, file)
        broken = cases[0]
        if how == "split":
            broken["split"] = "dev"
        elif how == "type":  # a value of the wrong type for its schema
            broken["ground_truth"][next(iter(broken["ground_truth"]))] = {"not": "valid"}
        else:  # evidence quoting words the context never says
            broken["evidence"] = {f"$.{next(iter(broken['ground_truth']))}": "words the context never says at all"}
        (tmp_path / file).write_text("\n".join(json.dumps(c, ensure_ascii=False) for c in cases) + "\n", "utf-8")
        assert _run(folder, checker, _target(tmp_path, file)).returncode != 0, (name, file, how)
        shutil.copy(folder / file, tmp_path / file)
