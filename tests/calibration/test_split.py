"""The labelled set is split once into a development half (rules are tuned on it) and a test half (never tuned
on, reported): by the parity of the SHA-256 of each case's id, written into each line as `split`. A case added
later falls into a half by the same rule; no case ever moves."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

CALIBRATION = Path(__file__).resolve().parents[1] / "data" / "calibration"
FILES = ("hotpotqa.jsonl", "ami.jsonl", "olmocr.jsonl")


def half_of(case_id: str) -> str:
    return "dev" if int(hashlib.sha256(case_id.encode("utf-8")).hexdigest(), 16) % 2 == 0 else "test"


def cases() -> list[dict]:
    return [json.loads(line) for name in FILES for line in (CALIBRATION / name).read_text("utf-8").splitlines()]


def test_every_case_is_in_the_half_its_id_says() -> None:
    found = cases()
    assert len(found) >= 150
    assert all(case["split"] == half_of(case["id"]) for case in found)


def test_both_halves_hold_right_and_wrong_answers_of_every_source() -> None:
    counts = Counter((case["split"], case["source"], case["label"]) for case in cases())
    for split in ("dev", "test"):
        for source in ("hotpotqa", "ami", "olmocr"):
            for label in ("right", "wrong"):
                assert counts[(split, source, label)] >= 8, (split, source, label)


def test_the_rule_can_tell_a_moved_case() -> None:
    case = cases()[0]
    other = "test" if case["split"] == "dev" else "dev"
    assert half_of(case["id"]) != other
