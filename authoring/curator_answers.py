"""What the store keeps of records authored twice (`--overlap 2`): each curator's answer, and their agreement.

- `curator_answers`: one row per (source item, slot): slot 1 is the first curator's answer, slot 2 the second's
  (with `--blind-second`, the answer from the project without the draft's answer). The annotation as Label Studio
  gave it (so the agreed one becomes the record through the ordinary pull), who, its id and update time, and the
  parsed content. `settled` is false while the pair has not been compared at these versions.
- `curator_agreement`: one row per source item with two answers: the comparison (value accuracy, STED, the fields
  that differ; `scoring.curator_agreement`), where it stands (`agreed`, `to_adjudicate`, `adjudicated`), the record
  it became and who adjudicated.

The tables are created on first use (`CREATE TABLE IF NOT EXISTS`), like the other authoring tables were before
they became migrations.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.models import utcnow
from core.store import Store

AGREED = "agreed"
TO_ADJUDICATE = "to_adjudicate"
ADJUDICATED = "adjudicated"

TABLES_SQL = """
CREATE TABLE IF NOT EXISTS curator_answers (
    source VARCHAR NOT NULL,
    source_id VARCHAR NOT NULL,
    slot INTEGER NOT NULL,
    project_id BIGINT NOT NULL,
    task_id BIGINT NOT NULL,
    annotation_id BIGINT NOT NULL,
    annotation_updated_at VARCHAR NOT NULL,
    annotator VARCHAR,
    annotation JSON NOT NULL,
    content JSON NOT NULL,
    usable BOOLEAN NOT NULL,
    settled BOOLEAN NOT NULL DEFAULT false,
    updated_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (source, source_id, slot)
);
CREATE TABLE IF NOT EXISTS curator_agreement (
    source VARCHAR NOT NULL,
    source_id VARCHAR NOT NULL,
    first_annotation_id BIGINT NOT NULL,
    second_annotation_id BIGINT NOT NULL,
    first_annotator VARCHAR,
    second_annotator VARCHAR,
    comparison JSON NOT NULL,
    agree BOOLEAN NOT NULL,
    status VARCHAR NOT NULL,
    record_id VARCHAR,
    adjudicator VARCHAR,
    updated_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (source, source_id)
);
"""


def ensure_tables(store: Store) -> None:
    store.con.execute(TABLES_SQL)


def has_tables(store: Store) -> bool:
    """Whether the workspace ever kept two answers (a read-only look creates nothing)."""
    return bool(
        store.con.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_name = 'curator_agreement'"
        ).fetchone()[0]
    )


@dataclass(frozen=True)
class Answer:
    source_id: str
    slot: int
    project_id: int
    task_id: int
    annotation_id: int
    annotation_updated_at: str
    annotator: str | None
    annotation: dict[str, Any]
    content: dict[str, Any]  # question, json_schema, ground_truth, evidence, verdict, notes
    usable: bool  # parsed without problems (JSON that reads, a verdict)


_ANSWER_COLS = (
    "source_id, slot, project_id, task_id, annotation_id, annotation_updated_at, annotator, annotation, content, usable"
)


def _answer(row: tuple[Any, ...]) -> Answer:
    sid, slot, project, task, aid, stamp, annotator, annotation, content, usable = row
    return Answer(sid, slot, project, task, aid, stamp, annotator, json.loads(annotation), json.loads(content), usable)


def answers(store: Store, source: str, source_id: str | None = None) -> dict[str, dict[int, Answer]]:
    """source_id -> slot -> answer."""
    ensure_tables(store)
    sql = f"SELECT {_ANSWER_COLS} FROM curator_answers WHERE source = ?"
    params: list[Any] = [source]
    if source_id is not None:
        sql += " AND source_id = ?"
        params.append(source_id)
    out: dict[str, dict[int, Answer]] = {}
    for row in store.con.execute(sql, params).fetchall():
        answer = _answer(row)
        out.setdefault(answer.source_id, {})[answer.slot] = answer
    return out


def save_answer(store: Store, source: str, answer: Answer) -> bool:
    """Keep a curator's answer; True when it is new or changed (the pair is then compared again)."""
    ensure_tables(store)
    known = store.con.execute(
        "SELECT annotation_id, annotation_updated_at FROM curator_answers WHERE source = ? AND source_id = ? "
        "AND slot = ?",
        [source, answer.source_id, answer.slot],
    ).fetchone()
    if known is not None and tuple(known) == (answer.annotation_id, answer.annotation_updated_at):
        return False
    store.con.execute(
        "INSERT INTO curator_answers VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, false, ?) "
        "ON CONFLICT (source, source_id, slot) DO UPDATE SET project_id = excluded.project_id, "
        "task_id = excluded.task_id, annotation_id = excluded.annotation_id, "
        "annotation_updated_at = excluded.annotation_updated_at, annotator = excluded.annotator, "
        "annotation = excluded.annotation, content = excluded.content, usable = excluded.usable, settled = false, "
        "updated_at = excluded.updated_at",
        [
            source,
            answer.source_id,
            answer.slot,
            answer.project_id,
            answer.task_id,
            answer.annotation_id,
            answer.annotation_updated_at,
            answer.annotator,
            json.dumps(answer.annotation, ensure_ascii=False, default=str),
            json.dumps(answer.content, ensure_ascii=False, default=str),
            answer.usable,
            utcnow(),
        ],
    )
    return True


