"""The store's append-only event log, and the batched writes every table goes through: rows and their events in
one transaction, through Arrow tables (row-at-a-time inserts into DuckDB are far too slow for 25,000 records)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import duckdb
import pyarrow as pa

from core.models import utcnow
from core.store_rows import json_or_none

WRITE_BATCH = 2000  # rows per transaction: bounds memory, and each batch commits on its own


class EventLog:
    """The event log, and the writes that log their events (a part of `core.store.Store`)."""

    con: duckdb.DuckDBPyConnection
    _transaction: Callable[[Callable[[], None]], None]  # the Store's: retried with more memory when DuckDB runs out

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
        *,
        reasons_text: str | None = None,  # or: the reasons as stored JSON text, already masked
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
            "reasons": reasons_text if reasons_text is not None else json_or_none(reasons, secrets),
            "detail": json_or_none(detail, secrets),
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
