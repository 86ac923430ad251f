"""The validation stage: authored records move to `validated` or to `rejected` with every reason."""

from __future__ import annotations

from collections import Counter

from core.batching import batched
from core.models import Reason, RecordState
from core.progress import progress
from core.store import StateChange, Store
from validation.pipeline import validate_record

STAGE = "validation"
BATCH = 1000


def run_validation(store: Store, source: str) -> Counter[str]:
    """Validate every record awaiting it. Each batch commits on its own, so a killed run resumes."""
    counts: Counter[str] = Counter()
    # Take the ids first (the stage changes the states it reads), then read records chunk by chunk
    # so memory stays bounded whatever the number of records.
    pending = store.record_ids(source, [RecordState.AUTHORED])
    with progress(len(pending), "validate") as bar:
        for ids in batched(pending, BATCH):
            chunk = store.records_by_id(ids)
            changes = []
            for item in chunk:
                record = item.record
                report, validated_output = validate_record(record)
                # Shallow copies of the parts that change: a deep copy would copy the context too.
                metadata = record.metadata
                if report.complexity is not None:
                    metadata = metadata.model_copy(update={"schema_complexity": report.complexity.level})
                output = record.output.model_copy(update={"validated_output": validated_output})
                updated = record.model_copy(update={"metadata": metadata, "output": output})
                if report.passed:
                    changes.append(
                        StateChange(
                            record.record_id,
                            RecordState.VALIDATED,
                            STAGE,
                            record=updated,
                            validation=report.model_dump(mode="json"),
                        )
                    )
                    counts["validated"] += 1
                else:
                    reasons = [
                        Reason(stage=STAGE, code=f.code, message=f.message, path=f.path) for f in report.failures
                    ]
                    changes.append(
                        StateChange(
                            record.record_id,
                            RecordState.REJECTED,
                            STAGE,
                            reasons=reasons,
                            record=updated,
                            validation=report.model_dump(mode="json"),
                        )
                    )
                    counts["rejected"] += 1
            store.apply(changes)
            bar.update(len(chunk))
    return counts
