"""The pre-filter (validation + heuristic judge + the gate's decision) on the held-out adversarial set: it never
releases a wrong answer that looks right (rejected, or held in needs_review with a flag) and accepts every right
answer that looks wrong. Prints the confusion matrix."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from core.models import SourceItem
from tests.judge.adversarial_cases import CASES, Case
from tests.judge.adversarial_run import all_lines, build, outcome
from tests.judge.adversarial_run import hotpot_items as load_hotpot_items

RELIABILITY_PAGE = Path(__file__).resolve().parents[2] / "docs" / "reliability.md"


@pytest.fixture(scope="module")
def hotpot_items() -> dict[str, SourceItem]:
    return load_hotpot_items()


def test_the_set_is_balanced_and_covers_every_source() -> None:
    counts = Counter(case.expect for case in CASES)
    assert len(CASES) >= 30
    assert abs(counts["accept"] - counts["reject"]) <= 4, counts
    assert {case.source for case in CASES} == {"hotpotqa", "ami", "olmocr"}
    assert len({case.id for case in CASES}) == len(CASES)


def test_prefilter_holds_back_every_wrong_answer_and_accepts_every_right_one(
    hotpot_items: dict[str, SourceItem], capsys: pytest.CaptureFixture[str]
) -> None:
    matrix: Counter[tuple[str, str]] = Counter()
    misjudged = []
    for case in CASES:
        got, reasons = outcome(build(case, hotpot_items))
        matrix[(case.expect, got)] += 1
        if got != case.expect and not (case.expect == "reject" and got == "review"):
            misjudged.append(f"{case.id} ({case.why}): expected {case.expect}, got {got}: {json.dumps(reasons)}")
    table = (
        "\nadversarial set: pre-filter (validation + heuristic judge + gate)\n"
        f"{'':>22}{'accepted':>10}{'held':>10}{'rejected':>10}\n"
        + "".join(
            f"{label:>22}" + "".join(f"{matrix[(expect, got)]:>10}" for got in ("accept", "review", "reject")) + "\n"
            for label, expect in (("right (should accept)", "accept"), ("wrong (should not)", "reject"))
        )
    )
    with capsys.disabled():
        print(table)
    assert not misjudged, "\n".join(misjudged)


@pytest.mark.parametrize("case", [c for c in CASES if c.expect == "reject"], ids=lambda c: c.id)
def test_every_wrong_answer_held_back_says_why(case: Case, hotpot_items: dict[str, SourceItem]) -> None:
    got, reasons = outcome(build(case, hotpot_items))
    assert got in ("reject", "review") and reasons and all(reason.strip() for reason in reasons)


def test_the_docs_show_what_each_check_catches() -> None:
    text = RELIABILITY_PAGE.read_text(encoding="utf-8")
    start, end = "<!-- adversarial:start -->", "<!-- adversarial:end -->"
    assert start in text and end in text, "docs/reliability.md lacks the adversarial examples block"
    block = text[text.index(start) + len(start) : text.index(end)].strip().splitlines()
    assert block == all_lines(), (
        "docs/reliability.md examples are stale: run .venv/bin/python scripts/update_readme_checks.py"
    )
