"""The streamed import (a batch of lines at a time, source items looked up per batch) must give exactly the
records and rejections of a one-pass import, and the CLI's import must store them."""

import json
from collections.abc import Sequence
from pathlib import Path

from authoring.file_import import import_authored, stream_authored
from build_split.ingest import import_into_store
from core.models import SourceItem
from core.store import Store
from tests.store_checks import assert_checkpointed

ITEMS = {
    f"h{i}": SourceItem(source="hotpotqa", source_id=f"h{i}", context=f"Alpha {i} beta.", question="Seed?")
    for i in range(1, 5)
}
SCHEMA = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}


def line(source_id: str = "h1", question: str = "What is alpha?", **extra: object) -> str:
    payload = {"source_id": source_id, "question": question, "json_schema": SCHEMA, "ground_truth": {"a": "b"}}
    return json.dumps({**payload, "annotator": "ann", **extra})


LINES = [
    line("h1"),  # 1
    "{broken",  # 2
    line("h2"),  # 3
    line("nope"),  # 4
    line("h3", extra_key=1),  # 5
    line("h1"),  # 6: the same record as line 1, two batches later
    line("h4"),  # 7
    line("h2", question="Another?"),  # 8
]


def write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "authored.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def outcome(result, records) -> tuple[list[str], list[tuple[int, list[str], list[str]]]]:
    rejections = [(n, [r.code for r in reasons], [r.message for r in reasons]) for n, _, reasons in result.rejections]
    return [r.record_id for r in records], rejections


def test_batches_give_the_records_and_rejections_of_one_pass(tmp_path: Path) -> None:
    path = write(tmp_path, LINES)
    whole = import_authored(path, ITEMS)
    for size in (1, 2, 3, 100):
        result, records = stream_authored(path, lambda _ids: ITEMS, batch_size=size)
        assert outcome(result, list(records)) == outcome(whole, whole.records), size
        assert result.lines == whole.lines == 8
    codes = [(n, codes) for n, codes, _ in outcome(whole, whole.records)[1]]
    assert codes == [
        (2, ["malformed_json"]),
        (4, ["unknown_source_id"]),
        (5, ["unknown_field"]),
        (6, ["duplicate_record"]),
    ]


def test_a_duplicate_in_a_later_batch_names_the_first_line(tmp_path: Path) -> None:
    result, records = stream_authored(write(tmp_path, LINES), lambda _ids: ITEMS, batch_size=2)
    assert len(list(records)) == 4
    (duplicate,) = [reasons for n, _, reasons in result.rejections if n == 6]
    assert duplicate[0].code == "duplicate_record" and "as line 1" in duplicate[0].message


def test_only_the_source_items_of_a_batch_are_looked_up(tmp_path: Path) -> None:
    asked: list[list[str]] = []

    def lookup(ids: Sequence[str]) -> dict[str, SourceItem]:
        asked.append(list(ids))
        return {i: ITEMS[i] for i in ids if i in ITEMS}

    result, records = stream_authored(write(tmp_path, LINES), lookup, batch_size=2)
    assert asked == []  # nothing is read before the records are consumed
    assert len(list(records)) == 4
    # Lines 1-2, 3-4, 5-6, 7-8: line 2 is broken, so it names no item. Line 5's unknown field is found after the
    # lookup (the lines of a batch are checked where they are built, maybe in a worker process).
    assert asked == [["h1"], ["h2", "nope"], ["h1", "h3"], ["h2", "h4"]]


def test_cli_import_stores_records_and_rejections_and_skips_unreadable_items(tmp_path: Path) -> None:
    with Store.open(tmp_path / "ws") as store:
        store.upsert_source_items(ITEMS.values())
        # A stored item that no longer parses: its lines are rejected, the run goes on.
        store.con.execute("UPDATE source_items SET item = '{\"source\": \"hotpotqa\"}' WHERE source_id = 'h4'")
        counts, result, _ = import_into_store(store, "hotpotqa", write(tmp_path, LINES))
        assert counts.new == 3 and store.unreadable_source_ids == {"h4"}
        stored = [(row["line_no"], row["reasons"][0]["code"]) for row in store.import_rejections("hotpotqa")]
        assert stored == [
            (2, "malformed_json"),
            (4, "unknown_source_id"),
            (5, "unknown_field"),
            (6, "duplicate_record"),
            (7, "unknown_source_id"),
        ]
        assert len(result.rejections) == 5
        assert_checkpointed(tmp_path / "ws")


def test_source_items_by_id_returns_only_the_asked_readable_items(tmp_path: Path) -> None:
    with Store.open(tmp_path / "ws") as store:
        store.upsert_source_items(ITEMS.values())
        assert store.source_items_by_id("hotpotqa", ["h2", "h3", "missing"]) == {"h2": ITEMS["h2"], "h3": ITEMS["h3"]}
        assert store.source_items_by_id("ami", ["h2"]) == {}
        assert store.source_items_by_id("hotpotqa", []) == {}


def test_an_import_asks_for_the_workers_fork_server_once_as_it_begins(tmp_path: Path, monkeypatch) -> None:
    """Validation checks a large import's records in workers: the import asks for their fork server once, after its
    first batch of lines, with the number read (core/parallel.py decides: tests/test_stage_workers.py)."""
    import build_split.ingest as ingest

    asked: list[int] = []
    monkeypatch.setattr(ingest, "start_fork_server", lambda pending: asked.append(pending) or True)
    monkeypatch.setattr(ingest, "IMPORT_BATCH", 3)  # three records stored per batch: asked after the first only
    with Store.open(tmp_path / "ws") as store:
        store.upsert_source_items(ITEMS.values())
        counts, _, _ = import_into_store(store, "hotpotqa", write(tmp_path, LINES))
        assert counts.new == 4 and asked == [8]
