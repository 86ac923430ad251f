"""The curation store: one DuckDB file per workspace.

It holds every source item, every record's current state and payloads, an append-only
event log of state changes (with reasons), rejected import lines, split assignments and,
later, the LLM cache. Writes go in batches through Arrow tables: row-at-a-time inserts
into DuckDB are far too slow for 25,000 records.

The Store is assembled from one part per job: `store_source_items`, `store_records`, `store_side_tables` (import
rejections, splits, counts) and `store_events` (the event log and batched writes); `store_connection` opens the
file, `store_migrations` holds its tables and `store_rows` what goes in and out. The names callers use are
importable from here.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb

from core import workspace_access
from core.models import utcnow
from core.store_connection import (
    STORE_FILENAME,
    StoreDamagedError,
    StoreMemoryError,
    StoreTooNewError,
    WorkspaceBusyError,
    WorkspaceError,
    connect,
    is_busy,
    is_out_of_memory,
    open_error,
    store_memory_limit,
)
from core.store_migrations import MIGRATIONS
from core.store_records import Records
from core.store_rows import RecordRow, StateChange, StoredRecord, UpsertCounts
from core.store_side_tables import SideTables
from core.store_source_items import SourceItems
from core.transaction import run_transaction

__all__ = [  # the store's API, for the many callers that import it from here
    "STORE_FILENAME",
    "RecordRow",
    "StateChange",
    "Store",
    "StoreDamagedError",
    "StoreMemoryError",
    "StoreTooNewError",
    "StoredRecord",
    "UpsertCounts",
    "WorkspaceBusyError",
    "WorkspaceError",
]

MEMORY_CEILING = 0.8  # of the machine's RAM: DuckDB's own default, the most a write is retried with


def _memory_ceiling() -> int:
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") * MEMORY_CEILING)
    except (ValueError, OSError, AttributeError):  # not on Linux: no retry beyond the limit
        return 0


class Store(SourceItems, Records, SideTables):
    """Open with `Store.open(workspace)`; use as a context manager."""

    def __init__(self, con: duckdb.DuckDBPyConnection, path: Path, memory_limit: int) -> None:
        self.con = con
        self.path = path
        self.memory_limit = memory_limit  # bytes; raised when a write needs more (`_transaction`)
        self.unreadable_source_ids: set[str] = set()  # source items left out because they do not parse
        self.duckdb_threads: int | None = None  # a limit a stage set (`threads_limited`), else DuckDB's default

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
            raise open_error(workspace, path, exc) from exc
        memory_limit = store_memory_limit()  # a bad setting is named before the store is touched
        # Taken by another process: wait for it to let go between its writes (core/workspace_access.py).
        con = workspace_access.take_turns(workspace, lambda: connect(workspace, path, memory_limit), is_busy)
        store = cls(con, path, memory_limit)
        try:
            store._migrate()
        except duckdb.Error as exc:
            store.con.close()
            raise open_error(workspace, path, exc) from exc
        except StoreTooNewError:
            store.con.close()
            raise
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
            workspace, lambda: connect(workspace, self.path, self.memory_limit), is_busy
        )
        if self.duckdb_threads is not None:  # a stage's limit outlives a hand-over to another process
            self.con.execute(f"SET threads = {self.duckdb_threads}")

    @contextlib.contextmanager
    def threads_limited(self, count: int) -> Iterator[None]:
        """DuckDB's own threads limited to `count` for a while: while worker processes keep every core busy, its
        threads only contend with them for the cores (a 25k-record heuristic judge, two alternating pairs: 0.3 s
        less, and 0.35 s less CPU in this process). The default (one per core) comes back afterwards."""
        self.duckdb_threads = count
        self.con.execute(f"SET threads = {count}")
        try:
            yield
        finally:
            self.duckdb_threads = None
            # A connection lost on the way (a failed hand-over) must not hide why: a new one has the default.
            with contextlib.suppress(duckdb.Error):
                self.con.execute("RESET threads")

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
        known = max(version for version, _ in MIGRATIONS)
        if applied and max(applied) > known:
            # A teammate's newer toolkit changed the store's format: this one would misread it (a row it cannot
            # parse is set aside as unreadable, a table it does not know is left stale), so it touches nothing.
            raise StoreTooNewError(self.path, max(applied), known)
        for version, sql in MIGRATIONS:
            if version in applied:
                continue
            self._transaction(lambda sql=sql, version=version: self._apply_migration(version, sql))

    def _apply_migration(self, version: int, sql: str) -> None:
        self.con.execute(sql)
        self.con.execute("INSERT INTO schema_migrations VALUES (?, ?)", [version, utcnow()])

    def schema_version(self) -> int:
        return self.con.execute("SELECT max(version) FROM schema_migrations").fetchone()[0]
