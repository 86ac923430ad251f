"""The curation store: one DuckDB file per workspace.

It holds every source item, every record's current state and payloads, an append-only
event log of state changes (with reasons), rejected import lines, split assignments and,
later, the LLM cache. Writes go in batches through Arrow tables: row-at-a-time inserts
into DuckDB are far too slow for 25,000 records.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import duckdb
import pyarrow as pa
from pydantic import ValidationError

from core import workspace_access
from core.batching import batched
from core.derived import read_record
from core.models import Reason, Record, RecordState, SourceItem, canonical_json, content_hash, utcnow
from core.redaction import configured_secrets, redact
from core.revisions import TABLE_SQL as REVISIONS_TABLE_SQL
from core.transaction import run_transaction

STORE_FILENAME = "curation.duckdb"
CHECKPOINT_THRESHOLD = "128MB"
# DuckDB keeps every block it has read or written cached up to its memory limit, 80% of the machine's RAM
# by default: a 25k-record run held 250-300 MB of cache on top of the work itself. A limit makes it evict
# (spilling to `curation.duckdb.tmp` beside the store when it must) instead; 256 MB ran 100k records.
STORE_MEMORY_ENV = "SOB_STORE_MEMORY"
DEFAULT_STORE_MEMORY = "256MB"
_MEMORY_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([KMGT]i?B)", re.IGNORECASE)
MEMORY_CEILING = 0.8  # of the machine's RAM: DuckDB's own default, the most a write is retried with
WRITE_BATCH = 2000  # rows per transaction: bounds memory, and each batch commits on its own


UNREADABLE_RECORD = "unreadable_record"


class WorkspaceError(RuntimeError):
    """The workspace or its store cannot be used; the message says why and how to fix it."""


class WorkspaceBusyError(WorkspaceError):
    """Another process holds the workspace's store."""


class StoreDamagedError(WorkspaceError):
    """The store file cannot be read: truncated, overwritten or otherwise not a DuckDB database."""

    def __init__(self, path: Path, detail: object) -> None:
        first_line = str(detail).strip().splitlines()[0] if str(detail).strip() else type(detail).__name__
        super().__init__(
            f"the store {path} is damaged and cannot be read ({first_line}). Move it aside "
            f"(mv {path} {path}.damaged) and run again with your inputs to rebuild it, or restore it from a backup"
        )
        self.path = path


