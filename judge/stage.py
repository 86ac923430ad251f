"""The judge stage: validated records move to `accepted`, or to `rejected` naming the failing
dimensions; a judge that keeps failing leaves the record in `judge_error` for the next run."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from core.batching import batched
from core.models import Reason, RecordState, utcnow
from core.progress import progress
from core.store import StateChange, Store, StoredRecord
from core.verdicts import ValidationReport
from judge.base import Judge

STAGE = "judge"
BATCH = 500


WAITING = (RecordState.VALIDATED, RecordState.JUDGE_ERROR)


def run_judging(
    store: Store, source: str, judge: Judge, threshold: int, items: Sequence[StoredRecord] | None = None
) -> Counter[str]:
    """Judge `items` (default: every record waiting for a judge) and move each to its next state."""
    counts: Counter[str] = Counter()
    if items is not None:
        chunks: Iterable[Sequence[StoredRecord]] = batched(items, BATCH)
        total = len(items)
    else:  # one streaming scan of a snapshot, so memory stays bounded
        chunks = batched(store.records(source, WAITING, ordered=False), BATCH)
        total = sum(store.count_in_state(source, state) for state in WAITING)
    with progress(total, f"judge ({judge.name})") as bar:
        for chunk in chunks:
            changes = []
            for item in chunk:
                record = item.record
                report = ValidationReport.model_validate(item.validation or {"passed": True})
                try:
                    verdict = judge.judge(record, report, threshold)
                except Exception as exc:  # a judge failure must never lose the record
                    code = getattr(exc, "code", None)  # a JudgeFailed names its kind of failure
                    code = code if isinstance(code, str) and code else "judge_error"
                    reason = Reason(stage=STAGE, code=code, message=f"{type(exc).__name__}: {exc}")
                    changes.append(StateChange(record.record_id, RecordState.JUDGE_ERROR, STAGE, reasons=[reason]))
                    counts["judge_error"] += 1
                    continue
                provenance = record.provenance.model_copy(
                    update={"judge": f"{verdict.judge}@{verdict.version}", "judged_at": utcnow()}
                )
                updated = record.model_copy(update={"provenance": provenance})
                failing = verdict.failing_dimensions()
                reasons = [
                    Reason(
                        stage=STAGE,
                        code=f"low_{dim}",
                        message=f"{dim} scored {verdict.scores[dim]} < {threshold}: {verdict.rationales.get(dim, '')}",
                    )
                    for dim in failing
                ]
                state = RecordState.REJECTED if failing else RecordState.ACCEPTED
                changes.append(
                    StateChange(
                        record.record_id,
                        state,
                        STAGE,
                        reasons=reasons,
                        record=updated,
                        judge=verdict.model_dump(mode="json"),
                    )
                )
                counts[str(state)] += 1
            store.apply(changes)
            bar.update(len(chunk))
    return counts
