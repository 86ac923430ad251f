"""The judge stage: validated records move to `accepted`, to `rejected` naming the failing dimensions, or to
`needs_review` with the flags a person must fix or dismiss (judge/gate.py); a judge that keeps failing leaves
the record in `judge_error` for the next run."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from functools import partial

from pydantic import ValidationError

from core import fast_json
from core.batching import batched
from core.derived import read_record, with_changes
from core.gc_tuning import fewer_collections
from core.models import Reason, Record, RecordState, utcnow
from core.progress import progress
from core.row_stage import run_row_stage
from core.stop_signals import raise_if_stopped
from core.store import RecordRow, StateChange, Store, StoredRecord
from core.store_rows import parse_error_summary, payload_json, reasons_payload
from core.verdicts import JudgeVerdict, ValidationReport
from judge.base import Judge
from judge.gate import decide

STAGE = "judge"
BATCH = 500  # records per commit when judged here (an LLM judge: its calls are cached as they come)
PURE_BATCH = 1000  # records per commit for a pure judge in workers: fewer, larger writes


WAITING = (RecordState.VALIDATED, RecordState.JUDGE_ERROR)
JUDGE_FIELDS = {"judge", "judged_at"}  # what the judge adds to a record's provenance (and the gate's `review`)
OUTCOME_STATES = {
    "rejected": RecordState.REJECTED,
    "needs_review": RecordState.NEEDS_REVIEW,
    "passed": RecordState.ACCEPTED,
}


def run_judging(
    store: Store,
    source: str,
    judge: Judge,
    threshold: int,
    items: Sequence[StoredRecord] | None = None,
    workers: int | None = None,
) -> Counter[str]:
    """Judge `items` (default: every record waiting for a judge) and move each to its next state.

    A judge that is a pure function of the record (`runs_in_workers`, the heuristic pre-filter) judges a
    large run in worker processes (core/parallel.py); LLM judges run here, with their client and cache."""
    counts: Counter[str] = Counter()
    if items is None and getattr(judge, "runs_in_workers", False):
        work = partial(judge_row, judge=judge, threshold=threshold)
        return run_row_stage(
            store, source, WAITING, work, label=f"judge ({judge.name})", batch=PURE_BATCH, workers=workers
        )
    if items is not None:
        chunks: Iterable[Sequence[StoredRecord]] = batched(items, BATCH)
        total = len(items)
    else:  # page by page, no read held open while the batches are written (see `Store.record_pages`)
        readable = (stored for row in store.record_pages(source, WAITING, BATCH) if (stored := store.read_row(row)))
        chunks = batched(readable, BATCH)
        total = sum(store.count_in_state(source, state) for state in WAITING)
    with progress(total, f"judge ({judge.name})") as bar, fewer_collections():
        for chunk in chunks:
            raise_if_stopped()
            changes = []
            for item in chunk:
                report = ValidationReport.model_validate(item.validation or {"passed": True})
                change, outcome = _decide(item.record, item.derived, report, judge, threshold)
                changes.append(change)
                counts[outcome] += 1
            store.apply(changes)
            bar.update(len(chunk))
    return counts


def _decide(
    record: Record, derived: str | None, report: ValidationReport, judge: Judge, threshold: int
) -> tuple[StateChange, str]:
    """The record's move after the judge's verdict, and the outcome to count. `derived`: the stage outputs
    stored beside the record, which the judge's provenance joins (core/derived.py)."""
    try:
        verdict = judge.judge(record, report, threshold)
    except Exception as exc:  # a judge failure must never lose the record
        raise_if_stopped()  # unless it is a Ctrl-C or SIGTERM seen as a failure (DuckDB's "Query interrupted")
        code = getattr(exc, "code", None)  # a JudgeFailed names its kind of failure
        code = code if isinstance(code, str) and code else "judge_error"
        reason = Reason(stage=STAGE, code=code, message=f"{type(exc).__name__}: {exc}")
        return StateChange(record.record_id, RecordState.JUDGE_ERROR, STAGE, reasons=[reason]), "judge_error"
    decision = decide(record, verdict, STAGE)
    update: dict[str, object] = {"judge": f"{verdict.judge}@{verdict.version}", "judged_at": utcnow()}
    fields = set(JUDGE_FIELDS)
    if decision.review is not None:  # the gate's flags, beside the curator's earlier resolutions
        update["review"], fields = decision.review, fields | {"review"}
    provenance = record.provenance.model_copy(update=update)
    derived_json = with_changes(derived, {"provenance": provenance.model_dump(mode="json", include=fields)})
    state = OUTCOME_STATES[decision.outcome]
    verdict_json = verdict.model_dump(mode="json")
    change = StateChange(
        record.record_id, state, STAGE, reasons=decision.reasons, derived_json=derived_json, judge=verdict_json
    )
    return change, str(state)


