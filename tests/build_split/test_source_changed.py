"""A reloaded source item whose context or seed answer changed sends its records back through
validation and judging; the next release carries the new context and the changelog lists it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from authoring.source_changes import recheck_changed_sources
from build_split.cli import main
from build_split.sources import sample_authored, sample_input
from core.models import Reason, Record, RecordState, SourceItem
from core.store import StateChange, Store

ADDED = " The observatory's archive holds its letters from those years."
FIRST = "sob-sample-0001"  # its authored record is accepted by the sample run


def write_input(path: Path, change: dict[str, str] | None = None) -> None:
    rows = json.loads(sample_input("hotpotqa").read_text(encoding="utf-8"))
    for row in rows:
        if row["_id"] == FIRST and change:
            if "sentence" in change:
                title, sentences = row["context"][1]
                row["context"][1] = [title, [*sentences[:-1], sentences[-1] + change["sentence"]]]
            if "answer" in change:
                row["answer"] = change["answer"]
    path.write_text(json.dumps(rows), encoding="utf-8")


def run(ws: Path, data: Path, *extra: str) -> int:
    return main(
        [
            "--source",
            "hotpotqa",
            "--workspace",
            str(ws),
            "--input",
            str(data),
            "--authored",
            str(sample_authored("hotpotqa")),
            "--judge",
            "heuristic",
            "--allow-unreviewed",
            *extra,
        ]
    )


def first_record(ws: Path) -> tuple[Record, RecordState, list[dict]]:
    with Store.open(ws) as store:
        [stored] = [
            s
            for s in store.records("hotpotqa")
            if s.record.metadata.source_id == FIRST and s.record.input.question.startswith("Which university")
        ]
        return stored.record, stored.state, store.events(record_id=stored.record.record_id)


def test_a_changed_context_is_checked_again_released_and_listed_as_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws, data = tmp_path / "ws", tmp_path / "hotpot.json"
    write_input(data)
    assert run(ws, data, "--release", "0.1.0") == 0
    record, state, _ = first_record(ws)
    assert state == RecordState.ACCEPTED and ADDED not in record.input.context
    capsys.readouterr()

    write_input(data, {"sentence": ADDED})
    assert run(ws, data, "--release", "0.2.0") == 0
    out = capsys.readouterr().out
    assert "changed 1" in out and "source changed: 1 item(s); 2 record(s) sent back" in out  # both about it
    record, state, events = first_record(ws)
    assert ADDED in record.input.context and state == RecordState.ACCEPTED  # re-checked, and still good
    moves = [(e["from_state"], e["to_state"], e["reasons"] or "") for e in events if e["kind"] == "state_change"]
    back = [m for m in moves if m[:2] == ("accepted", "authored")]
    assert len(back) == 1 and '"code": "source_changed"' in back[0][2] and "context" in back[0][2]
    assert moves[-2:] == [("authored", "validated", ""), ("validated", "accepted", "")]

    assert main(["--source", "hotpotqa", "--workspace", str(ws), "--diff", "0.1.0", "0.2.0"]) == 0
    diff = capsys.readouterr().out
    assert f"~ {record.record_id}" in diff and "1 changed" in diff
    rows = (ws / "releases" / "default" / "0.2.0" / "data").glob("*.parquet")
    import pyarrow.parquet as pq

    contexts = [c for path in rows for c in pq.read_table(path).column("context").to_pylist()]
    assert any(ADDED in c for c in contexts)

    # Loading the same input again changes nothing more.
    assert run(ws, data) == 0
    assert "source changed" not in capsys.readouterr().out


def test_a_changed_seed_answer_is_judged_again_and_can_leave_the_release(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws, data = tmp_path / "ws", tmp_path / "hotpot.json"
    write_input(data)
    assert run(ws, data, "--release", "0.1.0") == 0
    write_input(data, {"answer": "University of Bergen"})  # the source now disagrees with the curator
    assert run(ws, data, "--release", "0.2.0") == 0
    record, state, _ = first_record(ws)
    assert record.metadata.extra["answer"] == "University of Bergen"
    assert state == RecordState.NEEDS_REVIEW  # the old acceptance is not carried over: a person must decide
    with Store.open(ws) as store:
        [held] = [
            s for s in store.records("hotpotqa", [RecordState.NEEDS_REVIEW]) if s.record.record_id == record.record_id
        ]
    assert [(r.stage, r.code) for r in held.reasons] == [("gate", "seed_answer_mismatch")]
    capsys.readouterr()
    assert main(["--source", "hotpotqa", "--workspace", str(ws), "--diff", "0.1.0", "0.2.0"]) == 0
    assert f"- {record.record_id}" in capsys.readouterr().out


SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}


def item(source_id: str, context: str) -> SourceItem:
    return SourceItem(source="hotpotqa", source_id=source_id, context=context, question="Who?", answer="Ann")


def test_records_with_a_curator_stay_with_the_curator_and_a_killed_run_is_caught_up(tmp_path: Path) -> None:
    with Store.open(tmp_path / "ws") as store:
        store.upsert_source_items([item("a", "Ann wrote it."), item("b", "Ann wrote it."), item("c", "Ann did.")])
        records = {
            sid: Record.build(item(sid, text), f"Who wrote {sid}?", SCHEMA, {"answer": "Ann"})
            for sid, text in (("a", "Ann wrote it."), ("b", "Ann wrote it."), ("c", "Ann did."))
        }
        store.upsert_records(records.values(), RecordState.AUTHORED, "import")
        curator = Reason(stage="curator", code="curator_reject", message="not a good question")
        store.apply(
            [
                StateChange(records["a"].record_id, RecordState.ACCEPTED, "judge"),
                StateChange(records["b"].record_id, RecordState.NEEDS_REVISION, "validation"),
                StateChange(records["c"].record_id, RecordState.REJECTED, "curator", reasons=[curator]),
            ]
        )
        # A reload changes all three items; the run dies before the re-check.
        counts = store.upsert_source_items([item(s, "Ann wrote it in 1901.") for s in "abc"])
        assert counts.changed == 3
    with Store.open(tmp_path / "ws") as store:  # the next run catches up from the event log
        result = recheck_changed_sources(store, "hotpotqa")
        assert (result.items, result.reopened, result.with_curators) == (3, 1, 2)
        states = {s.record.metadata.source_id: s for s in store.records("hotpotqa")}
        assert states["a"].state == RecordState.AUTHORED and states["a"].reasons[0].code == "source_changed"
        assert states["a"].record.input.context == "Ann wrote it in 1901." and states["a"].judge is None
        assert states["b"].state == RecordState.NEEDS_REVISION and states["c"].state == RecordState.REJECTED
        assert recheck_changed_sources(store, "hotpotqa").items == 0  # done once
        # Re-importing the curator's record as it was gives no new edit: it is already up to date.
        again = Record.build(item("a", "Ann wrote it in 1901."), "Who wrote a?", SCHEMA, {"answer": "Ann"})
        assert store.upsert_records([again], RecordState.AUTHORED, "import").unchanged == 1
