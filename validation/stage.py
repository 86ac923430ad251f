"""The validation stage: authored records move to `validated` or to `rejected` with every reason.

Checking a record is pure and CPU-bound, so a large run checks its batches in worker processes
(core/parallel.py) while this process writes the previous batch; every batch commits on its own.
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

from pydantic import ValidationError

from core.batching import batched
from core.derived import read_record, with_changes
from core.gc_tuning import fewer_collections
from core.models import Reason, RecordState
from core.parallel import map_batches, worker_count
from core.progress import progress
from core.store import RecordRow, StateChange, Store, parse_error_summary
from validation.pipeline import check_record

STAGE = "validation"
BATCH = 1000


class CheckedRow(NamedTuple):
    """What a worker sends back for one stored row: the record's next state, its stage outputs and report,
    or why the stored row could not be read."""

    record_id: str
    passed: bool = False
    derived_json: str | None = None
    validation_json: str | None = None
    reasons: list[Reason] = []
    unreadable: str | None = None


def check_row(row: RecordRow) -> CheckedRow:
    """Parse a stored record, run every check, and serialise what validation adds to it (validated output,
    located evidence, schema complexity: core/derived.py) and its report."""
    try:
        record = read_record(row.record, row.derived)
    except (ValidationError, ValueError) as exc:
        return CheckedRow(row.record_id, unreadable=parse_error_summary(exc))
    report, validated_output, evidence = check_record(record, parsed_from_json=True)[1:]
    output_fields = {"validated_output"}
    update: dict[str, object] = {"validated_output": validated_output}
    if evidence is not None:
        update["evidence"] = evidence  # offsets resolved, values located: shown to curators
        output_fields.add("evidence")
    # Serialised by the record's own models, so a merged read gives back what a whole record would hold.
    changes = {"output": record.output.model_copy(update=update).model_dump(mode="json", include=output_fields)}
    if report.complexity is not None:
        changes["metadata"] = {"schema_complexity": report.complexity.level}
    reasons = [Reason(stage=STAGE, code=f.code, message=f.message, path=f.path) for f in report.failures]
    return CheckedRow(
        record.record_id,
        passed=report.passed,
        derived_json=with_changes(row.derived, changes),
        validation_json=report.model_dump_json(),
        reasons=reasons,
    )


def run_validation(store: Store, source: str, workers: int | None = None) -> Counter[str]:
    """Validate every record awaiting it. Each batch commits on its own, so a killed run resumes.
    `workers`: worker processes (default: core/parallel.py decides from the size of the run)."""
    counts: Counter[str] = Counter()
    pending = store.count_in_state(source, RecordState.AUTHORED)
    workers = worker_count(pending) if workers is None else workers
    # Page by page, no read held open while the batches are written (see `Store.record_pages`).
    rows = batched(store.record_pages(source, [RecordState.AUTHORED], BATCH), BATCH)
    with progress(pending, "validate") as bar, fewer_collections():
        for chunk, checked in map_batches(check_row, rows, workers):
            changes = []
            for row, result in zip(chunk, checked, strict=True):
                if result.unreadable is not None:
                    store.set_aside(row, result.unreadable)  # rejected with its reason, as `Store.records` does
                    continue
                state = RecordState.VALIDATED if result.passed else RecordState.REJECTED
                changes.append(
                    StateChange(
                        result.record_id,
                        state,
                        STAGE,
                        reasons=result.reasons,
                        derived_json=result.derived_json,
                        validation_json=result.validation_json,
                    )
                )
                counts[str(state)] += 1
            store.apply(changes)
            bar.update(len(chunk))
    return counts
