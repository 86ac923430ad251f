"""A large import checks and builds its lines in a worker process while the main process stores the batch before:
it must store exactly what it stores in one process (records, their texts and hashes, revisions, rejections and
events), and send every line somewhere."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import authoring.file_import as file_import
from authoring.file_lines import LineJob, NeedsItem, ReadyLine, RejectedLine, prepare_line
from build_split.ingest import import_into_store
from core import parallel
from core.models import SourceItem
from core.record_texts import record_texts
from core.store import Store
from tests.authoring.test_file_import_stream import ITEMS, SCHEMA, line

GOOD = 2100  # more than one read batch (2,000 lines): the import takes a worker


def _lines() -> list[str]:
    """Good lines over a few items, and every kind of line the import rejects, spread over both batches."""
    lines = [line(f"h{1 + n % 3}", question=f"What is alpha number {n}?") for n in range(GOOD)]
    lines[5] = "{broken"
    lines[700] = line("nope")  # an unknown source id
    lines[1500] = line("h2", extra_key=1)  # an unknown field
    lines[2050] = line("h1", question="What is alpha number 0?")  # a duplicate of line 1, in the second batch
    lines[2060] = line("h4")  # its stored item no longer parses
    lines[2070] = ""  # a blank line: neither a record nor a rejection
    nan = json.dumps({"source_id": "h1", "question": "NaN?", "json_schema": SCHEMA, "annotator": "ann"})
    lines[10] = nan[:-1] + ', "ground_truth": {"a": NaN}}'  # NaN: read by `json`, stored as pydantic writes it
    lines[20] = line("h3", question="Wh\u0061\u0301t is caf\u00e9?")  # normalised to one Unicode form
    return lines


def _import(tmp_path: Path, name: str, workers: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.setenv("SOB_WORKERS", workers)
    used: list[int | None] = []
    original = parallel.map_batches

    def spy(work: Any, batches: Any, count: int, **options: Any) -> Any:
        used.append(count)
        return original(work, batches, count, **options)

    monkeypatch.setattr(file_import, "map_batches", spy)
    path = tmp_path / "authored.jsonl"  # one file: its path is each revision's origin
    path.write_bytes(("\n".join(_lines()) + "\n").encode("utf-8") + b"\xff\xfe not utf-8\n")
    with Store.open(tmp_path / name / "ws") as store:
        store.upsert_source_items(ITEMS.values())
        store.con.execute("UPDATE source_items SET item = '{\"source\": \"hotpotqa\"}' WHERE source_id = 'h4'")
        counts, result, verdicts = import_into_store(store, "hotpotqa", path)
        records = store.con.execute("SELECT record_id, state, content_hash, record FROM records ORDER BY 1").fetchall()
        revisions = store.con.execute(
            "SELECT record_id, rev_no, status, author, origin, origin_detail, content_hash, content, change "
            "FROM revisions ORDER BY 1, 2"
        ).fetchall()
        events = store.con.execute(
            "SELECT record_id, stage, kind, from_state, to_state, detail FROM events ORDER BY event_id"
        ).fetchall()
        unreadable = set(store.unreadable_source_ids)
    return {
        "workers": used,
        "counts": counts,
        "verdicts": dict(verdicts),
        "lines": result.lines,
        "rejections": [(n, raw, [r.model_dump() for r in reasons]) for n, raw, reasons in result.rejections],
        "records": [(rid, state, digest, _without_time(text)) for rid, state, digest, text in records],
        "revisions": revisions,
        "events": events,
        "unreadable": unreadable,
    }


def _without_time(record_text: str) -> dict[str, Any]:
    record = json.loads(record_text)
    record["provenance"].pop("authored_at")  # when the import began: another moment in each run
    return record


def test_an_import_in_a_worker_stores_what_it_stores_in_one_process(tmp_path: Path, monkeypatch) -> None:
    alone = _import(tmp_path, "alone", "0", monkeypatch)
    helped = _import(tmp_path, "helped", "1", monkeypatch)
    assert alone.pop("workers") == [0] and helped.pop("workers") == [1]
    assert helped == alone
    # Every line went somewhere: a record, or a rejection with its reason (the blank line is no line).
    assert alone["lines"] == GOOD + 1 - 1
    assert alone["counts"].new + len(alone["rejections"]) == alone["lines"]
    codes = {n: reasons[0]["code"] for n, _, reasons in alone["rejections"]}
    assert codes == {
        6: "malformed_json",
        701: "unknown_source_id",
        1501: "unknown_field",
        2051: "duplicate_record",
        2061: "unknown_source_id",
        GOOD + 1: "invalid_utf8",
    }
    assert alone["unreadable"] == {"h4"}


def test_a_worker_sends_texts_not_records_and_they_are_the_records_texts(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text(line("h1") + "\n", encoding="utf-8")
    job = LineJob(1, path.read_bytes(), "h1", ITEMS["h1"].model_dump_json(), "file:a.jsonl", file_import.utcnow())
    here = prepare_line(job)
    sent = file_import.prepare_line_to_send(job)
    assert isinstance(here, ReadyLine) and isinstance(sent, ReadyLine)
    assert here.record is not None and sent.record is None
    assert sent.record_of() == here.record and record_texts(sent.record_of()) == here.texts == sent.texts


def test_a_line_that_names_another_id_than_was_read_asks_for_its_own_item() -> None:
    job = LineJob(1, line("h2").encode(), "h1", ITEMS["h1"], "file:a.jsonl", file_import.utcnow())
    assert prepare_line(job) == NeedsItem(1, "h2")


def test_a_stream_prepares_such_a_line_again_with_its_own_item(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text(line("h2") + "\n" + line("h3") + "\n", encoding="utf-8")
    monkeypatch.setattr(file_import, "named_source_id", lambda data: "h1")  # every line read as naming h1
    result, records = file_import.stream_authored(path, lambda ids: {i: ITEMS[i] for i in ids if i in ITEMS})
    assert [r.metadata.source_id for r in records] == ["h2", "h3"] and not result.rejections


def test_an_item_whose_stored_text_does_not_parse_rejects_its_lines_and_is_reported() -> None:
    job = LineJob(1, line("h1").encode(), "h1", '{"source": "hotpotqa"}', "file:a.jsonl", file_import.utcnow())
    outcome = prepare_line(job)
    assert isinstance(outcome, RejectedLine) and outcome.unreadable_item == "h1"
    assert outcome.reasons[0].code == "unknown_source_id"


def test_an_item_may_come_parsed_or_as_its_stored_text() -> None:
    item: SourceItem = ITEMS["h1"]
    as_text = LineJob(1, line("h1").encode(), "h1", item.model_dump_json(), "file:a.jsonl", file_import.utcnow())
    parsed = LineJob(1, line("h1").encode(), "h1", item, "file:a.jsonl", as_text.authored_at)
    assert prepare_line(as_text) == prepare_line(parsed)


def test_texts_computed_beforehand_store_what_the_store_computes_itself(tmp_path: Path) -> None:
    """A large import hands the store the texts its worker computed; every other writer lets the store compute
    them. Records, revisions and events must be the same, NaN and non-ASCII values included."""
    from core import revisions
    from core.models import Record, RecordState

    item = ITEMS["h1"]
    records = [
        Record.build(item, "Plain?", SCHEMA, {"a": "b"}),
        Record.build(item, "Café, non-ASCII?", SCHEMA, {"a": "café ☕"}),
        Record.build(item, "NaN?", SCHEMA, {"a": float("nan"), "b": 1e-8, "c": 10**30}),
    ]
    stored = []
    for name, given in (("computed", False), ("given", True)):
        with Store.open(tmp_path / name) as store:
            store.upsert_source_items([item])
            origin = revisions.Origin("file:/same.jsonl", {"line": 1}, None)
            incoming = [revisions.Incoming(r, origin, "ann", record_texts(r) if given else None) for r in records]
            screened = revisions.screen(store.con, incoming)
            texts = {i.record.record_id: i.texts for i in incoming if i.texts is not None}
            store.upsert_records(screened.to_apply(), RecordState.AUTHORED, "import", texts=texts)
            revisions.record(store.con, screened)
            stored.append(
                (
                    store.con.execute("SELECT record_id, content_hash, record FROM records ORDER BY 1").fetchall(),
                    store.con.execute(
                        "SELECT record_id, rev_no, content_hash, content FROM revisions ORDER BY 1"
                    ).fetchall(),
                    store.con.execute("SELECT record_id, kind, detail FROM events ORDER BY event_id").fetchall(),
                )
            )
    assert stored[0] == stored[1] and len(stored[0][0]) == 3


def test_the_source_id_a_line_names_is_read_safely_from_any_line() -> None:
    from authoring.file_lines import named_source_id

    assert named_source_id(line("h1").encode()) == "h1"
    deep = b'{"source_id": "h1", "ground_truth": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    assert named_source_id(deep) is None  # no recursion: the line's own check rejects it with its reason
    assert named_source_id(b"{broken") is None and named_source_id(b'["h1"]') is None
    assert named_source_id(b'{"source_id": 7}') is None


def test_an_item_shared_by_several_lines_is_parsed_once(monkeypatch) -> None:
    from authoring import file_lines

    file_lines._parsed_item.cache_clear()
    parsed: list[str] = []
    original = SourceItem.model_validate_json
    monkeypatch.setattr(SourceItem, "model_validate_json", lambda text: parsed.append(text) or original(text))
    text = ITEMS["h1"].model_dump_json()
    for n in range(3):
        job = LineJob(n + 1, line("h1", question=f"Q{n}?").encode(), "h1", text, "file:a.jsonl", file_import.utcnow())
        assert isinstance(prepare_line(job), ReadyLine)
    assert parsed == [text]
