"""Pulling annotations from Label Studio into records: paging or exporting tasks, and resolving each annotation
(authored, sent back, rejected, superseded, or held as a conflicting revision)."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from authoring import ls_state, page_tasks
from authoring.flag_resolutions import resolve
from authoring.labelstudio.annotations import STAGE, ParsedAnnotation, latest_annotation, parse_annotation
from authoring.labelstudio.client import (
    PULL_OMIT,
    LabelStudioError,
    LabelStudioSession,
    ensure_project,
    list_project_tasks,
    prefetched,
    task_key,
)
from authoring.labelstudio.feedback import feedback_text, flush_feedback
from core import revisions
from core.derived import read_record
from core.models import Provenance, Reason, Record, RecordState, SourceItem, utcnow
from core.progress import tracked
from core.review import ReviewInfo, review_subject, subject_hash
from core.store import StateChange, Store

CURATOR_STAGE = "curator"  # reasons the curator gave (reject, needs discussion)
# Tasks updated this long before the last checkpoint are listed again (clock skew, late commits).
CHECKPOINT_OVERLAP = timedelta(minutes=5)
TASKS_PER_READ = 50  # task ids one filtered listing asks for: the filter travels in the URL
READ_OMIT = PULL_OMIT.replace("data,", "", 1)  # a webhook's tasks are read with their data (feedback rewrites it)


@dataclass
class PullResult:
    project_id: int = 0
    tasks_seen: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    feedback_written: int = 0


def _parse_time(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value
    if isinstance(value, str) and value:
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    return None


def _current_states(store: Store, record_ids: Sequence[str]) -> dict[str, str]:
    if not record_ids:
        return {}
    rows = store.con.execute(
        "SELECT record_id, state FROM records WHERE record_id IN (SELECT unnest(?))", [list(record_ids)]
    ).fetchall()
    return dict(rows)


def pull_annotations(
    store: Store,
    session: LabelStudioSession,
    source: str,
    *,
    project: ls_state.ProjectRow | None = None,
    take: Callable[..., None] | None = None,
) -> PullResult:
    """Turn new annotations into records; send the ones that do not parse back to the curator.

    Each page of tasks is stored before the next is read; the checkpoint moves only when every page was
    read, and an annotation already taken is recognised by (id, updated_at). A server that dies mid-pull
    raises LabelStudioUnavailable, and the next run picks up what is left. `take` replaces what is done with a
    page (`_take_page`'s arguments): two curators' answers are collected first (authoring/labelstudio/overlap.py).
    """
    take = take or _take_page
    project = project or ensure_project(store, session, source)
    result = PullResult(project_id=project.project_id)
    base_url, project_id = session.base_url, project.project_id
    items = store.source_items(source)
    rows = ls_state.tasks_by_id(store, base_url, project_id)
    checkpoint = _parse_time(project.pull_checkpoint)
    newest: datetime | None = checkpoint
    pages = _annotated_pages(session, project_id, checkpoint)
    for page in tracked(pages, f"label studio pull ({source})", unit="page"):
        result.tasks_seen += len(page)
        for task in page:
            if task.updated_at is not None and (newest is None or task.updated_at > newest):
                newest = task.updated_at
        take(store, session, source, project_id, page, rows, items, result)
    result.feedback_written += flush_feedback(store, session, source, project)
    if newest is not None and newest != checkpoint:  # the project's own key: a source may have several projects
        ls_state.set_pull_checkpoint(store, base_url, project.source, newest.isoformat())
    return result


@dataclass(frozen=True)
class TaskAnnotations:
    """What a pull reads of one task, whichever endpoint it came from."""

    id: int
    meta: dict[str, Any] | None
    updated_at: datetime | None
    annotations: list[dict[str, Any]]

    @classmethod
    def of(cls, task: Any) -> TaskAnnotations:
        get = task.get if isinstance(task, dict) else lambda name, default=None: getattr(task, name, default)
        meta = get("meta")
        return cls(
            id=int(get("id")),
            meta=meta if isinstance(meta, dict) else None,
            updated_at=_parse_time(get("updated_at")),
            annotations=list(get("annotations") or []),
        )


def pull_tasks(store: Store, session: LabelStudioSession, source: str, task_ids: Sequence[int]) -> PullResult:
    """Pull the annotations of these tasks only (the ones a webhook named): a filtered listing of them instead of a
    listing of every task updated lately. The checkpoint does not move: the next full pull still covers them."""
    project = ensure_project(store, session, source)
    result = PullResult(project_id=project.project_id)
    wanted = list(dict.fromkeys(task_ids))
    page = []
    for task in read_tasks(session, project.project_id, wanted):
        raw = task if isinstance(task, dict) else task.model_dump(mode="json")
        session.remember_task_data(int(raw["id"]), raw.get("data") or {})  # the feedback written below needs no read
        page.append(TaskAnnotations.of(raw))
    # Deleted since, never there, or another project's: a webhook is only a hint.
    result.counts["unknown_task"] += len(wanted) - len(page)
    result.tasks_seen = len(page)
    rows = ls_state.tasks_by_id(store, session.base_url, project.project_id)
    _take_page(store, session, source, project.project_id, page, rows, store.source_items(source), result)
    result.feedback_written += flush_feedback(store, session, source, project)
    return result


def read_tasks(session: LabelStudioSession, project_id: int, task_ids: Sequence[int]) -> list[Any]:
    """These tasks of the project, with their data and annotations: a filtered listing per TASKS_PER_READ ids.
    Reading one task costs Label Studio about as much as a listing of ten (measured: 190 ms against 260 ms)."""
    found: list[Any] = []
    for start in range(0, len(task_ids), TASKS_PER_READ):
        chunk = task_ids[start : start + TASKS_PER_READ]
        items = [{"filter": "filter:tasks:id", "operator": "equal", "type": "Number", "value": int(i)} for i in chunk]
        query = {"filters": {"conjunction": "or", "items": items}}
        for listed in list_project_tasks(
            session, project_id, fields="all", omit=READ_OMIT, query=query, what="reading tasks"
        ):
            found.extend(listed)
    return found


def _annotated_pages(
    session: LabelStudioSession, project_id: int, checkpoint: datetime | None
) -> Iterator[list[TaskAnnotations]]:
    """Pages of tasks with their annotations.

    The first pull of a project takes every annotated task in one export request (the cheapest way for
    the server); later pulls page through the tasks updated since the checkpoint, the server building
    the next page while this process stores the current one.
    """
    size = session.settings.page_size
    if checkpoint is None:
        exported = _export_annotated(session, project_id)
        if exported is not None:
            tasks = [TaskAnnotations.of(task) for task in exported]
            for start in range(0, len(tasks), size):
                yield tasks[start : start + size]
            return
    query = None
    if checkpoint is not None:
        since = (checkpoint - CHECKPOINT_OVERLAP).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        updated = {"filter": "filter:tasks:updated_at", "operator": "greater", "type": "Datetime", "value": since}
        query = {"filters": {"conjunction": "and", "items": [updated]}}
    # Tasks without annotations come back too: a filter on them costs the server more than it saves.
    pages = list_project_tasks(
        session, project_id, fields="all", omit=PULL_OMIT, query=query, what="reading annotations"
    )
    for page in prefetched(pages):
        yield [TaskAnnotations.of(task) for task in page]


def _export_annotated(session: LabelStudioSession, project_id: int) -> list[dict[str, Any]] | None:
    """Every annotated task of the project (JSON export), or None where the server has no such export."""

    def download() -> bytes:
        chunks = session.client.projects.exports.download_sync(
            id=project_id, export_type="JSON", download_all_tasks=False, download_resources=False
        )
        return b"".join(chunks)

    try:
        body = session.call("exporting annotations", download)
    except LabelStudioError as exc:
        if exc.status_code == 404:  # Enterprise: the synchronous export is gone; page through tasks instead
            return None
        raise
    tasks = json.loads(body)
    if not isinstance(tasks, list):
        raise LabelStudioError(f"Label Studio's export of project {project_id} is not a list of tasks")
    return tasks


def annotator_of(completed_by: Any, users: Mapping[int, str]) -> str | None:
    """Who completed an annotation: their email where known, else their id."""
    if isinstance(completed_by, dict):  # some exports expand the user
        return completed_by.get("email") or users.get(completed_by.get("id")) or None
    if completed_by is None:
        return None
    return users.get(completed_by) or str(completed_by)


def annotation_stamp(value: Any) -> str:
    """One spelling per annotation time, whichever endpoint reported it."""
    parsed = _parse_time(value)
    return parsed.isoformat() if parsed is not None else str(value or "")


def _take_page(
    store: Store,
    session: LabelStudioSession,
    source: str,
    project_id: int,
    page: Sequence[TaskAnnotations],
    rows: dict[int, ls_state.TaskRow],
    items: dict[str, SourceItem],
    result: PullResult,
) -> None:
    base_url = session.base_url
    prefix = f"{source}:"
    adopted: list[tuple[str, int, str | None, str | None]] = []
    taken: list[tuple[ls_state.TaskRow, Mapping[str, Any], ParsedAnnotation]] = []
    for task in page:
        row = rows.get(task.id)
        if row is None:  # pushed by a run that crashed before storing the task id
            key = task_key(task)
            if key is None or not key.startswith(prefix) or key[len(prefix) :] not in items:
                result.counts["foreign_task"] += 1
                continue
            draft_model = (task.meta or {}).get("draft_model") or None
            row = ls_state.TaskRow(source, key[len(prefix) :], task.id, draft_model=draft_model)
            rows[row.task_id] = row
            adopted.append((row.source_id, row.task_id, draft_model, None))
        annotation = latest_annotation(task.annotations)
        if annotation is None:
            result.counts["no_annotation"] += 1
            continue
        stamp = annotation_stamp(annotation.get("updated_at"))
        if row.annotation_id == int(annotation["id"]) and row.annotation_updated_at == stamp:
            result.counts["unchanged"] += 1
            continue
        if row.source_id not in items:
            result.counts["unknown_source_item"] += 1
            continue
        context = items[row.source_id].context
        taken.append((row, annotation, parse_annotation(annotation.get("result") or [], context)))
    if adopted:
        ls_state.record_pushed(store, base_url, project_id, source, adopted)
    if not taken:
        return
    users = session.user_emails()
    to_upsert: dict[RecordState, list[Record]] = {}
    changes: list[StateChange] = []
    outcomes: list[ls_state.Outcome] = []
    reaccept: list[str] = []
    superseded: list[tuple[str, str, int]] = []
    previous = _records_by_id(store, [row.record_id for row, _, _ in taken if row.record_id])
    built: dict[str, Record] = {}
    origins: dict[str, revisions.Origin] = {}  # record id -> the annotation it comes from (its revision)
    for row, annotation, parsed in taken:
        item = items[row.source_id]
        # olmOCR: the curator's corrected transcript becomes the context (evidence spans follow it)
        item, parsed.evidence, context_correction = page_tasks.apply_transcript(
            item, annotation.get("result") or [], parsed.evidence, parsed.problems
        )
        for outcome in page_tasks.correction_outcomes(context_correction):  # reported in the run's pull line
            result.counts[outcome] += 1
        annotator = annotator_of(annotation.get("completed_by"), users)
        question = parsed.question or row.pushed_question or item.question or f"(no question yet for {item.source_id})"
        record = Record.build(
            item,
            question,
            parsed.json_schema or {},
            parsed.ground_truth or {},
            Provenance(
                annotator=annotator,
                authored_via=f"label_studio:{project_id}",
                authored_at=_parse_time(annotation.get("updated_at")) or utcnow(),
                draft_model=row.draft_model,
                time_spent_s=annotation.get("lead_time"),
                context_correction=context_correction,
            ),
            evidence=parsed.evidence,
        )
        record = _carry_review(record, previous.get(row.record_id or ""), parsed, annotator)
        rid = record.record_id
        built[rid] = record
        origins[rid] = revisions.Origin(
            f"label_studio:{project_id}:{row.task_id}",
            {
                "annotation_id": int(annotation["id"]),
                "annotation_updated_at": annotation_stamp(annotation.get("updated_at")),
            },
            _parse_time(annotation.get("updated_at")),
        )
        feedback = None
        if parsed.verdict == "reject":
            message = parsed.notes or "rejected by the curator (no note given)"
            reason = Reason(stage=CURATOR_STAGE, code="curator_reject", message=message)
            to_upsert.setdefault(RecordState.REJECTED, []).append(record)
            changes.append(StateChange(rid, RecordState.REJECTED, CURATOR_STAGE, reasons=[reason]))
            status = ls_state.REJECTED
        elif parsed.problems:
            to_upsert.setdefault(RecordState.NEEDS_REVISION, []).append(record)
            changes.append(StateChange(rid, RecordState.NEEDS_REVISION, STAGE, reasons=parsed.problems))
            feedback = feedback_text(parsed.problems, int(annotation["id"]), annotator)
            status = ls_state.NEEDS_REVISION
        elif parsed.verdict == "needs_discussion":
            message = parsed.notes or "the curator asked for a discussion (no note given)"
            reason = Reason(stage=CURATOR_STAGE, code="needs_discussion", message=message)
            to_upsert.setdefault(RecordState.NEEDS_REVISION, []).append(record)
            changes.append(StateChange(rid, RecordState.NEEDS_REVISION, CURATOR_STAGE, reasons=[reason]))
            status = ls_state.NEEDS_DISCUSSION
        else:
            to_upsert.setdefault(RecordState.AUTHORED, []).append(record)
            reaccept.append(rid)
            status = ls_state.AUTHORED
            earlier = previous.get(row.record_id or "")
            if earlier is not None and earlier.provenance.review and earlier.provenance.review.open_flags:
                # The flags box is cleared and the curator told what happens next.
                feedback = (
                    f"The flags are resolved (annotation {annotation['id']}): the record goes on to "
                    "validation and the judge."
                )
        if row.record_id and row.record_id != rid:
            superseded.append((row.record_id, rid, row.task_id))
        outcomes.append(
            ls_state.Outcome(
                row.source_id, status, rid, int(annotation["id"]), annotation_stamp(annotation["updated_at"]), feedback
            )
        )
        result.counts[status] += 1
    screened = _screen_revisions(store, to_upsert, origins, outcomes, result)
    held = {d.incoming.record.record_id for d in screened.decisions if d.verdict in ("conflict", "stale")}
    reaccept = [rid for rid in reaccept if rid not in held]
    changes = [change for change in changes if change.record_id not in held]  # a version not applied moves nothing
    for state, records in to_upsert.items():
        store.upsert_records(records, state, stage="label_studio", kind="authored")
    revisions.record(store.con, screened)
    # A resubmission with unchanged content leaves the stored record as it was: move it on explicitly.
    states = _current_states(store, reaccept + [old for old, _, _ in superseded])
    for rid in reaccept:
        if states.get(rid) in (RecordState.NEEDS_REVISION, RecordState.NEEDS_REVIEW, RecordState.REJECTED):
            # With the record: the curator's flag resolutions live in its provenance.
            changes.append(StateChange(rid, RecordState.AUTHORED, "label_studio", record=built[rid]))
    for old, new, task_id in superseded:
        if old in states and states[old] != RecordState.REJECTED:
            reason = Reason(
                stage=CURATOR_STAGE,
                code="superseded",
                message=f"task {task_id} was annotated again with another question; record {new[:12]} replaces it",
            )
            changes.append(StateChange(old, RecordState.REJECTED, CURATOR_STAGE, reasons=[reason]))
            result.counts["superseded"] += 1
    store.apply(changes)
    ls_state.save_outcomes(store, base_url, project_id, outcomes)
    for (row, _, _), outcome in zip(taken, outcomes, strict=True):
        row.status, row.record_id = outcome.status, outcome.record_id
        row.annotation_id, row.annotation_updated_at = outcome.annotation_id, outcome.annotation_updated_at


def _screen_revisions(
    store: Store,
    to_upsert: dict[RecordState, list[Record]],
    origins: Mapping[str, revisions.Origin],
    outcomes: list[ls_state.Outcome],
    result: PullResult,
) -> revisions.Screened:
    """Every annotation is a version of its record, whatever state it puts the record in (authored, sent back for
    its problems, rejected by the curator): each becomes a revision, so the store's revisions are Label Studio's
    annotations. One that would replace another origin's newer revision is not applied (core/revisions.py): taken
    out of `to_upsert`, and its task goes back to the curator saying so (a new submission then replaces it)."""
    incoming = [
        revisions.Incoming(r, origins[r.record_id], r.provenance.annotator)
        for records in to_upsert.values()
        for r in records
    ]
    screened = revisions.screen(store.con, incoming)
    held = {d.incoming.record.record_id: d for d in screened.decisions if d.verdict in ("conflict", "stale")}
    if not held:
        return screened
    for state, records in to_upsert.items():
        to_upsert[state] = [r for r in records if r.record_id not in held]
    for index, outcome in enumerate(outcomes):
        decision = held.get(outcome.record_id or "")
        if decision is None:
            continue
        current = revisions.describe_origin(decision.current_origin or "unknown", {})
        feedback = (
            f"Not applied (annotation {outcome.annotation_id}): record {outcome.record_id[:12]} was changed since "  # type: ignore[index]
            f"by {current} (revision {decision.current_rev}). Check the answer against it and submit again to "
            "replace it, or settle it with --overwrite."
        )
        result.counts[outcome.status] -= 1
        result.counts["conflict"] += 1
        outcomes[index] = dataclasses.replace(outcome, status=ls_state.NEEDS_REVISION, feedback=feedback)
    return screened


def _records_by_id(store: Store, record_ids: Sequence[str]) -> dict[str, Record]:
    if not record_ids:
        return {}
    rows = store.con.execute(
        "SELECT record_id, record, derived FROM records WHERE record_id IN (SELECT unnest(?))", [list(record_ids)]
    ).fetchall()
    return {rid: read_record(text, derived) for rid, text, derived in rows}


def _subject_hash(record: Record) -> str:
    out = record.output
    return subject_hash(review_subject(record.input.question, record.input.json_schema, out.ground_truth, out.evidence))


def _carry_review(record: Record, previous: Record | None, parsed: ParsedAnnotation, annotator: str | None) -> Record:
    """Keep the reviewer's flags on the new version of a record; an accept must resolve every open flag
    (its problems join the annotation's, so the record goes back to the curator with them)."""
    review: ReviewInfo | None = previous.provenance.review if previous is not None else None
    if review is None:
        return record
    if review.open_flags and parsed.verdict == "accept":
        changed = _subject_hash(record) != _subject_hash(previous)  # type: ignore[arg-type]
        review, problems = resolve(review, parsed.flag_resolutions, changed=changed, annotator=annotator)
        parsed.problems.extend(problems)
    return record.model_copy(update={"provenance": record.provenance.model_copy(update={"review": review})})