class StoreMemoryError(WorkspaceError):
    """The store needed more memory than SOB_STORE_MEMORY allows."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"the store {path} needed more memory than its limit ({STORE_MEMORY_ENV}={store_memory_setting()}): "
            f"set {STORE_MEMORY_ENV} higher (for example 1GB) and run again; every batch committed before this "
            "one is kept"
        )


def is_out_of_memory(exc: BaseException) -> bool:
    """DuckDB ran out of its memory limit (also when the failure surfaces as a failed commit)."""
    return isinstance(exc, duckdb.OutOfMemoryException) or (
        isinstance(exc, duckdb.Error) and "could not allocate block" in str(exc).lower()
    )


# Versioned migrations: append only, never edit an applied one.
MIGRATIONS: list[tuple[int, str]] = [
    (
        1,
        """
        CREATE TABLE source_items (
            source VARCHAR NOT NULL,
            source_id VARCHAR NOT NULL,
            item JSON NOT NULL,
            content_hash VARCHAR NOT NULL,
            loaded_at TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (source, source_id)
        );
        CREATE TABLE records (
            record_id VARCHAR PRIMARY KEY,
            source VARCHAR NOT NULL,
            source_id VARCHAR NOT NULL,
            state VARCHAR NOT NULL,
            record JSON NOT NULL,
            content_hash VARCHAR NOT NULL,
            reasons JSON,
            validation JSON,
            judge JSON,
            updated_at TIMESTAMPTZ NOT NULL
        );
        CREATE SEQUENCE event_seq START 1;
        CREATE TABLE events (
            event_id BIGINT DEFAULT nextval('event_seq') PRIMARY KEY,
            logged_at TIMESTAMPTZ NOT NULL,
            source VARCHAR NOT NULL,
            source_id VARCHAR,
            record_id VARCHAR,
            stage VARCHAR NOT NULL,
            kind VARCHAR NOT NULL,
            from_state VARCHAR,
            to_state VARCHAR,
            reasons JSON,
            detail JSON
        );
        CREATE TABLE import_rejections (
            source VARCHAR NOT NULL,
            origin VARCHAR NOT NULL,
            line_no INTEGER NOT NULL,
            raw VARCHAR NOT NULL,
            reasons JSON NOT NULL,
            logged_at TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (source, origin, line_no)
        );
        CREATE TABLE split_assignments (
            record_id VARCHAR PRIMARY KEY,
            config VARCHAR NOT NULL,
            split VARCHAR NOT NULL,
            first_release VARCHAR NOT NULL
        );
        """,
    ),
    (
        2,
        """
        CREATE TABLE llm_cache (
            cache_key VARCHAR PRIMARY KEY,
            backend VARCHAR NOT NULL,
            model VARCHAR NOT NULL,
            prompt_version VARCHAR NOT NULL,
            response JSON NOT NULL,
            usage JSON,
            created_at TIMESTAMPTZ NOT NULL
        );
        CREATE TABLE llm_usage (
            run_id VARCHAR NOT NULL,
            stage VARCHAR NOT NULL,
            backend VARCHAR NOT NULL,
            model VARCHAR NOT NULL,
            calls INTEGER NOT NULL,
            cache_hits INTEGER NOT NULL,
            input_tokens BIGINT NOT NULL,
            output_tokens BIGINT NOT NULL,
            cost_usd DOUBLE NOT NULL,
            recorded_at TIMESTAMPTZ NOT NULL
        );
        CREATE TABLE batch_jobs (
            job_name VARCHAR PRIMARY KEY,
            stage VARCHAR NOT NULL,
            source VARCHAR NOT NULL,
            keys JSON NOT NULL,
            state VARCHAR NOT NULL,
            submitted_at TIMESTAMPTZ NOT NULL,
            finished_at TIMESTAMPTZ
        );
        """,
    ),
    (
        3,
        """
        CREATE TABLE IF NOT EXISTS drafts (
            source VARCHAR NOT NULL,
            source_id VARCHAR NOT NULL,
            status VARCHAR NOT NULL,
            reason VARCHAR,
            draft JSON NOT NULL,
            model VARCHAR NOT NULL,
            prompt_version VARCHAR NOT NULL,
            created_at TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (source, source_id)
        );
        """,
    ),
    (
        4,
        # Label Studio: projects per source, tasks per source item, and the push outbox that makes
        # a push safe against a crash between the request and the store update.
        """
        CREATE TABLE IF NOT EXISTS ls_projects (
            base_url VARCHAR NOT NULL,
            source VARCHAR NOT NULL,
            project_id BIGINT NOT NULL,
            title VARCHAR NOT NULL,
            config_hash VARCHAR NOT NULL,
            pull_checkpoint VARCHAR,
            updated_at TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (base_url, source)
        );
        CREATE TABLE IF NOT EXISTS ls_tasks (
            base_url VARCHAR NOT NULL,
            project_id BIGINT NOT NULL,
            source VARCHAR NOT NULL,
            source_id VARCHAR NOT NULL,
            task_id BIGINT NOT NULL,
            pushed_at TIMESTAMPTZ NOT NULL,
            draft_model VARCHAR,
            pushed_question VARCHAR,
            status VARCHAR NOT NULL,
            record_id VARCHAR,
            annotation_id BIGINT,
            annotation_updated_at VARCHAR,
            feedback VARCHAR,
            feedback_pending BOOLEAN NOT NULL DEFAULT false,
            updated_at TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (base_url, project_id, source_id)
        );
        CREATE TABLE IF NOT EXISTS ls_push_outbox (
            base_url VARCHAR NOT NULL,
            project_id BIGINT NOT NULL,
            source VARCHAR NOT NULL,
            source_id VARCHAR NOT NULL,
            batch_id VARCHAR NOT NULL,
            queued_at TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (base_url, project_id, source_id)
        );
        """,
    ),
    (
        5,
        # The residual-error audit (authoring/audit.py): one row per sampled accepted record per round,
        # the Label Studio task it became, and the reviewer's verdict once pulled.
        """
        CREATE TABLE IF NOT EXISTS audit_tasks (
            audit_id VARCHAR NOT NULL,
            source VARCHAR NOT NULL,
            round INTEGER NOT NULL,
            record_id VARCHAR NOT NULL,
            audited JSON NOT NULL,
            drawn_at TIMESTAMPTZ NOT NULL,
            base_url VARCHAR,
            project_id BIGINT,
            task_id BIGINT,
            verdict VARCHAR,
            corrected_answer JSON,
            notes VARCHAR,
            reviewer VARCHAR,
            annotation_id BIGINT,
            annotation_updated_at VARCHAR,
            reviewed_at TIMESTAMPTZ,
            sent_back BOOLEAN NOT NULL DEFAULT false,
            PRIMARY KEY (audit_id, round, record_id)
        );
        """,
    ),
    (
        6,
        # What the stages add to a record (core/derived.py), beside it: a stage no longer rewrites the record.
        "ALTER TABLE records ADD COLUMN IF NOT EXISTS derived JSON;",
    ),
    # Every version of a record's authored content, and the conflicts not applied (core/revisions.py).
    (7, REVISIONS_TABLE_SQL),
]


@dataclass
class StateChange:
    """One record moving to a state, with the payloads the stage produced."""

    record_id: str
    to_state: RecordState
    stage: str
    reasons: list[Reason] = field(default_factory=list)
    record: Record | None = None  # the whole record replaced (its stage outputs then come with it)
    derived_json: str | None = None  # or: the stage outputs beside the record (core/derived.py)
    validation: dict[str, Any] | None = None
    validation_json: str | None = None  # the same, already serialised (by a worker process)
    judge: dict[str, Any] | None = None
    judge_json: str | None = None  # the same, already serialised (by a worker process)


class RecordRow(NamedTuple):
    """One stored record as its columns' text, before parsing."""

    record: str
    state: str
    reasons: str | None
    validation: str | None
    judge: str | None
    record_id: str
    derived: str | None = None


# The columns of a RecordRow, in order.
ROW_COLUMNS = "record, state, reasons, validation, judge, record_id, derived"


@dataclass
class StoredRecord:
    record: Record  # with its stage outputs merged in
    state: RecordState
    reasons: list[Reason]
    validation: dict[str, Any] | None
    judge: dict[str, Any] | None
    derived: str | None = None  # the stage outputs as stored, for a stage that adds to them