def unsettled_pairs(store: Store, source: str) -> list[tuple[Answer, Answer]]:
    """Source items whose two answers are both usable and not yet compared at these versions."""
    pairs = []
    for slots in answers(store, source).values():
        first, second = slots.get(1), slots.get(2)
        if first is None or second is None or not (first.usable and second.usable):
            continue
        unsettled = store.con.execute(
            "SELECT count(*) FROM curator_answers WHERE source = ? AND source_id = ? AND NOT settled",
            [source, first.source_id],
        ).fetchone()[0]
        if unsettled:
            pairs.append((first, second))
    return pairs


def save_agreement(
    store: Store,
    source: str,
    first: Answer,
    second: Answer,
    comparison: Mapping[str, Any],
    status: str,
    record_id: str | None = None,
) -> None:
    """The pair's comparison and where it stands; both answers are settled at these versions."""
    ensure_tables(store)
    store.con.execute("BEGIN TRANSACTION")
    try:
        store.con.execute(
            "INSERT INTO curator_agreement VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?) "
            "ON CONFLICT (source, source_id) DO UPDATE SET first_annotation_id = excluded.first_annotation_id, "
            "second_annotation_id = excluded.second_annotation_id, first_annotator = excluded.first_annotator, "
            "second_annotator = excluded.second_annotator, comparison = excluded.comparison, agree = excluded.agree, "
            "status = excluded.status, record_id = excluded.record_id, adjudicator = NULL, "
            "updated_at = excluded.updated_at",
            [
                source,
                first.source_id,
                first.annotation_id,
                second.annotation_id,
                first.annotator,
                second.annotator,
                json.dumps(comparison),
                bool(comparison["agree"]),
                status,
                record_id,
                utcnow(),
            ],
        )
        store.con.execute(
            "UPDATE curator_answers SET settled = true WHERE source = ? AND source_id = ?", [source, first.source_id]
        )
        store.con.execute("COMMIT")
    except BaseException:
        store.con.execute("ROLLBACK")
        raise


def mark_adjudicated(store: Store, source: str, source_id: str, record_id: str, adjudicator: str | None) -> None:
    store.con.execute(
        "UPDATE curator_agreement SET status = ?, record_id = ?, adjudicator = ?, updated_at = ? "
        "WHERE source = ? AND source_id = ?",
        [ADJUDICATED, record_id, adjudicator, utcnow(), source, source_id],
    )


@dataclass(frozen=True)
class AgreementRow:
    source_id: str
    first_annotator: str | None
    second_annotator: str | None
    comparison: dict[str, Any]
    agree: bool
    status: str
    record_id: str | None
    adjudicator: str | None


def agreement_rows(store: Store, source: str) -> list[AgreementRow]:
    if not has_tables(store):
        return []
    rows = store.con.execute(
        "SELECT source_id, first_annotator, second_annotator, comparison, agree, status, record_id, adjudicator "
        "FROM curator_agreement WHERE source = ? ORDER BY source_id",
        [source],
    ).fetchall()
    return [AgreementRow(r[0], r[1], r[2], json.loads(r[3]), r[4], r[5], r[6], r[7]) for r in rows]


def refuse_answer(store: Store, source: str, answer: Answer) -> None:
    """An answer that cannot count (the same curator answered twice) is kept as unusable: the pair waits until a
    new annotation replaces it."""
    store.con.execute(
        "UPDATE curator_answers SET usable = false, settled = true WHERE source = ? AND source_id = ? AND slot = ? "
        "AND annotation_id = ?",
        [source, answer.source_id, answer.slot, answer.annotation_id],
    )
