"""No silent overwrite: every version of a record's authored content is a revision, and a version that would
replace another origin's work is a conflict, kept and listed, not applied.

A revision is who (the annotator), from where (`origin`: `file:<name>` with its line and the line's hash, or
`label_studio:<project>:<task>` with the annotation id and its update time), when, and the change (JSON Patch
operations, RFC 6902, made by the `jsonpatch` library, over the record's question, schema, answer and evidence).

An incoming version of an existing record is:
- `unchanged` when its content is the record's current content;
- `stale` when this origin brought exactly this content before and the record has changed since (re-running a
  file, or `--sample`, never re-imposes it on a record curators changed);
- applied when it comes from the origin of the current revision and is newer (a curator edited their file, or
  their annotation), when a Label Studio annotation was updated after the current revision was stored (the
  curator settled it in Label Studio), or with `--overwrite`;
- a `conflict` otherwise: an older version, or a different one from another origin. It stays in the store with
  its content, is listed by `--status` and `--rejections`, and is settled by `--overwrite` or by a later revision.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import jsonpatch
from pydantic import ValidationError

from core.models import Record, content_hash, utcnow
from core.record_texts import RecordTexts, authored_content, authored_text

APPLIED = "applied"
CONFLICT = "conflict"
SETTLED = "settled"  # a conflict a later revision made moot (an --overwrite, an edit in Label Studio)
ANSWER = "answer"  # one curator's independent answer when two author a record (--overlap 2); kept, never applied

TABLE_SQL = """
CREATE TABLE IF NOT EXISTS revisions (
    record_id VARCHAR NOT NULL,
    rev_no INTEGER NOT NULL,
    source VARCHAR NOT NULL,
    source_id VARCHAR NOT NULL,
    status VARCHAR NOT NULL,
    author VARCHAR,
    origin VARCHAR NOT NULL,
    origin_detail JSON,
    origin_time TIMESTAMPTZ,
    recorded_at TIMESTAMPTZ NOT NULL,
    content_hash VARCHAR NOT NULL,
    content JSON NOT NULL,
    change JSON,
    overwrote BOOLEAN NOT NULL DEFAULT false,
    PRIMARY KEY (record_id, rev_no)
);
"""


@dataclass(frozen=True)
class Origin:
    """Where an incoming version comes from. `key` names the origin a later version must share to replace it
    without a conflict (the same file, the same Label Studio task); `time` is when that version was made."""

    key: str
    detail: dict[str, Any] = field(default_factory=dict)
    time: datetime | None = None

    @property
    def is_label_studio(self) -> bool:
        return self.key.startswith("label_studio:")


def change_between(old: dict[str, Any] | None, new: dict[str, Any]) -> list[dict[str, Any]]:
    """JSON Patch operations from `old` to `new` (each with the old value, for people to read)."""
    if old is None:
        return [{"op": "add", "path": "", "value": None}]
    ops = jsonpatch.make_patch(old, new).patch
    for op in ops:
        if op["op"] in ("replace", "remove"):
            with contextlib.suppress(jsonpatch.JsonPointerException):  # the old value is shown when it can be read
                op["old"] = jsonpatch.JsonPointer(op["path"]).resolve(old)
    return ops


@dataclass
class Incoming:
    record: Record
    origin: Origin
    author: str | None = None
    texts: RecordTexts | None = None  # the record's texts when already computed (core/record_texts.py)

    def authored(self) -> tuple[dict[str, Any], str]:
        """The authored content and its hash."""
        if self.texts is not None:
            return json.loads(self.texts.authored_json), self.texts.authored_hash
        content = authored_content(self.record)
        return content, content_hash(content)

    def authored_text(self) -> tuple[str, str]:
        """The authored content as a revision stores it, and its hash."""
        if self.texts is not None:
            return self.texts.authored_json, self.texts.authored_hash
        return authored_text(self.record)


@dataclass
class Decision:
    incoming: Incoming
    verdict: str  # new | applied | overwrote | unchanged | stale | conflict
    current_origin: str | None = None
    current_rev: int | None = None
    change: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Screened:
    decisions: list[Decision] = field(default_factory=list)

    def to_apply(self) -> list[Record]:
        return [d.incoming.record for d in self.decisions if d.verdict in ("new", "applied", "overwrote", "unreadable")]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for d in self.decisions:
            out[d.verdict] = out.get(d.verdict, 0) + 1
        return out


@dataclass
class _Current:
    content: dict[str, Any]
    content_hash: str
    rev_no: int  # 0: stored before revisions were kept
    origin: str
    recorded_at: datetime | None
    origin_time: datetime | None
    seen: set[tuple[str, str]]  # (origin, content hash) of every applied revision of the record


def _currents(con: Any, record_ids: Sequence[str]) -> dict[str, _Current | None]:
    from core.derived import read_record

    if not record_ids:
        return {}
    rows = con.execute(
        "SELECT record_id, record, derived FROM records WHERE record_id = ANY(?)", [list(record_ids)]
    ).fetchall()
    revisions = con.execute(
        "SELECT record_id, rev_no, status, origin, content_hash, recorded_at, origin_time FROM revisions "
        "WHERE record_id = ANY(?) ORDER BY record_id, rev_no",
        [list(record_ids)],
    ).fetchall()
    by_id: dict[str, list[tuple[Any, ...]]] = {}
    for row in revisions:
        by_id.setdefault(row[0], []).append(row)
    out: dict[str, _Current | None] = {}
    for record_id, text, _derived in rows:
        try:
            record = read_record(text, None)  # as authored: evidence the validation located is no curator's change
        except (ValidationError, ValueError):
            out[record_id] = None  # stored before the input limits: the store sets it aside (Store.set_aside)
            continue
        content = authored_content(record)
        revs = by_id.get(record_id, [])
        applied = [r for r in revs if r[2] not in (CONFLICT, ANSWER)]
        last = applied[-1] if applied else None
        out[record_id] = _Current(
            content=content,
            content_hash=content_hash(content),
            rev_no=max((r[1] for r in revs), default=0),
            origin=last[3] if last else _origin_key_of(record),
            recorded_at=last[5] if last else record.provenance.authored_at,
            origin_time=last[6] if last else record.provenance.authored_at,
            seen={(r[3], r[4]) for r in applied if r[2] == APPLIED},
        )
    return out


def _origin_key_of(record: Record) -> str:
    """The origin of a record stored before revisions were kept, as well as its provenance says."""
    return record.provenance.authored_via or "unknown"


def screen(con: Any, incoming: Sequence[Incoming], *, overwrite: bool = False) -> Screened:
    """Decide, for each incoming version, whether it is applied, a no-op or a conflict (nothing is written)."""
    currents = _currents(con, [i.record.record_id for i in incoming])
    screened = Screened()
    for item in incoming:
        if item.record.record_id in currents and currents[item.record.record_id] is None:
            # The stored record cannot be read back: the store's own content hash decides, as before revisions.
            screened.decisions.append(Decision(item, "unreadable"))
            continue
        current = currents.get(item.record.record_id)
        if current is None:
            screened.decisions.append(Decision(item, "new", change=change_between(None, {})))
            continue
        content, digest = item.authored()
        decision = Decision(item, "conflict", current_origin=current.origin, current_rev=current.rev_no)
        if digest == current.content_hash:
            decision.verdict = "unchanged"
        else:
            replaces = _replaces(item.origin, current)
            decision.change = change_between(current.content, content)
            if overwrite:
                decision.verdict = "overwrote"
            elif (item.origin.key, digest) in current.seen and not (item.origin.is_label_studio and replaces):
                # Brought before by the same origin, changed since: re-running a file never re-imposes it
                # (a curator re-submitting in Label Studio after the change does replace it).
                decision.verdict = "stale"
            elif replaces:
                decision.verdict = "applied"
        screened.decisions.append(decision)
    return screened


def _replaces(origin: Origin, current: _Current) -> bool:
    if origin.key == current.origin:  # the same file or task, edited: newer replaces older
        return origin.time is None or current.origin_time is None or origin.time >= current.origin_time
    # Edited in Label Studio after the current revision was stored: the curator saw it and settled it there.
    return (
        origin.is_label_studio
        and origin.time is not None
        and current.recorded_at is not None
        and (origin.time > current.recorded_at)
    )


def record(con: Any, screened: Screened) -> None:
    """Write the revisions of applied versions and of new conflicts (after the records themselves: a run killed
    in between finds the content already current, a no-op, and loses only the revision line)."""
    rows = []
    now = utcnow()
    next_rev: dict[str, int] = {}
    known = {
        rid: n
        for rid, n in con.execute(
            "SELECT record_id, max(rev_no) FROM revisions WHERE record_id = ANY(?) GROUP BY record_id",
            [[d.incoming.record.record_id for d in screened.decisions]],
        ).fetchall()
    }
    settle: list[str] = []
    for d in screened.decisions:
        if d.verdict not in ("new", "applied", "overwrote", "conflict"):
            continue
        record_ = d.incoming.record
        rid = record_.record_id
        content_text, digest = d.incoming.authored_text()
        if d.verdict == "conflict" and _open_conflict_exists(con, rid, d.incoming.origin.key, digest):
            continue  # the same conflict seen again: listed once
        rev = next_rev.get(rid, known.get(rid) or 0) + 1
        next_rev[rid] = rev
        if d.verdict != "conflict":
            settle.append(rid)
        rows.append(
            [
                rid,
                rev,
                record_.metadata.source,
                record_.metadata.source_id,
                CONFLICT if d.verdict == "conflict" else APPLIED,
                d.incoming.author,
                d.incoming.origin.key,
                json.dumps(d.incoming.origin.detail, ensure_ascii=False, default=str),
                d.incoming.origin.time,
                now,
                digest,
                content_text,
                json.dumps(d.change, ensure_ascii=False, default=str),
                d.verdict == "overwrote",
            ]
        )
    if not rows:
        return
    con.execute("BEGIN TRANSACTION")
    try:
        if settle:
            con.execute(
                "UPDATE revisions SET status = ? WHERE status = ? AND record_id = ANY(?)", [SETTLED, CONFLICT, settle]
            )
        _insert(con, rows)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def record_answers(con: Any, answers: Sequence[Incoming]) -> None:
    """Keep curators' independent answers as revisions of their record (status `answer`): shown by `--history`
    beside the version that was applied, never current themselves. The same answer is kept once."""
    rows = []
    next_rev: dict[str, int] = {}
    for item in answers:
        record_ = item.record
        rid = record_.record_id
        content = authored_content(record_)
        digest = content_hash(content)
        seen = con.execute(  # two curators share a task (one origin): their annotation ids tell them apart
            "SELECT count(*) FROM revisions WHERE record_id = ? AND origin = ? AND content_hash = ? AND status = ? "
            "AND coalesce(json_extract_string(origin_detail, '$.annotation_id'), '') = ?",
            [rid, item.origin.key, digest, ANSWER, str(item.origin.detail.get("annotation_id", ""))],
        ).fetchone()[0]
        if seen:
            continue
        if rid not in next_rev:
            next_rev[rid] = con.execute(
                "SELECT coalesce(max(rev_no), 0) FROM revisions WHERE record_id = ?", [rid]
            ).fetchone()[0]
        next_rev[rid] += 1
        rows.append(
            [
                rid, next_rev[rid], record_.metadata.source, record_.metadata.source_id, ANSWER, item.author,
                item.origin.key, json.dumps(item.origin.detail, ensure_ascii=False, default=str), item.origin.time,
                utcnow(), digest, json.dumps(content, ensure_ascii=False), json.dumps([], ensure_ascii=False), False,
            ]
        )  # fmt: skip
    if rows:
        _insert(con, rows)


_INSERT_COLUMNS = (
    "record_id", "rev_no", "source", "source_id", "status", "author", "origin", "origin_detail", "origin_time",
    "recorded_at", "content_hash", "content", "change", "overwrote",
)  # fmt: skip
_ARROW_TYPES = {"rev_no": "int32", "overwrote": "bool_", "origin_time": "utc", "recorded_at": "utc"}


def _insert(con: Any, rows: list[list[Any]]) -> None:
    """All the rows in one statement, through an Arrow table: DuckDB's executemany runs one INSERT per row
    (about 1 ms each: 5,000 authored lines spent 4.5 s here)."""
    import pyarrow as pa

    columns = {}
    for position, name in enumerate(_INSERT_COLUMNS):
        values = [row[position] for row in rows]
        kind = _ARROW_TYPES.get(name)
        if kind == "utc":
            columns[name] = pa.array(values, type=pa.timestamp("us", tz="UTC"))
        elif kind is not None:
            columns[name] = pa.array(values, type=getattr(pa, kind)())
        else:
            columns[name] = pa.array([None if v is None else str(v) for v in values], type=pa.string())
    incoming_revisions = pa.table(columns)  # noqa: F841 (DuckDB reads it by its name below)
    names = ", ".join(_INSERT_COLUMNS)
    con.execute(f"INSERT INTO revisions ({names}) SELECT {names} FROM incoming_revisions")


def _open_conflict_exists(con: Any, record_id: str, origin: str, digest: str) -> bool:
    return bool(
        con.execute(
            "SELECT count(*) FROM revisions WHERE record_id = ? AND origin = ? AND content_hash = ? AND status = ?",
            [record_id, origin, digest, CONFLICT],
        ).fetchone()[0]
    )


@dataclass
class Revision:
    record_id: str
    rev_no: int
    status: str
    author: str | None
    origin: str
    origin_detail: dict[str, Any]
    origin_time: datetime | None
    recorded_at: datetime
    content: dict[str, Any]
    change: list[dict[str, Any]]
    overwrote: bool


_COLUMNS = (
    "record_id, rev_no, status, author, origin, origin_detail, origin_time, recorded_at, content, change, overwrote"
)


def _revision(row: Sequence[Any]) -> Revision:
    rid, rev, status, author, origin, detail, otime, at, content, change, overwrote = row
    return Revision(
        rid, rev, status, author, origin, json.loads(detail or "{}"), otime, at, json.loads(content),
        json.loads(change or "[]"), bool(overwrote),
    )  # fmt: skip


def history(con: Any, record_id: str) -> list[Revision]:
    rows = con.execute(f"SELECT {_COLUMNS} FROM revisions WHERE record_id = ? ORDER BY rev_no", [record_id]).fetchall()
    return [_revision(row) for row in rows]


def open_conflicts(con: Any, source: str) -> list[Revision]:
    rows = con.execute(
        f"SELECT {_COLUMNS} FROM revisions WHERE source = ? AND status = ? ORDER BY record_id, rev_no",
        [source, CONFLICT],
    ).fetchall()
    return [_revision(row) for row in rows]


def count_open_conflicts(con: Any, source: str) -> int:
    return con.execute("SELECT count(*) FROM revisions WHERE source = ? AND status = ?", [source, CONFLICT]).fetchone()[
        0
    ]


def current_revision(con: Any, record_id: str) -> Revision | None:
    revs = [r for r in history(con, record_id) if r.status not in (CONFLICT, ANSWER)]
    return revs[-1] if revs else None


def describe_origin(origin: str, detail: dict[str, Any]) -> str:
    """`file authored.jsonl line 3 (sha256 1a2b3c4d5e6f)`, `Label Studio task 12 annotation 40 (updated ...)`."""
    if origin.startswith("file:"):
        where = f"file {origin[5:]}"
        if "line" in detail:
            where += f" line {detail['line']}"
        if detail.get("line_sha256"):
            where += f" (sha256 {detail['line_sha256'][:12]})"
        return where
    if origin.startswith("label_studio:"):
        _, project, task = (origin.split(":") + ["", ""])[:3]
        where = f"Label Studio project {project}" + (f" task {task}" if task else "")
        if detail.get("annotation_id") is not None:
            where += f" annotation {detail['annotation_id']}"
        if detail.get("annotation_updated_at"):
            where += f" (updated {detail['annotation_updated_at']})"
        return where
    return origin


def change_lines(change: Iterable[dict[str, Any]], width: int = 100) -> list[str]:
    """One line per JSON Patch operation, values shortened for a terminal."""
    lines = []
    for op in change:
        if op.get("path") == "" and op["op"] == "add":
            lines.append("created")
            continue
        path = op["path"] or "/"
        if op["op"] == "replace":
            lines.append(f"{path}: {_short(op.get('old'), width)} -> {_short(op.get('value'), width)}")
        elif op["op"] == "add":
            lines.append(f"{path}: added {_short(op.get('value'), width)}")
        elif op["op"] == "remove":
            lines.append(f"{path}: removed {_short(op.get('old'), width)}")
        else:
            lines.append(f"{path}: {op['op']} {op.get('from', '')}")
    return lines


def _short(value: Any, width: int) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 3] + "..."
