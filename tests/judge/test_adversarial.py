"""The pre-filter (validation + heuristic judge) on the held-out adversarial set: it rejects every wrong
answer that looks right and accepts every right answer that looks wrong. Prints the confusion matrix."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from core.evidence import parse_evidence_map
from core.models import Provenance, Record, SourceItem
from judge.heuristic import HeuristicJudge
from judge.rubric import DEFAULT_THRESHOLD
from loaders.hotpotqa import load_hotpotqa
from tests.judge.adversarial_cases import CASES, WHOLE, Case
from validation.pipeline import check_record

HOTPOT = Path(__file__).resolve().parents[1] / "data" / "hotpotqa" / "hotpot_dev_distractor_v1.sample.json"


@pytest.fixture(scope="module")
def hotpot_items() -> dict[str, SourceItem]:
    return {item.source_id: item for item in load_hotpotqa(HOTPOT).items}


def _replace_whole(value: Any, context: str) -> Any:
    if value == WHOLE:
        return context
    if isinstance(value, dict):
        return {k: _replace_whole(v, context) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_whole(v, context) for v in value]
    return value


def build(case: Case, hotpot_items: dict[str, SourceItem]) -> Record:
    if case.hotpot_id is not None:
        item = hotpot_items[case.hotpot_id]
    else:
        assert case.context is not None
        item = SourceItem(source=case.source, source_id=case.id, context=case.context)  # type: ignore[arg-type]
    question = case.question or item.question
    assert question
    evidence, problems = parse_evidence_map(case.evidence)
    assert not problems, problems
    ground_truth = _replace_whole(case.ground_truth, item.context)
    return Record.build(
        item, question, case.json_schema, ground_truth, Provenance(annotator="adversarial"), evidence=evidence
    )


def outcome(record: Record) -> tuple[str, list[str]]:
    """'accept' or 'reject' by validation then the heuristic judge, with the reasons."""
    checked = check_record(record)
    if not checked.report.passed:
        return "reject", [f"validation/{f.code} {f.path}: {f.message}" for f in checked.report.failures]
    stored = record.model_copy(update={"output": record.output.model_copy(update={"evidence": checked.evidence or {}})})
    verdict = HeuristicJudge().judge(stored, checked.report, DEFAULT_THRESHOLD)
    reasons = [
        f"judge/low_{d} {verdict.scores[d]}: {verdict.rationales.get(d, '')}" for d in verdict.failing_dimensions()
    ]
    return ("accept" if verdict.passed else "reject"), reasons


def test_the_set_is_balanced_and_covers_every_source() -> None:
    counts = Counter(case.expect for case in CASES)
    assert len(CASES) >= 30
    assert abs(counts["accept"] - counts["reject"]) <= 4, counts
    assert {case.source for case in CASES} == {"hotpotqa", "ami", "olmocr"}
    assert len({case.id for case in CASES}) == len(CASES)


def test_prefilter_rejects_every_wrong_answer_and_accepts_every_right_one(
    hotpot_items: dict[str, SourceItem], capsys: pytest.CaptureFixture[str]
) -> None:
    matrix: Counter[tuple[str, str]] = Counter()
    misjudged = []
    for case in CASES:
        got, reasons = outcome(build(case, hotpot_items))
        matrix[(case.expect, got)] += 1
        if got != case.expect:
            misjudged.append(f"{case.id} ({case.why}): expected {case.expect}, got {got}: {json.dumps(reasons)}")
    table = (
        "\nadversarial set: pre-filter (validation + heuristic judge)\n"
        f"{'':>22}{'accepted':>10}{'rejected':>10}\n"
        f"{'right (should accept)':>22}{matrix[('accept', 'accept')]:>10}{matrix[('accept', 'reject')]:>10}\n"
        f"{'wrong (should reject)':>22}{matrix[('reject', 'accept')]:>10}{matrix[('reject', 'reject')]:>10}\n"
    )
    with capsys.disabled():
        print(table)
    assert not misjudged, "\n".join(misjudged)


@pytest.mark.parametrize("case", [c for c in CASES if c.expect == "reject"], ids=lambda c: c.id)
def test_every_rejection_says_why(case: Case, hotpot_items: dict[str, SourceItem]) -> None:
    got, reasons = outcome(build(case, hotpot_items))
    assert got == "reject" and reasons and all(reason.strip() for reason in reasons)
