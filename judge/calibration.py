"""Judge calibration: run validation and a judge on labelled records and count what the gate did with them.

A case is one authored-record line (`source_id, question, json_schema, ground_truth, annotator`, optional
`evidence`) plus `"label": "right"|"wrong"`, a free-text `"kind"`, an optional `"id"` and `"source"`, and an
optional inline `"context"` (with `"seed_question"`, `"seed_answer"`). Each case goes through the same code
as the stages: validation (`validation.pipeline.check_record`), then the judge and the gate's decision
(`judge.gate.decide`): a validation failure or a failing dimension -> `rejected`, open flags ->
`needs_review`, else `released`. A judge that gives no verdict leaves the case in `judge_error`, counted
apart: no case is lost.

The figures are a matrix of outcome by label, overall, per source and per kind, with Wilson 95% score
intervals (scipy's `binomtest(...).proportion_ci(method="wilson")`, as the residual-error audit uses).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field, ValidationError

from core.authored_line import AuthoredLine
from core.boundary import read_json_lines
from core.evidence import parse_evidence_map
from core.limits import check_nesting
from core.models import Provenance, Reason, Record, SourceItem, SourceName, utcnow
from core.sources import source_order
from core.stop_signals import raise_if_stopped
from core.verdicts import JudgeVerdict, ValidationReport
from judge.base import Judge
from judge.gate import decide
from validation.pipeline import check_record

OUTCOMES = ("released", "needs_review", "rejected")
LABELS = ("right", "wrong")
CONFIDENCE = 0.95
METHOD = "Wilson score interval, 95% (scipy binomtest)"


class CaseLine(AuthoredLine):
    """One labelled case: an authored-record line plus its label and kind. Other keys a labelled set carries
    for its own use (a `note`, the `split` it belongs to, ...) are read past."""

    model_config = ConfigDict(extra="ignore")

    label: Literal["right", "wrong"]
    kind: str = Field(min_length=1)
    id: str | None = None
    source: SourceName | None = None
    context: str | None = None
    seed_question: str | None = None
    seed_answer: str | None = None
    split: str | None = None  # "dev" or "test": the half of a labelled set the case belongs to


class CasesError(ValueError):
    """The cases file cannot be used: every bad line, with its number and why."""

    def __init__(self, path: Path, problems: list[str]) -> None:
        self.problems = problems
        listed = "\n".join(f"  {p}" for p in problems)
        super().__init__(f"{path}: {len(problems)} bad line(s); fix them and run again:\n{listed}")


@dataclass
class Case:
    line: int
    id: str
    source: str
    label: str
    kind: str
    record: Record
    split: str | None = None


@dataclass
class CaseResult:
    case: Case
    outcome: str  # released | needs_review | rejected | judge_error
    reasons: list[Reason] = field(default_factory=list)
    scores: dict[str, int] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.case.id,
            "line": self.case.line,
            "source": self.case.source,
            "source_id": self.case.record.metadata.source_id,
            "label": self.case.label,
            "kind": self.case.kind,
            "outcome": self.outcome,
            "scores": self.scores,
            "reasons": [r.model_dump() for r in self.reasons],
        }


# -- reading the cases ------------------------------------------------------------------------------------
ItemLookup = Callable[[str], Mapping[str, SourceItem]]  # source -> its items by source id


def _line_problems(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"]) or "line"
        parts.append(f"{where}: {error['msg']}")
    return "; ".join(parts)


def load_cases(path: Path, default_source: str | None, items: ItemLookup) -> list[Case]:
    """The cases of `path`; CasesError listing every bad line, in line order, with its number and why."""
    if not path.is_file():
        raise CasesError(path, [f"no such file: {path}"])
    lines, problems = read_cases(path, default_source)
    cases, unknown = build_cases(path, lines, default_source, items)
    problems = sorted(problems + unknown, key=lambda p: int(p.split(":", 1)[0].removeprefix("line ")))
    if problems:
        raise CasesError(path, problems)
    if not cases:
        raise CasesError(path, ["the file holds no case"])
    return cases


def read_cases(path: Path, default_source: str | None) -> tuple[list[tuple[int, CaseLine]], list[str]]:
    """Every good case line of `path`, and every bad one as `line N: why`."""
    cases: list[tuple[int, CaseLine]] = []
    problems: list[str] = []
    seen_ids: dict[str, int] = {}
    for parsed in read_json_lines(path):
        where = f"line {parsed.number}"
        if parsed.problem is not None:
            problems.append(f"{where}: {parsed.problem}")
            continue
        if not isinstance(parsed.value, dict):
            problems.append(f"{where}: expected a JSON object")
            continue
        try:
            case = CaseLine.model_validate(parsed.value)
        except ValidationError as exc:
            problems.append(f"{where}: {_line_problems(exc)}")
            continue
        if case.source is None and default_source is None:
            problems.append(f'{where}: no "source" on the line and no --source given')
            continue
        too_big = check_nesting(case.json_schema, case.ground_truth)
        if too_big:
            problems.append(f"{where}: " + "; ".join(f.message for f in too_big))
            continue
        _, evidence_problems = parse_evidence_map(case.evidence)
        if evidence_problems:
            problems.append(f"{where}: evidence " + "; ".join(f"{p}: {why}" for p, why in evidence_problems))
            continue
        case_id = case.id or f"line-{parsed.number}"
        if case_id in seen_ids:
            problems.append(f"{where}: id {case_id!r} is already used on line {seen_ids[case_id]}")
            continue
        seen_ids[case_id] = parsed.number
        cases.append((parsed.number, case))
    return cases, problems


def build_cases(
    path: Path, lines: list[tuple[int, CaseLine]], default_source: str | None, items: ItemLookup
) -> tuple[list[Case], list[str]]:
    """The records of the case lines: an inline context makes its own source item, else the item is looked up
    by source and source id; and every line whose item is unknown, as `line N: why`."""
    built: list[Case] = []
    problems: list[str] = []
    for number, line in lines:
        source = line.source or default_source
        assert source is not None  # read_cases checked it
        if line.context is not None:
            item = SourceItem(
                source=source,  # type: ignore[arg-type]
                source_id=line.source_id,
                context=line.context,
                question=line.seed_question,
                answer=line.seed_answer,
            )
        else:
            found = items(source).get(line.source_id)
            if found is None:
                problems.append(
                    f"line {number}: source_id {line.source_id!r} is not a {source} item of the loaded input "
                    '(give --input with the source files, or an inline "context")'
                )
                continue
            item = found
        evidence, _ = parse_evidence_map(line.evidence)
        record = Record.build(
            item,
            line.question,
            line.json_schema,
            line.ground_truth,
            Provenance(annotator=line.annotator, authored_via=f"calibration:{path.name}", authored_at=utcnow()),
            evidence=evidence,
        )
        built.append(Case(number, line.id or f"line-{number}", source, line.label, line.kind, record, line.split))
    return built, problems


# -- running them -----------------------------------------------------------------------------------------
def validated(record: Record) -> tuple[Record, ValidationReport]:
    """The record as the validation stage leaves it (validated output, located evidence, complexity)."""
    _, report, validated_output, evidence = check_record(record)
    output = record.output.model_copy(
        update={"validated_output": validated_output} | ({"evidence": evidence} if evidence is not None else {})
    )
    metadata = record.metadata
    if report.complexity is not None:
        metadata = metadata.model_copy(update={"schema_complexity": report.complexity.level})
    return record.model_copy(update={"output": output, "metadata": metadata}), report


def outcome_of(case: Case, record: Record, verdict: JudgeVerdict) -> CaseResult:
    decision = decide(record, verdict)
    outcome = "released" if decision.outcome == "passed" else decision.outcome
    return CaseResult(case, outcome, decision.reasons, dict(verdict.scores))


VerdictsFn = Callable[[list[tuple[Record, ValidationReport]]], Iterable[tuple[int, JudgeVerdict | BaseException]]]


def run_cases(
    cases: list[Case],
    verdicts: VerdictsFn,
    *,
    prefilter: Judge | None = None,
    threshold: int = 60,
) -> list[CaseResult]:
    """Validate every case and judge those that pass with `verdicts` (the judge, on many records at once). With
    `prefilter`, a case the pre-filter rejects or flags is decided by it, as the LLM judge stage does."""
    results: dict[int, CaseResult] = {}
    to_judge: list[tuple[int, Record, ValidationReport]] = []
    for index, case in enumerate(cases):
        record, report = validated(case.record)
        if not report.passed:
            reasons = [Reason(stage="validation", code=f.code, message=f.message, path=f.path) for f in report.failures]
            results[index] = CaseResult(case, "rejected", reasons)
            continue
        if prefilter is not None:
            verdict = prefilter.judge(record, report, threshold)
            if decide(record, verdict).outcome != "passed":
                results[index] = outcome_of(case, record, verdict)
                continue
        to_judge.append((index, record, report))
    pairs = [(record, report) for _, record, report in to_judge]
    for position, verdict in verdicts(pairs):
        index, record, _ = to_judge[position]
        if isinstance(verdict, BaseException):
            reason = Reason(stage="judge", code=getattr(verdict, "code", "judge_error"), message=str(verdict)[:500])
            results[index] = CaseResult(cases[index], "judge_error", [reason])
        else:
            results[index] = outcome_of(cases[index], record, verdict)
    for index, case in enumerate(cases):  # a judge that answered nothing for a case: never lost
        if index not in results:
            reason = Reason(stage="judge", code="judge_error", message="the judge gave no verdict")
            results[index] = CaseResult(case, "judge_error", [reason])
    return [results[i] for i in range(len(cases))]


def each_judged(judge: Judge, threshold: int) -> VerdictsFn:
    """A judge that takes one record at a time (the heuristic), as a VerdictsFn."""

    def verdicts(pairs: list[tuple[Record, ValidationReport]]) -> Iterator[tuple[int, JudgeVerdict | BaseException]]:
        for position, (record, report) in enumerate(pairs):
            try:
                yield position, judge.judge(record, report, threshold)
            except Exception as exc:  # a judge failure is the case's outcome, never a lost case
                raise_if_stopped()  # a Ctrl-C seen as a failure is not a judge failure
                yield position, exc

    return verdicts


# -- the figures ------------------------------------------------------------------------------------------
def wilson(count: int, n: int) -> tuple[float | None, float | None]:
    if n == 0:
        return None, None
    from scipy.stats import binomtest  # imported when needed: scipy.stats costs about a second

    interval = binomtest(count, n).proportion_ci(confidence_level=CONFIDENCE, method="wilson")
    return float(interval.low), float(interval.high)


def share(count: int, n: int) -> dict[str, Any]:
    low, high = wilson(count, n)
    return {"count": count, "of": n, "rate": count / n if n else None, "low": low, "high": high}


def matrix(results: Iterable[CaseResult]) -> dict[str, Any]:
    """{label: {outcome: {count, of, rate, low, high}}} (`of`: the cases of that label), plus judge_error."""
    counts: Counter[tuple[str, str]] = Counter((r.case.label, r.outcome) for r in results)
    out: dict[str, Any] = {}
    for label in LABELS:
        total = sum(n for (lab, _), n in counts.items() if lab == label)
        out[label] = {outcome: share(counts[(label, outcome)], total) for outcome in OUTCOMES}
        out[label]["cases"] = total
        if counts[(label, "judge_error")]:
            out[label]["judge_error"] = share(counts[(label, "judge_error")], total)
    return out


def report(results: list[CaseResult], meta: dict[str, Any]) -> dict[str, Any]:
    """The figures `--output` writes: overall, per source and per kind, and each case's outcome."""
    by_source: dict[str, list[CaseResult]] = {}
    by_kind: dict[str, list[CaseResult]] = {}
    for r in results:
        by_source.setdefault(r.case.source, []).append(r)
        by_kind.setdefault(r.case.kind, []).append(r)
    overall = matrix(results)
    return {
        **meta,
        "interval": METHOD,
        "cases": len(results),
        "right": overall["right"]["cases"],
        "wrong": overall["wrong"]["cases"],
        "overall": overall,
        "by_source": {s: matrix(rs) for s, rs in sorted(by_source.items(), key=lambda kv: source_order(kv[0]))},
        "by_kind": {k: matrix(rs) for k, rs in sorted(by_kind.items())},
        "results": [r.as_json() for r in results],
    }


def card_summary(figures: Mapping[str, Any]) -> dict[str, Any]:
    """What a release card states of a calibration: the labelled set, its size, false releases and false
    rejections (and the cases held for review) with their intervals."""
    overall = figures["overall"]
    return {
        "cases_file": figures["cases_file"],
        "cases_sha256": figures["cases_sha256"],
        "cases": figures["cases"],
        "right": figures["right"],
        "wrong": figures["wrong"],
        "judge": figures["judge"],
        "judge_version": figures["judge_version"],
        "threshold": figures["threshold"],
        "measured_at": figures["measured_at"],
        "interval": figures["interval"],
        "false_releases": overall["wrong"]["released"],
        "false_rejections": overall["right"]["rejected"],
        "right_held": overall["right"]["needs_review"],
        "wrong_held": overall["wrong"]["needs_review"],
    }


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