@dataclass
class UpsertCounts:
    new: int = 0
    changed: int = 0
    unchanged: int = 0

    def __iadd__(self, other: UpsertCounts) -> UpsertCounts:
        self.new += other.new
        self.changed += other.changed
        self.unchanged += other.unchanged
        return self


def parse_error_summary(error: Exception) -> str:
    """What pydantic found first, without the row's text (which can be huge)."""
    if isinstance(error, ValidationError) and error.errors():
        return str(error.errors()[0]["msg"]).split(" at line ")[0]
    return " ".join(str(error).split())[:160]


def _is_busy(exc: BaseException) -> bool:
    return isinstance(exc, WorkspaceBusyError)


def _open_error(workspace: Path, path: Path, exc: Exception) -> WorkspaceError:
    """Name what stops the store from opening, and how to fix it."""
    text = str(exc)
    lowered = text.lower()
    if "could not set lock" in lowered or "conflicting lock" in lowered:
        return WorkspaceBusyError(
            f"workspace {workspace} is in use by another process ({exc}). "
            "Wait for that run to finish, or use another --workspace."
        )
    if isinstance(exc, PermissionError) or "permission denied" in lowered or "read-only" in lowered:
        return WorkspaceError(
            f"workspace {workspace} is not writable ({text.splitlines()[0]}): give yourself write access "
            f"(chmod -R u+w {workspace}) or pass another --workspace"
        )
    if isinstance(exc, OSError):
        return WorkspaceError(f"workspace {workspace} cannot be used: {exc}")
    if is_out_of_memory(exc):
        return StoreMemoryError(path)
    return StoreDamagedError(path, exc)


def payload_json(value: Any) -> str:
    """The JSON text a payload (reasons, a verdict, an event's detail) is stored as, before masking."""
    return json.dumps(value, ensure_ascii=False, default=str)


def store_memory_setting() -> str:
    """What SOB_STORE_MEMORY says (a size such as 512MB or 2GB), or the default."""
    return os.environ.get(STORE_MEMORY_ENV, "").strip() or DEFAULT_STORE_MEMORY


def store_memory_limit() -> int:
    """The store's memory limit in bytes, as DuckDB reads the setting ('256MB' is 256,000,000 bytes and
    '1GiB' 1,073,741,824); ValueError naming SOB_STORE_MEMORY when it is no size."""
    value = store_memory_setting()
    match = _MEMORY_SIZE.fullmatch(value)
    if match is None:
        raise ValueError(f"{STORE_MEMORY_ENV}={value!r}: expected a size such as 512MB or 2GB")
    number, unit = float(match.group(1)), match.group(2).upper()
    base = 1024 if "I" in unit else 1000
    return int(number * base ** ("KMGT".index(unit[0]) + 1))


def _memory_ceiling() -> int:
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") * MEMORY_CEILING)
    except (ValueError, OSError, AttributeError):  # not on Linux: no retry beyond the limit
        return 0


def _connect(workspace: Path, path: Path, memory_limit: int) -> duckdb.DuckDBPyConnection:
    try:
        con = duckdb.connect(str(path))
    except (duckdb.Error, OSError) as exc:
        raise _open_error(workspace, path, exc) from exc
    try:
        # DuckDB checkpoints (rewrites changed tables into the file) whenever 16 MB of WAL has built up:
        # with whole records of several KB per row, a 25k-record stage then checkpoints dozens of times,
        # each slower as the store grows. A larger WAL checkpoints a few times per run instead; every
        # commit is still in the WAL on disk, so nothing committed is lost on a crash.
        con.execute(f"SET checkpoint_threshold = '{CHECKPOINT_THRESHOLD}'")
        con.execute(f"SET memory_limit = '{memory_limit}B'")
    except duckdb.Error as exc:
        con.close()
        raise _open_error(workspace, path, exc) from exc
    return con


def _json_or_none(value: Any, secrets: tuple[str, ...] | None = None) -> str | None:
    """JSON text with every configured secret masked (reasons, verdicts and event details are stored so)."""
    return None if value is None else redact(payload_json(value), secrets)