def judge_row(row: RecordRow, judge: Judge, threshold: int) -> tuple[StateChange | None, str]:
    """One stored row judged (in a worker process, or here with none); (None, why) when the row cannot be
    read back."""
    try:
        record = read_record(row.record, row.derived)
        stored = fast_json.loads(row.validation) if row.validation else {"passed": True}
        report = ValidationReport.model_validate(stored)
    except (ValidationError, ValueError) as exc:
        return None, parse_error_summary(exc)
    change, outcome = _decide(record, row.derived, report, judge, threshold)
    # Serialised here, in the worker: the main process only masks and writes them.
    if change.judge is not None:
        change.judge_json, change.judge = payload_json(change.judge), None
    change.reasons_json, change.reasons = reasons_payload(change.reasons), []
    return change, outcome


def reconcile_verdicts(store: Store, source: str, judge_name: str, threshold: int) -> Counter[str]:
    """Make stored verdicts match this run's judge and threshold before anything is released:

    * a record the heuristic pre-filter accepted goes back to the LLM judge when this run has one (the
      pre-filter may reject but never vouch; cached answers make the round trip free when repeated);
    * a changed `--threshold` is re-applied to the stored scores: accepted records now below it are
      rejected, records the judge rejected only for low scores that now pass are accepted (or held in
      `needs_review` when their verdict raised flags still open); a record in `needs_review` stays there for
      its person unless it is now below the threshold.
    """
    counts: Counter[str] = Counter()
    changes: list[StateChange] = []
    judged = [RecordState.ACCEPTED, RecordState.REJECTED, RecordState.NEEDS_REVIEW]
    for item in store.records(source, judged, ordered=False):
        if not item.judge:
            continue
        verdict = JudgeVerdict.model_validate(item.judge)
        if item.state == RecordState.ACCEPTED and verdict.judge == "heuristic" and judge_name != "heuristic":
            reason = Reason(
                stage=STAGE, code="rejudge", message=f"accepted by the heuristic pre-filter; {judge_name} judges it"
            )
            changes.append(StateChange(item.record.record_id, RecordState.VALIDATED, STAGE, reasons=[reason]))
            counts["sent_to_llm_judge"] += 1
            continue
        if verdict.threshold == threshold:
            continue
        rescored = verdict.model_copy(update={"threshold": threshold})
        judged_only = all(r.stage == STAGE and r.code.startswith("low_") for r in item.reasons)
        if item.state == RecordState.REJECTED and not judged_only:
            continue  # rejected for something else too: a threshold cannot accept it
        failing = rescored.failing_dimensions()
        derived_json = None
        if failing:
            state = RecordState.REJECTED
            reasons = [
                Reason(
                    stage=STAGE,
                    code=f"low_{dim}",
                    message=f"{dim} scored {rescored.scores[dim]} < {threshold} (threshold re-applied)",
                )
                for dim in failing
            ]
        elif item.state == RecordState.NEEDS_REVIEW:
            state, reasons = item.state, item.reasons  # its flags still wait for a person
        else:  # now passing: accepted, unless the verdict's flags are open
            decision = decide(item.record, rescored, STAGE)
            state, reasons = OUTCOME_STATES[decision.outcome], decision.reasons
            if decision.review is not None:
                review = decision.review.model_dump(mode="json")
                derived_json = with_changes(item.derived, {"provenance": {"review": review}})
        judge_json = rescored.model_dump(mode="json")
        changes.append(
            StateChange(
                item.record.record_id, state, STAGE, reasons=reasons, derived_json=derived_json, judge=judge_json
            )
        )
        counts["threshold_reapplied"] += 1
        if state != item.state:
            counts[f"now_{state}"] += 1
        if len(changes) >= BATCH:
            store.apply(changes)
            changes = []
    store.apply(changes)
    return counts
