"""The validation stage: authored records move to `validated` or to `rejected` with every reason."""

from __future__ import annotations

from collections import Counter

from core.batching import batched
from core.models import Reason, RecordState
from core.progress import progress
from core.store import StateChange, Store
from validation.pipeline import check_record

STAGE = "validation"
BATCH = 1000


def run_validation(store: Store, source: str) -> Counter[str]:
    """Validate every record awaiting it. Each batch commits on its own, so a killed run resumes."""
    counts: Counter[str] = Counter()
    # One streaming scan of a snapshot (a point lookup per chunk would rescan the table each time).
    pending = store.count_in_state(source, RecordState.AUTHORED)
    with progress(pending, "validate") as bar:
        for chunk in batched(store.records(source, [RecordState.AUTHORED], ordered=False), BATCH):
            changes = []
            for item in chunk:
                record = item.record
                report, validated_output, evidence = check_record(record)[1:]
                # Shallow copies of the parts that change: a deep copy would copy the context too.
                metadata = record.metadata
                if report.complexity is not None:
                    metadata = metadata.model_copy(update={"schema_complexity": report.complexity.level})
                update: dict[str, object] = {"validated_output": validated_output}
                if evidence is not None:
                    update["evidence"] = evidence  # offsets resolved, values located: shown to curators
                output = record.output.model_copy(update=update)
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
