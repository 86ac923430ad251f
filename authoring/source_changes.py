"""A source item that changed under its records sends them back through validation and judging.

When a reload changes an item's context, seed question, seed answer or metadata, the store logs
`source_changed`. Each record written about that item is rebuilt from the new item (its question,
schema, answer and evidence kept; its validated output, checks and verdicts dropped) and goes back
to `authored` with the reason `source_changed`, so the next stages check it against what the
source says now, and the next release lists it as changed. Records with a curator (bounced back,
or rejected by the curator) stay with the curator: a source change must not undo a human verdict.
Drafts of a changed item are dropped, so the next `--draft` writes them from the new item.
"""

from __future__ import annotations

from dataclasses import dataclass

from authoring.drafts import forget_drafts
from core.models import Reason, Record, RecordState, SourceItem
from core.store import Store, StoredRecord

STAGE = "load"
CODE = "source_changed"
CURATOR_STAGE = "curator"


@dataclass
class RecheckResult:
    items: int = 0  # changed source items looked at
    reopened: int = 0  # records sent back to `authored`
    with_curators: int = 0  # records left with their curator (needs_revision, rejected by the curator)
    current: int = 0  # records already written from the new item


def rebuild(record: Record, item: SourceItem) -> Record:
    """The record as if written now about `item`: the curator's parts kept, the source's parts new."""
    fresh = Record.build(item, record.input.question, record.input.json_schema, record.output.ground_truth)
    output = record.output.model_copy(update={"validated_output": None})
    provenance = record.provenance.model_copy(update={"judge": None, "judged_at": None})
    return fresh.model_copy(update={"output": output, "provenance": provenance})


def what_changed(old: Record, new: Record) -> list[str]:
    changed = []
    if old.input.context != new.input.context:
        changed.append("context")
    old_extra, new_extra = old.metadata.extra, new.metadata.extra
    if old_extra.get("seed_question") != new_extra.get("seed_question"):
        changed.append("seed question")
    if any(old_extra.get(key) != new_extra.get(key) for key in ("answer", "seed_answer")):
        changed.append("seed answer")
    if old.metadata.question_difficulty != new.metadata.question_difficulty or {
        k: v for k, v in old_extra.items() if k not in ("answer", "seed_answer", "seed_question")
    } != {k: v for k, v in new_extra.items() if k not in ("answer", "seed_answer", "seed_question")}:
        changed.append("metadata")
    return changed


def _with_curator(stored: StoredRecord) -> bool:
    if stored.state == RecordState.NEEDS_REVISION:
        return True
    return stored.state == RecordState.REJECTED and any(r.stage == CURATOR_STAGE for r in stored.reasons)


def recheck_changed_sources(store: Store, source: str) -> RecheckResult:
    """Send the records of every source item changed since the last re-check back to `authored`."""
    result = RecheckResult()
    source_ids, through = store.changed_source_ids(source)
    if not source_ids:
        return result
    items = store.source_items(source)
    reopened: list[tuple[Record, RecordState, Reason]] = []
    for stored in store.records_of_items(source, source_ids):
        item = items.get(stored.record.metadata.source_id)
        if item is None:
            continue
        new = rebuild(stored.record, item)
        changed = what_changed(stored.record, new)
        if not changed:
            result.current += 1
            continue
        if _with_curator(stored):
            result.with_curators += 1
            continue
        reason = Reason(
            stage=STAGE,
            code=CODE,
            message=f"the source item's {', '.join(changed)} changed after this record was written "
            f"(it was {stored.state}); checked and judged again against the new item",
        )
        reopened.append((new, stored.state, reason))
    forget_drafts(store.con, source, source_ids)
    store.reopen_records(source, reopened, STAGE, through)
    result.items = len(source_ids)
    result.reopened = len(reopened)
    return result
