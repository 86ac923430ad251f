"""Every record held for a person or rejected can be fixed in Label Studio, wherever it came from (an authored file,
the sample, a draft, an earlier answer).

A record in `needs_review`, `needs_revision` or `rejected` whose source item has no task gets one, prefilled from the
record (question, schema, answer and evidence, as a prediction, the way drafts are prefilled) with its open flags and
its reasons above the editors; a task pushed earlier for the item that nobody annotated yet is given the record the
same way. The task row then names the record, so the curator's submission is the record's next revision: its flag
resolutions apply to the record's flags (pull.py), and an authored file imported after it is a conflict, as for any
record edited in Label Studio (core/revisions.py).

Each task also carries `state` and `open_flags` in its data: Label Studio's Data Manager shows task data keys as
columns a curator can filter on. They are written with every feedback (feedback.py), so they follow the verdicts.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from authoring import ls_state, page_tasks
from authoring.flag_resolutions import flags_text
from authoring.labelstudio.client import LabelStudioSession, ensure_project
from authoring.labelstudio.feedback import feedback_text, grounding_doubts, task_columns
from authoring.labelstudio.push import build_task
from core import revisions
from core.models import RecordState, SourceItem
from core.store import Store
from core.store_rows import StoredRecord

HELD_STATES: tuple[RecordState, ...] = (RecordState.NEEDS_REVIEW, RecordState.NEEDS_REVISION, RecordState.REJECTED)
REPLACED = ("superseded",)  # reason codes of a record another one replaced: nothing to fix in it
RECORD_PREFILL = "record"  # the prediction's model_version names the record, not a draft model


@dataclass
class HeldTasks:
    new: int = 0  # tasks made for held records
    prefilled: int = 0  # tasks pushed before their item had a record, given the held record

    @property
    def total(self) -> int:
        return self.new + self.prefilled


def push_held_records(
    store: Store, session: LabelStudioSession, source: str, *, project: ls_state.ProjectRow | None = None
) -> HeldTasks:
    """Give every held or rejected record without a task of its own a prefilled task; returns how many were given.

    Not with two curators per record (`--overlap 2`): their tasks are compared answer by answer (overlap.py), and a
    record's revision is the adjudicator's."""
    if session.settings.overlap > 1:
        return HeldTasks()
    project = project or ensure_project(store, session, source)
    base_url, project_id = session.base_url, project.project_id
    by_item = {row.source_id: row for row in ls_state.tasks_by_id(store, base_url, project_id).values()}
    new: dict[str, StoredRecord] = {}
    untouched: list[tuple[ls_state.TaskRow, StoredRecord]] = []
    for stored in store.records(source, HELD_STATES):
        if any(reason.code in REPLACED for reason in stored.reasons):
            continue
        source_id = stored.record.metadata.source_id
        row = by_item.get(source_id)
        if row is None:
            new.setdefault(source_id, stored)  # one task per source item: its first held record
        elif row.record_id is None and row.annotation_id is None and row.status == ls_state.AWAITING:
            untouched.append((row, stored))
            by_item[source_id] = ls_state.TaskRow(source, source_id, row.task_id, record_id=stored.record.record_id)
    if not new and not untouched:
        return HeldTasks()
    items = store.source_items_by_id(source, list(new) + [row.source_id for row, _ in untouched])
    given = HeldTasks(
        new=_import_new(store, session, source, project_id, [(items[s], r) for s, r in new.items() if s in items])
    )
    for row, stored in untouched:
        if row.source_id in items:
            _prefill_existing(store, session, project_id, row, items[row.source_id], stored)
            given.prefilled += 1
    return given


def held_feedback(store: Store, stored: StoredRecord) -> str:
    """What the task says above the editors: why the record is held or rejected, where it came from, what to do."""
    record = stored.record
    current = revisions.current_revision(store.con, record.record_id)
    origin = (
        revisions.describe_origin(current.origin, current.origin_detail)
        if current is not None
        else record.provenance.authored_via or "unknown"
    )
    if stored.state == RecordState.NEEDS_REVIEW:
        what = "held in needs_review by the toolkit's checks, which could not settle these doubts"
        todo = "Fix the answer, or answer each flag in Flag resolutions ('R1 fixed' or 'R1 dismissed: why'); accept"
    else:
        what = f"{stored.state} by the toolkit's checks"
        todo = "Fix these; accept"
    head = (
        f"Record {record.record_id[:12]} (from {origin}) is {what}. {todo} and submit: the record goes through the "
        "checks again."
    )
    return feedback_text(stored.reasons, None, None, grounding_doubts(stored.validation), head=head)


def _prefill(item: SourceItem, stored: StoredRecord, feedback: str) -> dict[str, Any]:
    """The import payload of a task for a held record: its content as the prediction, its flags and reasons shown."""
    record = stored.record
    content = {
        "question": record.input.question,
        "json_schema": record.input.json_schema,
        "ground_truth": record.output.ground_truth,
        "evidence": record.output.evidence,
        "model_version": f"{RECORD_PREFILL}:{record.record_id[:12]}",
    }
    task = build_task(item, content)
    review = record.provenance.review
    task["data"] |= {"feedback": feedback, "review_flags": flags_text(review), "draft_model": ""}
    task["data"] |= task_columns(stored.state, review)
    task["meta"]["draft_model"] = ""
    return task


def _import_new(
    store: Store,
    session: LabelStudioSession,
    source: str,
    project_id: int,
    held: Sequence[tuple[SourceItem, StoredRecord]],
) -> int:
    """New tasks for held records, in batches, through the push outbox (a crash after the request is reconciled)."""
    base_url, size = session.base_url, session.settings.batch_size
    for start in range(0, len(held), size):
        batch = held[start : start + size]
        payload = [_prefill(item, stored, held_feedback(store, stored)) for item, stored in batch]
        page_tasks.add_page_data(store, session, source, project_id, [item for item, _ in batch], payload)
        batch_id = uuid.uuid4().hex
        ls_state.queue_push(store, base_url, project_id, source, [item.source_id for item, _ in batch], batch_id)
        response = session.call(
            f"importing {len(batch)} task(s) of held records",
            session.client.projects.import_tasks,
            id=project_id,
            request=payload,
            return_task_ids=True,
            commit_to_project=True,
        )
        task_ids = [int(t) for t in getattr(response, "task_ids", None) or []]
        if len(task_ids) != len(batch):  # an asynchronous import: the next push reconciles, the next run prefills
            continue
        rows = [
            (item.source_id, task_id, stored.record.provenance.draft_model, stored.record.input.question)
            for (item, stored), task_id in zip(batch, task_ids, strict=True)
        ]
        ls_state.record_pushed(store, base_url, project_id, source, rows, batch_id=batch_id)
        held_rows = [
            (item.source_id, stored.record.record_id, stored.record.input.question, task["data"]["feedback"])
            for (item, stored), task in zip(batch, payload, strict=True)
        ]
        ls_state.hold_for_curator(store, base_url, project_id, held_rows)
    return len(held)


def _prefill_existing(
    store: Store,
    session: LabelStudioSession,
    project_id: int,
    row: ls_state.TaskRow,
    item: SourceItem,
    stored: StoredRecord,
) -> None:
    """A task pushed before the item had a record, not annotated yet: it gets the record's prefill and flags."""
    prefilled = _prefill(item, stored, held_feedback(store, stored))
    data = session.task_data(row.task_id) | prefilled["data"]
    session.write_task_data(row.task_id, data, "writing the record into task")
    for prediction in prefilled.get("predictions", []):
        session.call(
            f"prefilling task {row.task_id}",
            session.client.predictions.create,
            task=row.task_id,
            result=prediction["result"],
            model_version=prediction["model_version"],
        )
    held_row = (row.source_id, stored.record.record_id, stored.record.input.question, data["feedback"])
    ls_state.hold_for_curator(store, session.base_url, project_id, [held_row])
