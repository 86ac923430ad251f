"""What goes back to the curator: the feedback box, records sent back by validation, the reviewer or the gate,
and the verdict on each checked annotation."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from authoring import ls_evidence, ls_state
from authoring.flag_resolutions import flags_text
from authoring.labelstudio.annotations import STAGE
from authoring.labelstudio.client import LabelStudioError, LabelStudioSession, ensure_project
from core.derived import read_record
from core.models import Reason, Record, RecordState, utcnow
from core.review import ReviewInfo
from core.store import StateChange, Store

WRITE_THREADS = 4  # feedback writes in flight at once; measured: 3 writes took 284 ms together, 359 ms in turn
TO_AUTHOR = "to author"  # the `state` column of a task whose item has no record yet


def feedback_text(
    reasons: Sequence[Reason],
    annotation_id: int | None,
    annotator: str | None,
    doubts: Sequence[Mapping[str, Any]] = (),
    *,
    by_what: str = "the toolkit",
    head: str | None = None,
) -> str:
    """The feedback box: what to fix (with the JSON path), then the grounding check's doubts, if any. `head`: the
    first line instead of "Sent back by ... (annotation N)" (a record no annotation made yet)."""
    when = utcnow().strftime("%Y-%m-%d %H:%M UTC")
    by = f" by {annotator}" if annotator else ""
    head = head or f"Sent back by {by_what} on {when} (annotation {annotation_id}{by}). Fix these and submit again:"
    lines = [head, *(f"- {_where(r.path)}{r.message}" for r in reasons)]
    if doubts:
        lines.append("Doubts of the grounding check (fix the value or its evidence where they are right):")
        lines += [f"- {_where(str(d.get('path', '$')))}{d.get('message', '')} ({d.get('code', '')})" for d in doubts]
    return "\n".join(lines)


def _where(path: str) -> str:
    return f"{path}: " if path and path != "$" else ""


def task_columns(state: str | None, review: ReviewInfo | None) -> dict[str, str]:
    """The task data keys the Data Manager shows as filterable columns: the record's state (`to author` before there
    is one) and its open flags (`R1 answer_not_unique $.first_year; ...`, or `none`)."""
    open_flags = review.open_flags if review else []
    return {
        "state": str(state) if state else TO_AUTHOR,
        "open_flags": "; ".join(f"{f.id} {f.code} {f.path}" for f in open_flags) or "none",
    }


def grounding_doubts(validation: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    """The soft doubts of a stored validation report (ungrounded_value, value_not_near_entity, ...)."""
    grounding = (validation or {}).get("grounding") or {}
    return list(grounding.get("issues") or [])


def flush_feedback(
    store: Store,
    session: LabelStudioSession,
    source: str,
    project: ls_state.ProjectRow,
) -> int:
    """Write queued feedback into the tasks' data (the field the labeling config shows above the editors);
    returns how many tasks were written.

    What goes into each task is taken from the store here; the writes to different tasks then go to Label Studio
    WRITE_THREADS at a time (one PATCH is 100-300 ms of the server's work, most of a `--serve` cycle), and only
    the ones that landed are marked written. Writes to one task stay in order: a PATCH replaces its whole data."""
    by_task: dict[int, list[tuple[str, str, dict[str, Any]]]] = {}
    for source_id, task_id, text in ls_state.pending_feedback(store, session.base_url, project.project_id):
        fields: dict[str, Any] = {"feedback": text}
        found = _task_record(store, session.base_url, project.project_id, source_id)
        if found is not None:  # the reviewer's open flags, and a label per JSON path of the current answer
            record, state = found
            fields["review_flags"] = flags_text(record.provenance.review)
            fields["evidence_paths"] = ls_evidence.label_options(record.output.ground_truth, record.output.evidence)
            fields |= task_columns(state, record.provenance.review)
        by_task.setdefault(task_id, []).append((source_id, text, fields))
    if not by_task:
        return 0
    with ThreadPoolExecutor(min(WRITE_THREADS, len(by_task))) as pool:
        futures = [pool.submit(_write_task, session, task_id, writes) for task_id, writes in by_task.items()]
        outcomes = [future.exception() or future.result() for future in futures]
    written = 0
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            continue
        for source_id, text in outcome:
            ls_state.feedback_written(store, session.base_url, project.project_id, source_id, text)
            written += 1
    failed = next((o for o in outcomes if isinstance(o, BaseException)), None)
    if failed is not None:  # what did land is marked above; the rest stays queued for the next run
        raise failed
    return written


def _write_task(
    session: LabelStudioSession, task_id: int, writes: Sequence[tuple[str, str, Mapping[str, Any]]]
) -> list[tuple[str, str]]:
    """One task's queued feedback, in order; returns the (source_id, text) written. A task deleted in Label Studio
    (404, read or write) has nowhere to take it: skipped, and its record keeps its state."""
    done: list[tuple[str, str]] = []
    for source_id, text, fields in writes:
        try:
            data = session.task_data(task_id)
            session.write_task_data(task_id, data | dict(fields), "writing feedback into task")
        except LabelStudioError as exc:
            if exc.status_code != 404:
                raise
            return done
        done.append((source_id, text))
    return done


def bounce_validation_failures(
    store: Store, session: LabelStudioSession, source: str, *, project: ls_state.ProjectRow | None = None
) -> int:
    """Send records authored in Label Studio that the validation stage rejected back to their curator.

    Run it after the validation stage: the record moves to needs_revision with the validation reasons,
    and the reasons are written into its task's feedback field.
    """
    project = project or ensure_project(store, session, source)
    rows = ls_state.tasks_by_id(store, session.base_url, project.project_id)
    by_record = {row.record_id: row for row in rows.values() if row.record_id and row.status == ls_state.AUTHORED}
    if not by_record:
        return 0
    changes: list[StateChange] = []
    queued: list[tuple[ls_state.TaskRow, str]] = []
    for stored in store.records(source, [RecordState.REJECTED]):
        row = by_record.get(stored.record.record_id)
        if row is None or not any(r.stage == "validation" for r in stored.reasons):
            continue
        changes.append(StateChange(stored.record.record_id, RecordState.NEEDS_REVISION, STAGE, reasons=stored.reasons))
        doubts = grounding_doubts(stored.validation)
        annotator = stored.record.provenance.annotator
        queued.append((row, feedback_text(stored.reasons, row.annotation_id, annotator, doubts)))
    store.apply(changes)
    for row, text in queued:
        ls_state.queue_feedback(
            store, session.base_url, project.project_id, row.source_id, ls_state.NEEDS_REVISION, text
        )
    flush_feedback(store, session, source, project)
    return len(changes)


def bounce_review_flags(
    store: Store, session: LabelStudioSession, source: str, *, project: ls_state.ProjectRow | None = None
) -> int:
    """Send records authored in Label Studio that the reviewer pass flagged back to their curator.

    Run it after the review stage (which moved them to needs_revision): the flags go into the task's
    "Reviewer flags" box, the feedback says what to do, and the grounding doubts are listed below it.
    """
    return _bounce_flags(store, session, source, RecordState.NEEDS_REVISION, "review", "the reviewer pass", project)


def bounce_gate_flags(
    store: Store, session: LabelStudioSession, source: str, *, project: ls_state.ProjectRow | None = None
) -> int:
    """Show the curator the flags of records authored in Label Studio that the gate holds in `needs_review`.

    Run it after the judge stage: the flags go above the editors exactly as the reviewer's do, and the
    curator resolves each (`R1 fixed` or `R1 dismissed: why`); the record then goes through validation and
    the judge again."""
    by_what = "the toolkit's checks, which could not settle these doubts"
    return _bounce_flags(store, session, source, RecordState.NEEDS_REVIEW, "gate", by_what, project)


def _bounce_flags(
    store: Store,
    session: LabelStudioSession,
    source: str,
    state: RecordState,
    stage: str,
    by_what: str,
    project: ls_state.ProjectRow | None,
) -> int:
    project = project or ensure_project(store, session, source)
    rows = ls_state.tasks_by_id(store, session.base_url, project.project_id)
    by_record = {row.record_id: row for row in rows.values() if row.record_id and row.status == ls_state.AUTHORED}
    if not by_record:
        return 0
    bounced = 0
    for stored in store.records(source, [state]):
        row = by_record.get(stored.record.record_id)
        if row is None or not any(r.stage == stage for r in stored.reasons):
            continue
        text = feedback_text(
            stored.reasons,
            row.annotation_id,
            stored.record.provenance.annotator,
            grounding_doubts(stored.validation),
            by_what=by_what,
        )
        ls_state.queue_feedback(
            store, session.base_url, project.project_id, row.source_id, ls_state.NEEDS_REVISION, text
        )
        bounced += 1
    flush_feedback(store, session, source, project)
    return bounced


def verdict_text(state: str, reasons_json: str | None, judge_json: str | None, annotation_id: int | None) -> str:
    """What the curator reads above the editors once the toolkit has checked their annotation."""
    judge = json.loads(judge_json) if judge_json else {}
    scores = ", ".join(f"{name} {value}" for name, value in (judge.get("scores") or {}).items())
    by = f"{judge.get('judge') or 'the checks'}" + (f"; {scores}" if scores else "")
    head = f"Verdict on annotation {annotation_id}"
    if state == RecordState.ACCEPTED:
        return f"{head}: accepted ({by}). Nothing more to do here."
    lines = [f"{head}: rejected ({by}):"]
    for reason in json.loads(reasons_json) if reasons_json else []:
        where = f" {reason['path']}" if reason.get("path") else ""
        lines.append(f"[{reason.get('stage')}/{reason.get('code')}]{where} {reason.get('message')}")
    lines.append("Change the answer and submit again to have it checked again.")
    return "\n".join(lines)


def write_verdicts(store: Store, session: LabelStudioSession, source: str, *, project_key: str | None = None) -> int:
    """Write each checked annotation's verdict (accepted, or rejected with its reasons and JSON paths) into its
    task, once per verdict: the curator sees it without anyone re-running anything. Records sent back
    (needs_revision) already got their errors from the bounce. `project_key`: another of the source's projects
    (the adjudication project) instead of its authoring project."""
    project = ls_state.get_project(store, session.base_url, project_key or source)
    if project is None:
        return 0
    rows = ls_state.tasks_by_id(store, session.base_url, project.project_id)
    by_record = {row.record_id: row for row in rows.values() if row.record_id and row.status == ls_state.AUTHORED}
    if not by_record:
        return 0
    checked = store.con.execute(
        "SELECT record_id, state, reasons, judge FROM records WHERE record_id = ANY(?) AND state = ANY(?)",
        [list(by_record), [str(RecordState.ACCEPTED), str(RecordState.REJECTED)]],
    ).fetchall()
    written = 0
    for record_id, state, reasons, judge in checked:
        row = by_record[record_id]
        text = verdict_text(state, reasons, judge, row.annotation_id)
        if text == row.feedback:
            continue
        ls_state.queue_feedback(store, session.base_url, project.project_id, row.source_id, row.status, text)
        written += 1
    if written:
        flush_feedback(store, session, source, project)
    return written


def _task_record(store: Store, base_url: str, project_id: int, source_id: str) -> tuple[Record, str] | None:
    """The record a task revises, and its state."""
    row = store.con.execute(
        "SELECT r.record, r.derived, r.state FROM ls_tasks t JOIN records r ON r.record_id = t.record_id "
        "WHERE t.base_url = ? AND t.project_id = ? AND t.source_id = ?",
        [base_url, project_id, source_id],
    ).fetchone()
    return (read_record(row[0], row[1]), row[2]) if row else None