class Store:
    """Open with `Store.open(workspace)`; use as a context manager."""

    def __init__(self, con: duckdb.DuckDBPyConnection, path: Path, memory_limit: int) -> None:
        self.con = con
        self.path = path
        self.memory_limit = memory_limit  # bytes; raised when a write needs more (`_transaction`)
        self.unreadable_source_ids: set[str] = set()  # source items left out because they do not parse

    # -- lifecycle -------------------------------------------------------------------------
    @classmethod
    def open(cls, workspace: Path | str) -> Store:
        workspace = Path(workspace)
        if workspace.exists() and not workspace.is_dir():
            raise WorkspaceError(
                f"--workspace {workspace} is a file, not a folder: pass a folder (it is created when missing)"
            )
        path = workspace / STORE_FILENAME
        try:
            workspace.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise _open_error(workspace, path, exc) from exc
        memory_limit = store_memory_limit()  # a bad setting is named before the store is touched
        # Taken by another process: wait for it to let go between its writes (core/workspace_access.py).
        con = workspace_access.take_turns(workspace, lambda: _connect(workspace, path, memory_limit), _is_busy)
        store = cls(con, path, memory_limit)
        try:
            store._migrate()
        except duckdb.Error as exc:
            store.con.close()
            raise _open_error(workspace, path, exc) from exc
        return store

    def close(self) -> None:
        self.con.close()

    def checkpoint(self) -> None:
        """Write what a stage changed into the store file now, at the stage's end, and open the store afresh.

        Left to DuckDB, the checkpoint comes whenever the WAL passes its threshold, often in the middle of the
        next stage, whose memory it then adds to (about +100 MB at the peak of a 25k-record run). And the
        connection that wrote 25k records reads them back 3-4 times slower than a fresh one (measured: reading
        every page of a 25k-record validation, 2.1 s against 0.6 s), so `store.con` is replaced: call this
        only with no cursor of the old connection still in use."""
        self.con.execute("CHECKPOINT")
        self.con.close()
        # Another process waiting for the store gets it now; this one takes its turn after it (never an error).
        workspace_access.hand_over(self.path.parent, workspace_access.waiting_requests(self.path.parent))
        self._reconnect()

    def _reconnect(self) -> None:
        workspace = self.path.parent
        self.con = workspace_access.take_turns(
            workspace, lambda: _connect(workspace, self.path, self.memory_limit), _is_busy
        )

    def let_waiting_in(self) -> bool:
        """Between writes: when another process waits for the store (`--status`, a release from another
        terminal), write what is committed into the file, let go, and take the store again after it. Call only
        with no cursor of the connection still in use. Returns whether it let someone in."""
        waiting = workspace_access.waiting_requests(self.path.parent)
        if not waiting:
            return False
        self.con.execute("CHECKPOINT")
        self.con.close()
        workspace_access.hand_over(self.path.parent, waiting)
        self._reconnect()
        return True

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _transaction(self, work: Callable[[], None]) -> None:
        """Run `work` in one transaction. When DuckDB runs out of the store's memory limit before the commit
        (a large batch of a large store), the limit is doubled, up to DuckDB's own default of 80% of RAM, and
        the whole transaction runs again: nothing of the failed attempt was committed."""
        run_transaction(self.con, work, retry_when=lambda exc: is_out_of_memory(exc) and self._raise_memory_limit())

    def _raise_memory_limit(self) -> bool:
        ceiling = _memory_ceiling()
        if self.memory_limit >= ceiling:
            return False
        self.memory_limit = min(self.memory_limit * 2, ceiling)
        self.con.execute(f"SET memory_limit = '{self.memory_limit}B'")
        return True

    def _migrate(self) -> None:
        self.con.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ)"
        )
        applied = {row[0] for row in self.con.execute("SELECT version FROM schema_migrations").fetchall()}
        for version, sql in MIGRATIONS:
            if version in applied:
                continue
            self._transaction(lambda sql=sql, version=version: self._apply_migration(version, sql))

    def _apply_migration(self, version: int, sql: str) -> None:
        self.con.execute(sql)
        self.con.execute("INSERT INTO schema_migrations VALUES (?, ?)", [version, utcnow()])

    def schema_version(self) -> int:
        return self.con.execute("SELECT max(version) FROM schema_migrations").fetchone()[0]

    # -- source items ------------------------------------------------------------------------
    def upsert_source_items(self, items: Iterable[SourceItem], stage: str = "load") -> UpsertCounts:
        """Insert new items, replace changed ones, leave unchanged ones alone (in bounded batches)."""
        counts = UpsertCounts()
        for chunk in batched(items, WRITE_BATCH):
            counts += self._upsert_source_chunk(chunk, stage)
        return counts

    def _upsert_source_chunk(self, items: list[SourceItem], stage: str) -> UpsertCounts:
        counts = UpsertCounts()
        batch: dict[tuple[str, str], tuple[SourceItem, str]] = {}
        for item in items:
            batch[(item.source, item.source_id)] = (item, content_hash(item.model_dump(mode="json")))
        if not batch:
            return counts
        existing = self._existing_hashes("source_items", "source || '\x1f' || source_id", batch)
        rows: list[dict[str, Any]] = []
        events: list[dict[str, Any]] = []
        now = utcnow()
        for (source, source_id), (item, digest) in batch.items():
            old = existing.get(f"{source}\x1f{source_id}")
            if old == digest:
                counts.unchanged += 1
                continue
            kind = "source_changed" if old else "source_loaded"
            counts.changed += bool(old)
            counts.new += not old
            rows.append(
                {
                    "source": source,
                    "source_id": source_id,
                    "item": item.model_dump_json(),
                    "content_hash": digest,
                    "loaded_at": now,
                }
            )
            events.append(self._event(source, source_id, None, stage, kind, None, None, None, None))
        self._write(
            "source_items",
            rows,
            conflict="(source, source_id) DO UPDATE SET item = excluded.item, "
            "content_hash = excluded.content_hash, loaded_at = excluded.loaded_at",
            events=events,
        )
        return counts

    def source_items(self, source: str) -> dict[str, SourceItem]:
        """Every readable source item by id. One that no longer parses (stored before the input limits) is
        left out, so it cannot stop the run; loading its source again replaces it."""
        rows = self.con.execute("SELECT source_id, item FROM source_items WHERE source = ?", [source]).fetchall()
        return self._parsed_source_items(rows)

    def source_items_by_id(self, source: str, source_ids: Iterable[str]) -> dict[str, SourceItem]:
        """The readable source items among `source_ids` (a batch's worth: the rest stay in the store).
        Unknown ids are simply absent; unreadable ones are left out as in `source_items`."""
        rows = self.con.execute(
            "SELECT source_id, item FROM source_items WHERE source = ? AND source_id IN (SELECT unnest(?))",
            [source, list(source_ids)],
        ).fetchall()
        return self._parsed_source_items(rows)

    def _parsed_source_items(self, rows: Iterable[tuple[str, str]]) -> dict[str, SourceItem]:
        items = {}
        for source_id, text in rows:
            try:
                items[source_id] = SourceItem.model_validate_json(text)
            except ValidationError:
                self.unreadable_source_ids.add(source_id)
        return items

    def count_source_items(self, source: str) -> int:
        return self.con.execute("SELECT count(*) FROM source_items WHERE source = ?", [source]).fetchone()[0]

    # -- source items that changed under their records -----------------------------------------
    def changed_source_ids(self, source: str) -> tuple[list[str], int]:
        """Source ids with a `source_changed` event not yet re-checked, and the last such event id.

        Read from the event log (written in the same transaction as the item), so a run killed
        between loading and re-checking leaves the work for the next run instead of losing it.
        """
        done = self.con.execute(
            "SELECT max(CAST(json_extract(detail, '$.through_event_id') AS BIGINT)) FROM events "
            "WHERE source = ? AND kind = 'source_recheck'",
            [source],
        ).fetchone()[0]
        rows = self.con.execute(
            "SELECT source_id, max(event_id) FROM events WHERE source = ? AND kind = 'source_changed' "
            "AND event_id > ? GROUP BY source_id ORDER BY source_id",
            [source, done or 0],
        ).fetchall()
        return [row[0] for row in rows], max((row[1] for row in rows), default=done or 0)

    def records_of_items(self, source: str, source_ids: Sequence[str]) -> list[StoredRecord]:
        rows = self.con.execute(
            f"SELECT {ROW_COLUMNS} FROM records "
            "WHERE source = ? AND source_id IN (SELECT unnest(?)) ORDER BY record_id",
            [source, list(source_ids)],
        ).fetchall()
        return [stored for row in rows if (stored := self.read_row(RecordRow(*row))) is not None]

    def reopen_records(
        self,
        source: str,
        reopened: Sequence[tuple[Record, RecordState, Reason]],
        stage: str,
        through_event_id: int,
    ) -> None:
        """Records rebuilt from a changed source item go back to `authored` (their old checks and
        verdicts cleared, the reason kept), and the re-check is marked done, in one transaction."""
        now = utcnow()
        rows: list[dict[str, Any]] = []
        events: list[dict[str, Any]] = []
        for record, old_state, reason in reopened:
            reasons = [reason.model_dump()]
            rows.append(
                {
                    "record_id": record.record_id,
                    "source": record.metadata.source,
                    "source_id": record.metadata.source_id,
                    "state": str(RecordState.AUTHORED),
                    "record": record.model_dump_json(),
                    "content_hash": content_hash(record.model_dump(mode="json", exclude={"provenance"})),
                    "reasons": _json_or_none(reasons),
                    "validation": None,
                    "judge": None,
                    "updated_at": now,
                }
            )
            events.append(
                self._event(
                    record.metadata.source,
                    record.metadata.source_id,
                    record.record_id,
                    stage,
                    "state_change",
                    str(old_state),
                    str(RecordState.AUTHORED),
                    reasons,
                    None,
                )
            )
        mark = {"through_event_id": through_event_id, "reopened": len(rows)}
        events.append(self._event(source, None, None, stage, "source_recheck", None, None, None, mark))
        self._write(
            "records",
            rows,
            conflict="(record_id) DO UPDATE SET state = excluded.state, record = excluded.record, "
            "content_hash = excluded.content_hash, reasons = excluded.reasons, validation = NULL, judge = NULL, "
            "derived = NULL, "
            "updated_at = excluded.updated_at",
            events=events,
        )

    # -- records -----------------------------------------------------------------------------
    def upsert_records(
        self, records: Iterable[Record], state: RecordState, stage: str, kind: str = "authored"
    ) -> UpsertCounts:
        """Insert new records or replace edited ones; an unchanged record is left alone."""
        counts = UpsertCounts()
        for chunk in batched(records, WRITE_BATCH):
            counts += self._upsert_record_chunk(chunk, state, stage, kind)
        return counts

    def _upsert_record_chunk(self, records: list[Record], state: RecordState, stage: str, kind: str) -> UpsertCounts:
        counts = UpsertCounts()
        batch = {r.record_id: (r, content_hash(r.model_dump(mode="json", exclude={"provenance"}))) for r in records}
        if not batch:
            return counts
        existing = self._existing_states(batch)
        rows: list[dict[str, Any]] = []
        events: list[dict[str, Any]] = []
        now = utcnow()
        secrets = configured_secrets()  # read once for the whole batch
        for record_id, (record, digest) in batch.items():
            old = existing.get(record_id)
            if old and old[0] == digest:
                counts.unchanged += 1
                continue
            counts.changed += bool(old)
            counts.new += not old
            rows.append(
                {
                    "record_id": record_id,
                    "source": record.metadata.source,
                    "source_id": record.metadata.source_id,
                    "state": str(state),
                    "record": record.model_dump_json(),
                    "content_hash": digest,
                    "reasons": None,
                    "validation": None,
                    "judge": None,
                    "updated_at": now,
                }
            )
            events.append(
                self._event(
                    record.metadata.source,
                    record.metadata.source_id,
                    record_id,
                    stage,
                    kind if not old else f"{kind}_edit",
                    old[1] if old else None,
                    str(state),
                    None,
                    {"content_hash": digest, "annotator": record.provenance.annotator},
                    secrets,
                )
            )
        self._write(
            "records",
            rows,
            conflict="(record_id) DO UPDATE SET state = excluded.state, record = excluded.record, "
            "content_hash = excluded.content_hash, reasons = NULL, validation = NULL, judge = NULL, derived = NULL, "
            "updated_at = excluded.updated_at",
            events=events,
        )
        return counts

    def apply(self, changes: Sequence[StateChange]) -> None:
        """Move records to new states in one transaction, logging an event per move."""
        if not changes:
            return
        ids = [c.record_id for c in changes]
        current = {
            record_id: (state, source, source_id)
            for record_id, state, source, source_id in self.con.execute(
                "SELECT record_id, state, source, source_id FROM records WHERE record_id = ANY(?)", [ids]
            ).fetchall()
        }
        rows, events = [], []
        now = utcnow()
        secrets = configured_secrets()  # read once for the whole batch
        for change in changes:
            if change.record_id not in current:
                raise KeyError(f"unknown record {change.record_id}")
            old_state, source, source_id = current[change.record_id]
            reasons = [r.model_dump() for r in change.reasons]
            rows.append(
                {
                    "record_id": change.record_id,
                    "state": str(change.to_state),
                    "reasons": _json_or_none(reasons, secrets),
                    "updated_at": now,
                    "record": change.record.model_dump_json() if change.record else None,
                    "derived": change.derived_json,
                    "validation": redact(change.validation_json, secrets)
                    if change.validation_json is not None
                    else _json_or_none(change.validation, secrets),
                    "judge": redact(change.judge_json, secrets)
                    if change.judge_json is not None
                    else _json_or_none(change.judge, secrets),
                }
            )
            events.append(
                self._event(
                    source,
                    source_id,
                    change.record_id,
                    change.stage,
                    "state_change",
                    old_state,
                    str(change.to_state),
                    reasons or None,
                    None,
                    secrets,
                )
            )

        def work() -> None:
            self._update_records(rows)
            self._insert_events(events)

        self._transaction(work)

    # Columns a state change may set; one it leaves as None keeps its stored value.
    _PAYLOAD_COLUMNS = ("record", "derived", "validation", "judge")
    _CHANGE_SCHEMA = pa.schema(
        [
            ("record_id", pa.string()),
            ("state", pa.string()),
            ("reasons", pa.string()),
            ("updated_at", pa.timestamp("us", tz="UTC")),
            *((name, pa.string()) for name in _PAYLOAD_COLUMNS),
        ]
    )

    def _update_records(self, rows: list[dict[str, Any]]) -> None:
        """One UPDATE per set of columns the rows change. A column is assigned only where it changes: DuckDB
        writes every assigned value to its WAL and rewrites it at the next checkpoint, so assigning a record
        its own ~6 KB text (`coalesce(new, old)`) would cost as much as changing it."""
        shapes: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for row in rows:
            shape = tuple(name for name in self._PAYLOAD_COLUMNS if row[name] is not None)
            if "record" in shape and "derived" not in shape:
                shape += ("derived",)  # a whole record replaced carries its own stage outputs: the old ones go
            shapes.setdefault(shape, []).append(row)
        for shape, group in shapes.items():
            columns = ("state", "reasons", "updated_at", *shape)
            schema = pa.schema([self._CHANGE_SCHEMA.field(name) for name in ("record_id", *columns)])
            table = pa.Table.from_pylist(group, schema=schema)
            assignments = ", ".join(f"{name} = c.{name}" for name in columns)
            self.con.register("_changes", table)
            self.con.execute(f"UPDATE records SET {assignments} FROM _changes c WHERE records.record_id = c.record_id")
            self.con.unregister("_changes")

    def records(
        self,
        source: str,
        states: Sequence[RecordState] | None = None,
        batch_size: int = 2000,
        ordered: bool = True,
    ) -> Iterator[StoredRecord]:
        """Stream records of a source (optionally in some states), by record id unless `ordered=False`.

        The read runs on its own cursor, a snapshot: a stage may move the records it reads while it
        reads them. Unordered, it is one streaming scan that never holds more than a batch in memory.
        """
        sql = f"SELECT {ROW_COLUMNS} FROM records WHERE source = ?"
        params: list[Any] = [source]
        if states:
            sql += " AND state IN (SELECT unnest(?))"
            params.append([str(s) for s in states])
        cursor = self.con.cursor()
        cursor.execute(sql + (" ORDER BY record_id" if ordered else ""), params)
        while chunk := cursor.fetchmany(batch_size):
            for row in chunk:
                stored = self.read_row(RecordRow(*row))
                if stored is not None:
                    yield stored
        cursor.close()

    def read_row(self, row: RecordRow) -> StoredRecord | None:
        """The parsed row, or None when it no longer parses (it is then set aside with its reason)."""
        try:
            return self._stored(row)
        except (ValidationError, ValueError) as exc:
            self.set_aside(row, exc)
            return None

    ID_RUN_PAGES = 20  # pages of ids read per scan (a 1,000-row page: 20,000 ids, about 2 MB)

    def record_pages(self, source: str, states: Sequence[RecordState], page_size: int = 1000) -> Iterator[RecordRow]:
        """The rows in `states` as text, by record id, read a page at a time with no read left open: a stage
        that moves the rows it reads out of `states` (validation, judging) then does not make DuckDB keep
        every row's old version for an open read (hundreds of MB on a 25k-record run). Each page starts after
        the last id of the one before, so a row is read once even if it stays in `states`."""
        # Ids first, then the rows a page at a time: one query doing both would read every row's whole record
        # to sort them (the records table is one row group), three times slower on a 25k-record store. Ids
        # come in runs of many pages, each run one scan; a row is read with its state checked again.
        page_ids = (
            "SELECT record_id FROM records "
            "WHERE source = ? AND state = ANY(?) AND record_id > ? ORDER BY record_id LIMIT ?"
        )
        page_rows = f"SELECT {ROW_COLUMNS} FROM records WHERE record_id = ANY(?) AND state = ANY(?) ORDER BY record_id"
        wanted = [str(s) for s in states]
        last = ""
        run = page_size * self.ID_RUN_PAGES
        while ids := [row[0] for row in self.con.execute(page_ids, [source, wanted, last, run]).fetchall()]:
            for start in range(0, len(ids), page_size):
                for row in self.con.execute(page_rows, [ids[start : start + page_size], wanted]).fetchall():
                    yield RecordRow(*row)
            last = ids[-1]

    def set_aside(self, row: RecordRow, error: Exception | str) -> None:
        """A stored row that no longer parses (written before the input limits, or by hand) is rejected with
        a reason instead of stopping every later run; its text stays in the store for inspection. `error`: the
        parse error, or its summary when the row was parsed in a worker process."""
        if row.state == RecordState.REJECTED and row.reasons and UNREADABLE_RECORD in row.reasons:
            return  # already set aside
        detail = error if isinstance(error, str) else parse_error_summary(error)
        reason = Reason(
            stage="store",
            code=UNREADABLE_RECORD,
            message=f"the stored record cannot be read back ({detail}); it is set aside "
            "and stays in the store; author it again within the input limits",
        )
        self.apply([StateChange(row.record_id, RecordState.REJECTED, "store", reasons=[reason])])

    def unreadable_records(self, source: str) -> list[tuple[str, str, list[Reason]]]:
        """(record id, source id, reasons) of the records set aside because they cannot be read back."""
        rows = self.con.execute(
            "SELECT record_id, source_id, reasons FROM records WHERE source = ? AND state = ? AND contains(reasons, ?) "
            "ORDER BY record_id",
            [source, str(RecordState.REJECTED), UNREADABLE_RECORD],
        ).fetchall()
        return [(rid, sid, [Reason.model_validate(r) for r in json.loads(text)]) for rid, sid, text in rows]

    @staticmethod
    def _stored(row: RecordRow) -> StoredRecord:
        return StoredRecord(
            record=read_record(row.record, row.derived),
            state=RecordState(row.state),
            reasons=[Reason.model_validate(r) for r in json.loads(row.reasons)] if row.reasons else [],
            validation=json.loads(row.validation) if row.validation else None,
            judge=json.loads(row.judge) if row.judge else None,
            derived=row.derived,
        )

    def record_ids(self, source: str, states: Sequence[RecordState]) -> list[str]:
        rows = self.con.execute(
            "SELECT record_id FROM records WHERE source = ? AND state IN (SELECT unnest(?)) ORDER BY record_id",
            [source, [str(s) for s in states]],
        ).fetchall()
        return [row[0] for row in rows]

    def count_in_state(self, source: str, state: RecordState) -> int:
        return self.con.execute(
            "SELECT count(*) FROM records WHERE source = ? AND state = ?", [source, str(state)]
        ).fetchone()[0]

    # -- import rejections ---------------------------------------------------------------------
    def add_import_rejections(
        self, source: str, origin: str, rejections: Sequence[tuple[int, str, list[Reason]]]
    ) -> int:
        """Keep lines that could not become records, so they are counted and never lost."""
        rows = [
            {
                "source": source,
                "origin": origin,
                "line_no": line_no,
                "raw": redact(raw),
                "reasons": redact(json.dumps([r.model_dump() for r in reasons], ensure_ascii=False)),
                "logged_at": utcnow(),
            }
            for line_no, raw, reasons in rejections
        ]
        self._write(
            "import_rejections",
            rows,
            conflict="(source, origin, line_no) DO UPDATE SET raw = excluded.raw, reasons = excluded.reasons, "
            "logged_at = excluded.logged_at",
        )
        return len(rows)

    def clear_import_rejections(self, source: str, origin: str) -> None:
        self.con.execute("DELETE FROM import_rejections WHERE source = ? AND origin = ?", [source, origin])

    def import_rejections(self, source: str) -> list[dict[str, Any]]:
        rows = self.con.execute(
            "SELECT origin, line_no, raw, reasons FROM import_rejections WHERE source = ? ORDER BY origin, line_no",
            [source],
        ).fetchall()
        return [{"origin": o, "line_no": n, "raw": raw, "reasons": json.loads(reasons)} for o, n, raw, reasons in rows]

    # -- splits --------------------------------------------------------------------------------
    def split_assignments(self, config: str) -> dict[str, str]:
        return dict(
            self.con.execute("SELECT record_id, split FROM split_assignments WHERE config = ?", [config]).fetchall()
        )

    def assign_splits(self, config: str, assignments: dict[str, str], release: str) -> None:
        rows = [
            {"record_id": rid, "config": config, "split": split, "first_release": release}
            for rid, split in assignments.items()
        ]
        self._write("split_assignments", rows, conflict="(record_id) DO NOTHING")

    # -- reporting -----------------------------------------------------------------------------
    def state_counts(self, source: str) -> dict[str, int]:
        return dict(
            self.con.execute(
                "SELECT state, count(*) FROM records WHERE source = ? GROUP BY state ORDER BY state", [source]
            ).fetchall()
        )

    def reason_counts(self, source: str) -> list[tuple[str, str, int]]:
        """(stage, code, records) for records currently rejected, bounced or held in review, plus import rejections."""
        sql = """
            WITH r AS (
                SELECT record_id, unnest(from_json(reasons, '[{"stage":"VARCHAR","code":"VARCHAR"}]')) AS reason
                FROM records WHERE source = ? AND reasons IS NOT NULL
                  AND state IN ('rejected', 'needs_revision', 'needs_review', 'judge_error')
            ),
            i AS (
                SELECT origin || ':' || line_no AS record_id,
                       unnest(from_json(reasons, '[{"stage":"VARCHAR","code":"VARCHAR"}]')) AS reason
                FROM import_rejections WHERE source = ?
            )
            SELECT reason.stage, reason.code, count(DISTINCT record_id) AS n
            FROM (SELECT * FROM r UNION ALL SELECT * FROM i)
            GROUP BY 1, 2 ORDER BY 1, n DESC, 2
        """
        return [tuple(row) for row in self.con.execute(sql, [source, source]).fetchall()]

    def events(self, record_id: str | None = None, source: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT * FROM events WHERE 1=1"
        params: list[Any] = []
        if record_id:
            sql += " AND record_id = ?"
            params.append(record_id)
        if source:
            sql += " AND source = ?"
            params.append(source)
        cursor = self.con.execute(sql + " ORDER BY event_id", params)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def add_event(self, source: str, stage: str, kind: str, detail: dict[str, Any] | None = None) -> None:
        self._insert_events([self._event(source, None, None, stage, kind, None, None, None, detail)])

    # -- internals -----------------------------------------------------------------------------
    @staticmethod
    def _event(
        source: str,
        source_id: str | None,
        record_id: str | None,
        stage: str,
        kind: str,
        from_state: str | None,
        to_state: str | None,
        reasons: Any,
        detail: Any,
        secrets: tuple[str, ...] | None = None,  # `configured_secrets()` read once for a batch of events
    ) -> dict[str, Any]:
        return {
            "logged_at": utcnow(),
            "source": source,
            "source_id": source_id,
            "record_id": record_id,
            "stage": stage,
            "kind": kind,
            "from_state": from_state,
            "to_state": to_state,
            "reasons": _json_or_none(reasons, secrets),
            "detail": _json_or_none(detail, secrets),
        }

    _EVENT_SCHEMA = pa.schema(
        [
            ("logged_at", pa.timestamp("us", tz="UTC")),
            ("source", pa.string()),
            ("source_id", pa.string()),
            ("record_id", pa.string()),
            ("stage", pa.string()),
            ("kind", pa.string()),
            ("from_state", pa.string()),
            ("to_state", pa.string()),
            ("reasons", pa.string()),
            ("detail", pa.string()),
        ]
    )

    def _insert_events(self, events: list[dict[str, Any]]) -> None:
        if not events:
            return
        table = pa.Table.from_pylist(events, schema=self._EVENT_SCHEMA)
        self.con.register("_events", table)
        cols = ", ".join(self._EVENT_SCHEMA.names)
        self.con.execute(f"INSERT INTO events ({cols}) SELECT {cols} FROM _events")
        self.con.unregister("_events")

    def _write(
        self,
        table_name: str,
        rows: list[dict[str, Any]],
        conflict: str,
        events: list[dict[str, Any]] | None = None,
    ) -> None:
        """Insert rows (with ON CONFLICT) and their events in one transaction."""
        if not rows and not events:
            return
        table = pa.Table.from_pylist(rows) if rows else None

        def work() -> None:
            if table is not None:
                self.con.register("_rows", table)
                cols = ", ".join(table.column_names)
                self.con.execute(f"INSERT INTO {table_name} ({cols}) SELECT {cols} FROM _rows ON CONFLICT {conflict}")
                self.con.unregister("_rows")
            self._insert_events(events or [])

        self._transaction(work)

    def _existing_hashes(self, table: str, key_sql: str, batch: dict[tuple[str, str], Any]) -> dict[str, str]:
        keys = [f"{s}\x1f{i}" for s, i in batch]
        return dict(
            self.con.execute(
                f"SELECT {key_sql} AS k, content_hash FROM {table} WHERE {key_sql} IN (SELECT unnest(?))",
                [keys],
            ).fetchall()
        )

    def _existing_states(self, batch: dict[str, Any]) -> dict[str, tuple[str, str]]:
        rows = self.con.execute(
            "SELECT record_id, content_hash, state FROM records WHERE record_id IN (SELECT unnest(?))",
            [list(batch)],
        ).fetchall()
        return {rid: (digest, state) for rid, digest, state in rows}


def canonical(value: Any) -> str:
    return canonical_json(value)
