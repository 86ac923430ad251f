"""Run the adversarial set through the pre-filter (validation, then the heuristic judge): shared by the test
and by scripts/update_readme_checks.py, which writes one line of output per case into docs/reliability.md."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from core.evidence import parse_evidence_map
from core.models import Provenance, Record, SourceItem
from judge.gate import decide
from judge.heuristic import HeuristicJudge
from judge.rubric import DEFAULT_THRESHOLD
from loaders.hotpotqa import load_hotpotqa
from tests.judge.adversarial_cases import CASES, WHOLE, Case
from validation.pipeline import check_record

HOTPOT = Path(__file__).resolve().parents[1] / "data" / "hotpotqa" / "hotpot_dev_distractor_v1.sample.json"


@cache
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


WORDS = {"accept": "accepted", "review": "held for review", "reject": "rejected"}


def outcome(record: Record) -> tuple[str, list[str]]:
    """'accept', 'review' (held in needs_review with flags) or 'reject', by validation then the heuristic judge
    and the gate's decision (judge/gate.py), with the reasons."""
    checked = check_record(record)
    if not checked.report.passed:
        return "reject", [f"validation/{f.code} {f.path}: {f.message}" for f in checked.report.failures]
    stored = record.model_copy(update={"output": record.output.model_copy(update={"evidence": checked.evidence or {}})})
    verdict = HeuristicJudge().judge(stored, checked.report, DEFAULT_THRESHOLD)
    decision = decide(stored, verdict)
    if decision.outcome == "rejected":
        reasons = [
            f"judge/low_{d} {verdict.scores[d]}: {verdict.rationales.get(d, '')}" for d in verdict.failing_dimensions()
        ]
        return "reject", reasons
    if decision.outcome == "needs_review":
        return "review", [f"gate/{r.code} {r.path}: {r.message.split(': ', 1)[-1]}" for r in decision.reasons]
    return "accept", []


def one_line(case: Case) -> str:
    """What the pre-filter says of a case, in one line."""
    got, reasons = outcome(build(case, hotpot_items()))
    said = reasons[0] if reasons else "every check passed"
    return f"- `{case.id}` ({case.source}, {case.why}): **{WORDS[got]}**: {said}"


def all_lines() -> list[str]:
    return [one_line(case) for case in CASES]
