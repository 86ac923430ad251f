"""What the curation store remembers about Label Studio: projects, pushed tasks and the push outbox.

These tables live in the workspace's DuckDB file next to the core tables. They are created here with
`CREATE TABLE IF NOT EXISTS` until they become a versioned migration in `core/store.py` (the SQL below
is meant to be moved there verbatim).

- `ls_projects`: one authoring project per (server, source), the hash of the labeling config it was
  given, and the pull checkpoint (the newest task `updated_at` the server reported, server clock).
- `ls_tasks`: one row per (server, project, source item) that has a task: its task id, what was pushed
  (draft model, question), the last annotation taken (id + updated_at, so a re-pull skips it), the
  record it became, where it stands for the curator, and feedback still to be written to the task.
- `ls_push_outbox`: items whose import request was sent but whose task ids are not yet recorded.
  A crash between the request and the store update leaves rows here; the next push lists the
  project's tasks (their `meta.source_item_key`) and adopts the ones that arrived, so nothing is
  pushed twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pyarrow as pa

from core.models import utcnow
from core.store import Store

# Where a task stands for the curator (ls_tasks.status).
AWAITING = "awaiting"  # pushed, no usable annotation yet
NEEDS_REVISION = "needs_revision"  # the toolkit sent it back (feedback in the task)
NEEDS_DISCUSSION = "needs_discussion"  # the curator asked for a discussion
AUTHORED = "authored"  # an annotation became a record (accept verdict)
REJECTED = "rejected"  # the curator rejected it
OPEN_STATUSES: tuple[str, ...] = (AWAITING, NEEDS_REVISION, NEEDS_DISCUSSION)


@dataclass(frozen=True)
class ProjectRow:
    base_url: str
    source: str
    project_id: int
    title: str
    config_hash: str
    pull_checkpoint: str | None


@dataclass
class TaskRow:
    source: str
    source_id: str
    task_id: int
    draft_model: str | None = None
    pushed_question: str | None = None
    status: str = AWAITING
    record_id: str | None = None
    annotation_id: int | None = None
    annotation_updated_at: str | None = None
    feedback: str | None = None
    feedback_pending: bool = False


def _transaction(store: Store, statements: Iterable[tuple[str, Sequence[Any]]]) -> None:
    store.con.execute("BEGIN TRANSACTION")
    try:
        for sql, params in statements:
            store.con.execute(sql, list(params))
        store.con.execute("COMMIT")
    except Exception:
        store.con.execute("ROLLBACK")
        raise


# -- projects ----------------------------------------------------------------------------------
def get_project(store: Store, base_url: str, source: str) -> ProjectRow | None:
    row = store.con.execute(
        "SELECT base_url, source, project_id, title, config_hash, pull_checkpoint FROM ls_projects "
        "WHERE base_url = ? AND source = ?",
        [base_url, source],
    ).fetchone()
    return ProjectRow(*row) if row else None


def save_project(store: Store, base_url: str, source: str, project_id: int, title: str, config_hash: str) -> None:
    """Remember the project; a different project id for the same server and source drops the old tasks."""
    old = get_project(store, base_url, source)
    statements: list[tuple[str, Sequence[Any]]] = []
    if old is not None and old.project_id != project_id:
        # The old project is gone from the server: its tasks can't be pulled, so they are pushed again.
        statements.append(("DELETE FROM ls_tasks WHERE base_url = ? AND project_id = ?", [base_url, old.project_id]))
        statements.append(
            ("DELETE FROM ls_push_outbox WHERE base_url = ? AND project_id = ?", [base_url, old.project_id])
        )
    checkpoint = old.pull_checkpoint if old is not None and old.project_id == project_id else None
    statements.append(
        (
            "INSERT INTO ls_projects VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (base_url, source) DO UPDATE SET "
            "project_id = excluded.project_id, title = excluded.title, config_hash = excluded.config_hash, "
            "pull_checkpoint = excluded.pull_checkpoint, updated_at = excluded.updated_at",
            [base_url, source, project_id, title, config_hash, checkpoint, utcnow()],
        )
    )
    _transaction(store, statements)


def set_pull_checkpoint(store: Store, base_url: str, source: str, checkpoint: str) -> None:
    store.con.execute(
        "UPDATE ls_projects SET pull_checkpoint = ?, updated_at = ? WHERE base_url = ? AND source = ?",
        [checkpoint, utcnow(), base_url, source],
    )


# -- tasks -------------------------------------------------------------------------------------
_TASK_COLS = (
    "source, source_id, task_id, draft_model, pushed_question, status, record_id, annotation_id, "
    "annotation_updated_at, feedback, feedback_pending"
)


def tasks_by_id(store: Store, base_url: str, project_id: int) -> dict[int, TaskRow]:
    rows = store.con.execute(
        f"SELECT {_TASK_COLS} FROM ls_tasks WHERE base_url = ? AND project_id = ?", [base_url, project_id]
    ).fetchall()
    return {row[2]: TaskRow(*row) for row in rows}


def pushed_source_ids(store: Store, base_url: str, project_id: int) -> set[str]:
    rows = store.con.execute(
        "SELECT source_id FROM ls_tasks WHERE base_url = ? AND project_id = ?", [base_url, project_id]
    ).fetchall()
    return {row[0] for row in rows}


def count_tasks(store: Store, base_url: str, project_id: int) -> int:
    return store.con.execute(
        "SELECT count(*) FROM ls_tasks WHERE base_url = ? AND project_id = ?", [base_url, project_id]
    ).fetchone()[0]


def record_pushed(
    store: Store,
    base_url: str,
    project_id: int,
    source: str,
    pushed: Sequence[tuple[str, int, str | None, str | None]],
    batch_id: str | None = None,
) -> None:
    """Store (source_id, task_id, draft_model, pushed_question) rows and clear their outbox entries, atomically."""
    now: datetime = utcnow()
    table = pa.table(
        {
            "source_id": pa.array([p[0] for p in pushed], pa.string()),
            "task_id": pa.array([p[1] for p in pushed], pa.int64()),
            "draft_model": pa.array([p[2] for p in pushed], pa.string()),
            "pushed_question": pa.array([p[3] for p in pushed], pa.string()),
        }
    )
    store.con.execute("BEGIN TRANSACTION")
    try:
        store.con.register("_ls_pushed", table)
        store.con.execute(
            "INSERT INTO ls_tasks (base_url, project_id, source, source_id, task_id, pushed_at, draft_model, "
            "pushed_question, status, feedback_pending, updated_at) "
            "SELECT ?, ?, ?, source_id, task_id, ?, draft_model, pushed_question, ?, false, ? FROM _ls_pushed "
            "ON CONFLICT (base_url, project_id, source_id) DO NOTHING",
            [base_url, project_id, source, now, AWAITING, now],
        )
        store.con.unregister("_ls_pushed")
        if batch_id is not None:
            store.con.execute(
                "DELETE FROM ls_push_outbox WHERE base_url = ? AND project_id = ? AND batch_id = ?",
                [base_url, project_id, batch_id],
            )
        store.con.execute("COMMIT")
    except Exception:
        store.con.execute("ROLLBACK")
        raise


@dataclass(frozen=True)
class Outcome:
    """What one annotation became, for its task row."""

    source_id: str
    status: str
    record_id: str | None
    annotation_id: int
    annotation_updated_at: str
    feedback: str | None  # None: leave the task's feedback as it is


def save_outcomes(store: Store, base_url: str, project_id: int, outcomes: Sequence[Outcome]) -> None:
    """After annotations were taken: where each task stands, and feedback that still has to reach it."""
    if not outcomes:
        return
    table = pa.table(
        {
            "source_id": pa.array([o.source_id for o in outcomes], pa.string()),
            "status": pa.array([o.status for o in outcomes], pa.string()),
            "record_id": pa.array([o.record_id for o in outcomes], pa.string()),
            "annotation_id": pa.array([o.annotation_id for o in outcomes], pa.int64()),
            "annotation_updated_at": pa.array([o.annotation_updated_at for o in outcomes], pa.string()),
            "feedback": pa.array([o.feedback for o in outcomes], pa.string()),
        }
    )
    store.con.register("_ls_outcomes", table)
    try:
        store.con.execute(
            "UPDATE ls_tasks SET status = o.status, record_id = o.record_id, annotation_id = o.annotation_id, "
            "annotation_updated_at = o.annotation_updated_at, feedback = coalesce(o.feedback, ls_tasks.feedback), "
            "feedback_pending = (o.feedback IS NOT NULL), updated_at = ? "
            "FROM _ls_outcomes o WHERE ls_tasks.base_url = ? AND ls_tasks.project_id = ? "
            "AND ls_tasks.source_id = o.source_id",
            [utcnow(), base_url, project_id],
        )
    finally:
        store.con.unregister("_ls_outcomes")


def queue_feedback(store: Store, base_url: str, project_id: int, source_id: str, status: str, feedback: str) -> None:
    store.con.execute(
        "UPDATE ls_tasks SET status = ?, feedback = ?, feedback_pending = true, updated_at = ? "
        "WHERE base_url = ? AND project_id = ? AND source_id = ?",
        [status, feedback, utcnow(), base_url, project_id, source_id],
    )


def hold_for_curator(store: Store, base_url: str, project_id: int, held: Sequence[tuple[str, str, str, str]]) -> None:
    """Tasks given a held or rejected record (source_id, record_id, question, feedback already in the task): the
    record is the one a submission revises, and the task waits for its curator (sent back)."""
    for source_id, record_id, question, feedback in held:
        store.con.execute(
            "UPDATE ls_tasks SET record_id = ?, pushed_question = ?, status = ?, feedback = ?, "
            "feedback_pending = false, updated_at = ? WHERE base_url = ? AND project_id = ? AND source_id = ?",
            [record_id, question, NEEDS_REVISION, feedback, utcnow(), base_url, project_id, source_id],
        )


def task_urls(store: Store, record_ids: Sequence[str]) -> dict[str, str]:
    """Where each record is fixed in Label Studio: its task's URL (Label Studio's own form), the newest task where
    a record has several."""
    if not record_ids:
        return {}
    rows = store.con.execute(
        "SELECT record_id, base_url, project_id, task_id FROM ls_tasks WHERE record_id = ANY(?) ORDER BY updated_at",
        [list(record_ids)],
    ).fetchall()
    return {rid: f"{base_url}/projects/{pid}/data?task={tid}" for rid, base_url, pid, tid in rows}


def pending_feedback(store: Store, base_url: str, project_id: int) -> list[tuple[str, int, str]]:
    """(source_id, task_id, feedback) still to be written into tasks."""
    return [
        tuple(row)
        for row in store.con.execute(
            "SELECT source_id, task_id, feedback FROM ls_tasks WHERE base_url = ? AND project_id = ? "
            "AND feedback_pending ORDER BY task_id",
            [base_url, project_id],
        ).fetchall()
    ]


def feedback_written(store: Store, base_url: str, project_id: int, source_id: str, feedback: str) -> None:
    # Only clear the flag if no newer feedback was queued meanwhile.
    store.con.execute(
        "UPDATE ls_tasks SET feedback_pending = false WHERE base_url = ? AND project_id = ? AND source_id = ? "
        "AND feedback = ?",
        [base_url, project_id, source_id, feedback],
    )


def status_counts(store: Store, source: str, base_url: str | None = None) -> dict[str, int]:
    sql = "SELECT status, count(*) FROM ls_tasks WHERE source = ?"
    params: list[Any] = [source]
    if base_url is not None:
        sql += " AND base_url = ?"
        params.append(base_url)
    return dict(store.con.execute(sql + " GROUP BY status ORDER BY status", params).fetchall())


# -- outbox ------------------------------------------------------------------------------------
def queue_push(
    store: Store, base_url: str, project_id: int, source: str, source_ids: Sequence[str], batch_id: str
) -> None:
    table = pa.table({"source_id": pa.array(list(source_ids), pa.string())})
    store.con.register("_ls_queued", table)
    try:
        store.con.execute(
            "INSERT INTO ls_push_outbox SELECT ?, ?, ?, source_id, ?, ? FROM _ls_queued "
            "ON CONFLICT (base_url, project_id, source_id) DO UPDATE SET batch_id = excluded.batch_id, "
            "queued_at = excluded.queued_at",
            [base_url, project_id, source, batch_id, utcnow()],
        )
    finally:
        store.con.unregister("_ls_queued")


def outbox_size(store: Store, base_url: str, project_id: int) -> int:
    return store.con.execute(
        "SELECT count(*) FROM ls_push_outbox WHERE base_url = ? AND project_id = ?", [base_url, project_id]
    ).fetchone()[0]


def clear_outbox(store: Store, base_url: str, project_id: int) -> None:
    store.con.execute("DELETE FROM ls_push_outbox WHERE base_url = ? AND project_id = ?", [base_url, project_id])
