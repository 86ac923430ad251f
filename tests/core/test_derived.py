"""Stage outputs stored beside the record (core/derived.py): every reader sees the record merged, a stage
never rewrites the record, and whatever replaces the record drops the old outputs."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from pydantic import ValidationError

from core.derived import merged, read_record, with_changes
from core.models import Record, RecordState, SourceItem
from core.store import StateChange, Store


def _record(n: int, answer: str = "a") -> Record:
    item = SourceItem(source="hotpotqa", source_id=f"s{n}", context=f"context {n} a", question="q?", answer="a")
    return Record.build(item, f"question {n}?", {"type": "object"}, {"x": answer})


def _stored_text(store: Store, record_id: str) -> tuple[str, str | None]:
    return store.con.execute("SELECT record, derived FROM records WHERE record_id = ?", [record_id]).fetchone()


def test_a_stage_writes_its_outputs_beside_the_record_and_readers_see_them_merged(tmp_path: Path) -> None:
    record = _record(1)
    with Store.open(tmp_path) as store:
        store.upsert_records([record], RecordState.AUTHORED, "import")
        authored_text, _ = _stored_text(store, record.record_id)
        validated = with_changes(
            None, {"output": {"validated_output": {"x": "a"}}, "metadata": {"schema_complexity": "easy"}}
        )
        store.apply([StateChange(record.record_id, RecordState.VALIDATED, "validation", derived_json=validated)])
        judged = with_changes(validated, {"provenance": {"judge": "heuristic@1", "judged_at": "2026-11-23T10:00:00Z"}})
        store.apply([StateChange(record.record_id, RecordState.ACCEPTED, "judge", derived_json=judged)])

        record_text, derived_text = _stored_text(store, record.record_id)
        assert record_text == authored_text  # neither stage rewrote the record
        assert json.loads(derived_text) == {
            "output": {"validated_output": {"x": "a"}},
            "metadata": {"schema_complexity": "easy"},
            "provenance": {"judge": "heuristic@1", "judged_at": "2026-11-23T10:00:00Z"},
        }
        (stored,) = store.records("hotpotqa")
        assert stored.record.output.validated_output == {"x": "a"}
        assert stored.record.output.ground_truth == {"x": "a"}
        assert stored.record.metadata.schema_complexity == "easy"
        assert stored.record.provenance.judge == "heuristic@1"
        assert stored.record.provenance.judged_at is not None and stored.record.provenance.judged_at.hour == 10
        assert stored.record.provenance.annotator == record.provenance.annotator  # untouched fields kept


def test_a_state_change_without_outputs_keeps_them(tmp_path: Path) -> None:
    record = _record(2)
    with Store.open(tmp_path) as store:
        store.upsert_records([record], RecordState.AUTHORED, "import")
        derived = with_changes(None, {"output": {"validated_output": {"x": "a"}}})
        store.apply([StateChange(record.record_id, RecordState.VALIDATED, "validation", derived_json=derived)])
        store.apply([StateChange(record.record_id, RecordState.JUDGE_ERROR, "judge")])
        assert _stored_text(store, record.record_id)[1] == derived


def test_a_replaced_or_edited_record_drops_the_old_outputs(tmp_path: Path) -> None:
    record = _record(3)
    derived = with_changes(None, {"output": {"validated_output": {"x": "a"}}, "metadata": {"schema_complexity": "x"}})
    with Store.open(tmp_path) as store:
        store.upsert_records([record], RecordState.AUTHORED, "import")
        store.apply([StateChange(record.record_id, RecordState.VALIDATED, "validation", derived_json=derived)])
        # A whole record written by a stage (a Label Studio pull, the reviewer) carries its own outputs.
        (stored,) = store.records("hotpotqa")
        replaced = stored.record.model_copy(update={"record_id": record.record_id})
        store.apply([StateChange(record.record_id, RecordState.AUTHORED, "label_studio", record=replaced)])
        record_text, derived_text = _stored_text(store, record.record_id)
        assert derived_text is None
        assert json.loads(record_text)["output"]["validated_output"] == {"x": "a"}  # it came with the record
        # A curator's edit is a new authored record: nothing validated about the old one may stick to it.
        store.apply([StateChange(record.record_id, RecordState.VALIDATED, "validation", derived_json=derived)])
        store.upsert_records([_record(3, answer="b")], RecordState.AUTHORED, "import")
        (stored,) = store.records("hotpotqa")
        assert _stored_text(store, record.record_id)[1] is None
        assert stored.record.output.ground_truth == {"x": "b"} and stored.record.output.validated_output is None
        assert stored.record.metadata.schema_complexity is None


def test_outputs_can_never_replace_what_the_curator_authored() -> None:
    data = json.loads(_record(4).model_dump_json())
    for bad in (
        {"output": {"ground_truth": {"x": "forged"}}},
        {"metadata": {"source_id": "other"}},
        {"input": {"context": "forged"}},
        {"record_id": "other"},
        {"output": ["not", "a", "section"]},
    ):
        with pytest.raises(ValueError, match="derived fields"):
            merged(json.loads(json.dumps(data)), bad)
        with pytest.raises(ValueError, match="derived fields"):
            with_changes(None, bad)


def test_a_damaged_derived_column_is_set_aside_with_its_reason(tmp_path: Path) -> None:
    good, bad, forged = _record(5), _record(6), _record(7)
    with Store.open(tmp_path) as store:
        store.upsert_records([good, bad, forged], RecordState.AUTHORED, "import")
        store.con.execute("UPDATE records SET derived = '{\"output\": 3}' WHERE record_id = ?", [bad.record_id])
        store.con.execute(
            'UPDATE records SET derived = \'{"output": {"ground_truth": {}}}\' WHERE record_id = ?',
            [forged.record_id],
        )
        read = [stored.record.record_id for stored in store.records("hotpotqa", [RecordState.AUTHORED])]
        assert read == [good.record_id]
        unreadable = {rid: reasons[0].message for rid, _, reasons in store.unreadable_records("hotpotqa")}
        assert set(unreadable) == {bad.record_id, forged.record_id}
        assert "derived fields" in unreadable[forged.record_id]


def test_read_record_rejects_outputs_of_the_wrong_type() -> None:
    text = _record(8).model_dump_json()
    with pytest.raises(ValidationError):
        read_record(text, json.dumps({"output": {"validated_output": "not an object"}}))
    assert read_record(text, None).record_id == _record(8).record_id


def test_a_store_from_before_the_derived_column_opens_and_reads(tmp_path: Path) -> None:
    record = _record(9)
    with Store.open(tmp_path) as store:
        store.upsert_records([record], RecordState.AUTHORED, "import")
        store.con.execute("ALTER TABLE records DROP COLUMN derived")
        store.con.execute("DELETE FROM schema_migrations WHERE version = 6")
    with duckdb.connect(str(tmp_path / "curation.duckdb")) as con, pytest.raises(duckdb.BinderException):
        con.execute("SELECT derived FROM records").fetchall()  # the old layout, as a store written before it
    with Store.open(tmp_path) as store:
        (stored,) = store.records("hotpotqa")
        assert stored.record == record


def test_outputs_are_written_as_their_models_and_json_would_write_them() -> None:
    from core.evidence import Evidence

    evidence = Evidence(kind="span", quote="1,500", start=3, end=8, auto=True)
    values = {"n": [1, -2.5, 1e16, 10**30, float("inf"), float("nan")], "s": 'Zoë \u2028 "q"', "none": None}
    text = with_changes(
        '{"provenance":{"judge":"heuristic@1"}}',
        {"output": {"validated_output": values, "evidence": {"$.n": evidence}}},
    )
    written = json.loads(text)  # NaN and Infinity stay the constants json writes, not null
    assert written["provenance"] == {"judge": "heuristic@1"}  # outputs of other stages are kept
    assert written["output"]["evidence"] == {"$.n": evidence.model_dump(mode="json")}
    expected = json.loads(json.dumps(values))
    assert json.dumps(written["output"]["validated_output"]) == json.dumps(expected)  # NaN != NaN: compare text
