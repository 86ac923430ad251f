"""The validation stage: authored records move to `validated` or to `rejected` with every reason.

Checking a record is pure and CPU-bound, so a large run checks its batches in worker processes while this
process writes the previous batch (core/row_stage.py); every batch commits on its own.
"""

from __future__ import annotations

from collections import Counter

from pydantic import ValidationError

from core.derived import read_record, with_changes
from core.models import Reason, RecordState
from core.row_stage import run_row_stage
from core.store import RecordRow, StateChange, Store
from core.store_rows import parse_error_summary, reasons_payload
from validation.pipeline import check_record

STAGE = "validation"
BATCH = 1000


def check_row(row: RecordRow) -> tuple[StateChange | None, str]:
    """Parse a stored record, run every check, and serialise what validation adds to it (validated output,
    located evidence, schema complexity: core/derived.py) and its report: (the move, its state), or (None,
    why) when the stored row cannot be read back."""
    try:
        record = read_record(row.record, row.derived)
    except (ValidationError, ValueError) as exc:
        return None, parse_error_summary(exc)
    report, validated_output, evidence = check_record(record, parsed_from_json=True)[1:]
    output: dict[str, object] = {"validated_output": validated_output}
    if evidence is not None:
        output["evidence"] = evidence  # offsets resolved, values located: shown to curators
    changes: dict[str, dict[str, object]] = {"output": output}
    if report.complexity is not None:
        changes["metadata"] = {"schema_complexity": report.complexity.level}
    state = RecordState.VALIDATED if report.passed else RecordState.REJECTED
    change = StateChange(
        record.record_id,
        state,
        STAGE,
        # serialised here, in the worker: the main process only masks and writes them
        reasons_json=reasons_payload(
            [Reason(stage=STAGE, code=f.code, message=f.message, path=f.path) for f in report.failures]
        ),
        derived_json=with_changes(row.derived, changes),
        validation_json=report.model_dump_json(),
    )
    return change, str(state)


def run_validation(store: Store, source: str, workers: int | None = None) -> Counter[str]:
    """Validate every record awaiting it. Each batch commits on its own, so a killed run resumes.
    `workers`: worker processes (default: core/parallel.py decides from the size of the run)."""
    return run_row_stage(
        store, source, [RecordState.AUTHORED], check_row, label="validate", batch=BATCH, workers=workers
    )
