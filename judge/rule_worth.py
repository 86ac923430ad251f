"""Every rule's measured worth on the labelled sets: which codes each case raises (validation's rejections and
doubts, the heuristic judge's flags and low scores) and, per code, how many right and wrong answers raised it.

`scripts/gen_rule_catalogue.py` writes these figures into docs/rules.md; the catalogue's rule-set choices
(`validation/rules/`) are read off them."""

from __future__ import annotations

import importlib
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.evidence import parse_evidence
from core.models import Record, SourceItem
from judge.calibrate import item_lookup
from judge.calibration import Case, load_cases, validated, wilson
from judge.gate import low_score_reasons
from judge.heuristic import HeuristicJudge
from judge.rubric import DEFAULT_THRESHOLD
from validation.rules import Example, Rule

HOTPOTQA_ROWS = Path("tests/data/hotpotqa/hotpot_dev_distractor_v1.sample.json")  # items of cases without a context


@dataclass
class CodeTally:
    """Per (outcome, code): how many right and how many wrong answers raised it."""

    right: Counter[tuple[str, str]] = field(default_factory=Counter)
    wrong: Counter[tuple[str, str]] = field(default_factory=Counter)
    cases: Counter[str] = field(default_factory=Counter)  # label -> cases
    # (label, the flag codes) of each answer held by flags alone, nothing rejecting it: which flags it would take
    # to turn off for the answer to be released
    held: Counter[tuple[str, frozenset[str]]] = field(default_factory=Counter)

    def add(self, label: str, codes: dict[str, set[str]]) -> None:
        self.cases[label] += 1
        for outcome, found in codes.items():
            for code in found:
                (self.right if label == "right" else self.wrong)[outcome, code] += 1
        if codes.get("flag") and not codes.get("reject"):
            self.held[label, frozenset(codes["flag"])] += 1

    def update(self, other: CodeTally) -> None:
        self.right.update(other.right)
        self.wrong.update(other.wrong)
        self.cases.update(other.cases)
        self.held.update(other.held)

    def of(self, rule: Rule) -> tuple[int, int]:
        """(right, wrong) answers on which the rule did what it does (its outcome)."""
        right = sum(n for (outcome, code), n in self.right.items() if outcome == rule.outcome and rule.matches(code))
        wrong = sum(n for (outcome, code), n in self.wrong.items() if outcome == rule.outcome and rule.matches(code))
        return right, wrong

    def alone(self, rule: Rule) -> tuple[int, int] | None:
        """(right, wrong) answers held by this flag rule and no other rule: the answers turning it off would
        release. None for a rule that does not flag (a rejection cannot be turned off; a note holds nothing)."""
        if rule.outcome != "flag":
            return None
        counts = {"right": 0, "wrong": 0}
        for (label, codes), n in self.held.items():
            if all(rule.matches(code) for code in codes):
                counts[label] += n
        return counts["right"], counts["wrong"]


def codes_of(case: Case, judge: HeuristicJudge | None = None) -> set[str]:
    """Every code a case raises anywhere on the pre-filter path (a rejected record is judged no further)."""
    return record_codes(case.record, judge)


def record_codes(record: Record, judge: HeuristicJudge | None = None) -> set[str]:
    return set().union(*raised(record, judge).values())


def raised(record: Record, judge: HeuristicJudge | None = None) -> dict[str, set[str]]:
    """The codes a record raises by what they did: `reject` (validation failures, the judge's low scores),
    `flag` (the gate's flags: what held the record for a person) and `note` (validation's doubts)."""
    record, report = validated(record)
    out: dict[str, set[str]] = {"reject": {f.code for f in report.failures}, "flag": set(), "note": set()}
    if report.grounding is not None:
        out["note"] = {issue.code for issue in report.grounding.issues}
    if report.passed:
        verdict = (judge or HeuristicJudge()).judge(record, report, DEFAULT_THRESHOLD)
        out["flag"] = {flag.code for flag in verdict.flags}
        out["reject"] |= {reason.code for reason in low_score_reasons(verdict, "judge")}
    return out


def labelled_cases(root: Path) -> list[tuple[str, list[Case]]]:
    """(set name, its cases) for every labelled set under `root`/tests/data/calibration*/."""
    with tempfile.TemporaryDirectory() as workspace:
        items = item_lookup("hotpotqa", root / HOTPOTQA_ROWS, Path(workspace))
        sets = []
        for folder in sorted((root / "tests" / "data").glob("calibration*")):
            cases = [case for path in sorted(folder.glob("*.jsonl")) for case in load_cases(path, "hotpotqa", items)]
            sets.append((folder.name, cases))
        return sets


def tally(cases: list[Case], judge: HeuristicJudge | None = None) -> CodeTally:
    counts = CodeTally()
    for case in cases:
        counts.add(case.label, raised(case.record, judge))
    return counts


def precision(wrong: int, right: int) -> tuple[float | None, float | None, float | None]:
    """The share of a code's raisings that were on wrong answers, with its Wilson 95% interval."""
    total = wrong + right
    low, high = wilson(wrong, total)
    return (wrong / total if total else None), low, high


def example_record(example: Example, cases: dict[str, Case]) -> Record:
    """The record of a catalogue example: its labelled case (`cases` by "<set>/<id>"), or the inline parts.
    Parts the record model would refuse (a schema that is a list) are assigned after it is built, as a record
    changed in memory would be; validation must still report them."""
    if example.case is not None:
        return cases[example.case].record
    parts = example.parts()
    item = SourceItem(
        source=parts["source"], source_id="rule-example", context=parts["context"], answer=parts["seed_answer"]
    )
    evidence = {path: parse_evidence(raw) for path, raw in (parts["evidence"] or {}).items()}
    schema, ground_truth = parts["json_schema"], parts["ground_truth"]
    record = Record.build(
        item, parts["question"], _dict_or_empty(schema), _dict_or_empty(ground_truth), evidence=evidence
    )
    if not isinstance(schema, dict):
        record.input.json_schema = schema
    if not isinstance(ground_truth, dict):
        record.output.ground_truth = ground_truth
    return record


def _dict_or_empty(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def example_codes(rule: Rule, example: Example, cases: dict[str, Case]) -> set[str]:
    """The codes `example` raises: on the whole pre-filter path, or from the rule's own first check alone."""
    if example.alone:
        module, _, name = rule.checks[0].partition(":")
        check = getattr(importlib.import_module(module), name)
        return {failure.code for failure in check(example.ground_truth, example.json_schema)}
    return record_codes(example_record(example, cases))


def cases_by_reference(root: Path) -> dict[str, Case]:
    return {f"{name}/{case.id}": case for name, cases in labelled_cases(root) for case in cases}
