"""The store's source items: what the loaders yielded, and which of them changed under their records."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from core.batching import batched
from core.models import SourceItem, content_hash, utcnow
from core.store_events import WRITE_BATCH, EventLog
from core.store_rows import UpsertCounts


class SourceItems(EventLog):
    """Source items by source and id (a part of `core.store.Store`)."""

    unreadable_source_ids: set[str]  # source items left out because they do not parse

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
        return self._parsed_source_items(self.source_item_texts_by_id(source, source_ids).items())

    def source_item_texts_by_id(self, source: str, source_ids: Iterable[str]) -> dict[str, str]:
        """`source_items_by_id` as the stored JSON text, not parsed: for a process that parses them elsewhere (a
        large import's worker), which must then add the ids of the texts that do not parse to
        `unreadable_source_ids`."""
        rows = self.con.execute(
            "SELECT source_id, item FROM source_items WHERE source = ? AND source_id IN (SELECT unnest(?))",
            [source, list(source_ids)],
        ).fetchall()
        return dict(rows)

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
