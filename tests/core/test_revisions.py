"""The revision rules of core/revisions.py, one case each, on a real store."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core import revisions
from core.models import Provenance, Record, RecordState, SourceItem
from core.store import Store

ITEM = SourceItem(source="hotpotqa", source_id="s1", context="Ada Lovelace was born in London in 1815.", question="q")
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def record(city: str) -> Record:
    return Record.build(ITEM, "Where was Ada Lovelace born?", SCHEMA, {"city": city}, Provenance(annotator="a"))


def bring(store: Store, city: str, origin: str, at: datetime, *, overwrite: bool = False) -> str:
    """One incoming version through screen -> upsert -> record, as the import does; returns its verdict."""
    incoming = [revisions.Incoming(record(city), revisions.Origin(origin, {"line": 1}, at), "a")]
    screened = revisions.screen(store.con, incoming, overwrite=overwrite)
    store.upsert_records(screened.to_apply(), RecordState.AUTHORED, "import")
    revisions.record(store.con, screened)
    return screened.decisions[0].verdict


def city(store: Store) -> str:
    [stored] = list(store.records("hotpotqa"))
    return stored.record.output.ground_truth["city"]


@pytest.fixture
def store(tmp_path: Path):
    with Store.open(tmp_path / "ws") as opened:
        opened.upsert_source_items([ITEM])
        yield opened


def test_new_then_the_same_is_unchanged(store: Store) -> None:
    assert bring(store, "London", "file:a.jsonl", T0) == "new"
    assert bring(store, "London", "file:a.jsonl", T0) == "unchanged"
    assert [r.rev_no for r in revisions.history(store.con, record("London").record_id)] == [1]


def test_the_same_origin_newer_replaces_older_is_a_conflict(store: Store) -> None:
    bring(store, "London", "file:a.jsonl", T0)
    assert bring(store, "Paris", "file:a.jsonl", T0 + timedelta(minutes=1)) == "applied"
    assert bring(store, "Rome", "file:a.jsonl", T0 - timedelta(days=1)) == "conflict"
    assert city(store) == "Paris"


def test_another_origin_is_a_conflict_until_overwrite(store: Store) -> None:
    bring(store, "London", "file:a.jsonl", T0)
    assert bring(store, "Paris", "file:b.jsonl", T0 + timedelta(days=1)) == "conflict"
    assert city(store) == "London"
    assert revisions.count_open_conflicts(store.con, "hotpotqa") == 1
    assert bring(store, "Paris", "file:b.jsonl", T0 + timedelta(days=1), overwrite=True) == "overwrote"
    assert city(store) == "Paris"
    assert revisions.count_open_conflicts(store.con, "hotpotqa") == 0
    statuses = [r.status for r in revisions.history(store.con, record("Paris").record_id)]
    assert statuses == [revisions.APPLIED, revisions.SETTLED, revisions.APPLIED]


def test_a_line_brought_before_is_stale_once_the_record_changed(store: Store) -> None:
    bring(store, "London", "file:a.jsonl", T0)
    bring(store, "Paris", "file:b.jsonl", T0, overwrite=True)
    assert bring(store, "London", "file:a.jsonl", T0) == "stale"
    assert city(store) == "Paris" and revisions.count_open_conflicts(store.con, "hotpotqa") == 0


def test_label_studio_updated_after_the_current_revision_replaces_it(store: Store) -> None:
    bring(store, "London", "file:a.jsonl", T0)
    stored_at = revisions.current_revision(store.con, record("London").record_id).recorded_at  # type: ignore[union-attr]
    older = stored_at - timedelta(minutes=5)
    assert bring(store, "Paris", "label_studio:1:7", older) == "conflict"  # made before the file came in
    assert bring(store, "Rome", "label_studio:1:7", stored_at + timedelta(seconds=1)) == "applied"
    assert city(store) == "Rome" and revisions.count_open_conflicts(store.con, "hotpotqa") == 0


def test_change_lines_name_the_path_and_both_values() -> None:
    ops = revisions.change_between({"ground_truth": {"city": "London"}}, {"ground_truth": {"city": "Paris"}})
    assert revisions.change_lines(ops) == ['/ground_truth/city: "London" -> "Paris"']
