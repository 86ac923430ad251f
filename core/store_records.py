"""The store's records: their current state and payloads, moved between states with an event per move, read
back as a stream or a page at a time, and set aside with a reason when they no longer parse."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import pyarrow as pa
from pydantic import ValidationError

from core import fast_json
from core.batching import batched
from core.derived import read_record
from core.models import Reason, Record, RecordState, utcnow
from core.record_texts import RecordTexts, record_hash
from core.redaction import configured_secrets, redact
from core.store_events import WRITE_BATCH, EventLog
from core.store_rows import (
    ROW_COLUMNS,
    UNREADABLE_RECORD,
    RecordRow,
    StateChange,
    StoredRecord,
    UpsertCounts,
    json_or_none,
    parse_error_summary,
    reasons_payload,
)


class Records(EventLog):
    """Records by id (a part of `core.store.Store`)."""

    def upsert_records(
        self,
        records: Iterable[Record],
        state: RecordState,
        stage: str,
        kind: str = "authored",
        texts: Mapping[str, RecordTexts] | None = None,
    ) -> UpsertCounts:
        """Insert new records or replace edited ones; an unchanged record is left alone. `texts`: the records'
        texts by record id where they were computed already (core/record_texts.py), as a large import does."""
        counts = UpsertCounts()
        for chunk in batched(records, WRITE_BATCH):
            counts += self._upsert_record_chunk(chunk, state, stage, kind, texts or {})
        return counts

    def _upsert_record_chunk(
        self, records: list[Record], state: RecordState, stage: str, kind: str, texts: Mapping[str, RecordTexts]
    ) -> UpsertCounts:
        counts = UpsertCounts()
        batch = {r.record_id: (r, t.record_hash if (t := texts.get(r.record_id)) else record_hash(r)) for r in records}
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
                    "record": t.record_json if (t := texts.get(record_id)) else record.model_dump_json(),
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
            # One text for the record's reasons and its event's (which has none rather than an empty list).
            reasons_text = change.reasons_json if change.reasons_json is not None else reasons_payload(change.reasons)
            reasons = redact(reasons_text, secrets)
            rows.append(
                {
                    "record_id": change.record_id,
                    "state": str(change.to_state),
                    "reasons": reasons,
                    "updated_at": now,
                    "record": change.record.model_dump_json() if change.record else None,
                    "derived": change.derived_json,
                    "validation": redact(change.validation_json, secrets)
                    if change.validation_json is not None
                    else json_or_none(change.validation, secrets),
                    "judge": redact(change.judge_json, secrets)
                    if change.judge_json is not None
                    else json_or_none(change.judge, secrets),
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
                    None,
                    None,
                    secrets,
                    reasons_text=reasons if reasons_text != "[]" else None,
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
            reasons=[Reason.model_validate(r) for r in fast_json.loads(row.reasons)] if row.reasons else [],
            validation=fast_json.loads(row.validation) if row.validation else None,
            judge=fast_json.loads(row.judge) if row.judge else None,
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

    # -- records of source items that changed under them --------------------------------------
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
                    "content_hash": record_hash(record),
                    "reasons": json_or_none(reasons),
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

    def _existing_states(self, batch: dict[str, Any]) -> dict[str, tuple[str, str]]:
        rows = self.con.execute(
            "SELECT record_id, content_hash, state FROM records WHERE record_id IN (SELECT unnest(?))",
            [list(batch)],
        ).fetchall()
        return {rid: (digest, state) for rid, digest, state in rows}
