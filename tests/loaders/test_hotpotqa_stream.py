"""HotpotQA items stream: one row read per item yielded, problems reported as rows are read, and the
CLI's load stores the same items and problems as the list loader returns."""

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from build_split.ingest import load_into_store
from build_split.options import RunOptions
from core.store import Store
from loaders.base import LoadResult
from loaders.hotpotqa import iter_hotpotqa, load_hotpotqa
from tests.store_checks import assert_checkpointed


def row(i: int, question: str = "Which came first?") -> dict:
    return {
        "_id": f"id{i}",
        "question": question,
        "answer": "A",
        "type": "comparison",
        "level": "easy",
        "supporting_facts": [["A", 0]],
        "context": [["A", [f"A was founded in {1900 + i}."]], ["B", [" B came later."]]],
    }


def test_items_are_read_one_row_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(json.dumps(row(i)) for i in range(5)))
    report = LoadResult()
    items = iter_hotpotqa(path, report)
    assert report.rows_read == 0  # nothing read before the first item is asked for
    assert next(items).source_id == "id0" and report.rows_read == 1
    assert [i.source_id for i in items] == ["id1", "id2", "id3", "id4"] and report.rows_read == 5


def test_repeated_ids_are_checked_against_the_first_items_content(tmp_path: Path) -> None:
    lines = [row(1), row(2), row(1), row(1, question="Changed?"), row(2, question="Changed too?")]
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in lines))
    report = LoadResult()
    items = list(iter_hotpotqa(path, report))
    assert [(i.source_id, i.question) for i in items] == [("id1", "Which came first?"), ("id2", "Which came first?")]
    assert [(p.line_no, p.code) for p in report.problems] == [(4, "duplicate_source_id"), (5, "duplicate_source_id")]


def test_parquet_rows_keep_their_numbers_across_read_batches(tmp_path: Path) -> None:
    hub = [  # the Hub's columns
        {
            "id": f"id{i}",
            "question": "Which came first?",
            "answer": "A",
            "type": "comparison",
            "level": "easy",
            "supporting_facts": {"title": ["A"], "sent_id": [0]},
            "context": {"title": ["A"], "sentences": [[f"A was founded in {1900 + i}."]]},
        }
        for i in range(2500)
    ]
    hub[1799]["context"] = {"title": ["A"], "sentences": [["x"], ["y"]]}  # row 1800: titles and sentences differ
    pq.write_table(pa.Table.from_pylist(hub), tmp_path / "train.parquet")
    result = load_hotpotqa(tmp_path / "train.parquet")
    assert len(result.items) == 2499 and result.rows_read == 2500
    assert [(p.line_no, p.code, p.unit) for p in result.problems] == [(1800, "bad_record", "row")]


def test_cli_load_stores_what_the_list_loader_returns(tmp_path: Path) -> None:
    path = tmp_path / "hotpot_train.jsonl"
    path.write_text("\n".join([json.dumps(row(1)), "{broken", json.dumps(row(2)), json.dumps(row(1, "Other?"))]))
    listed = load_hotpotqa(path)
    with Store.open(tmp_path / "ws") as store:
        counts, result = load_into_store(store, RunOptions(source="hotpotqa", input=path, workspace=tmp_path / "ws"))
        assert counts.new == 2 and result.rows_read == 4
        assert store.source_items("hotpotqa") == {i.source_id: i for i in listed.items}
        stored = [(r["line_no"], r["reasons"][0]["code"]) for r in store.import_rejections("hotpotqa")]
        assert (
            stored
            == [(p.line_no, p.code) for p in listed.problems]
            == [(2, "malformed_json"), (4, "duplicate_source_id")]
        )
        assert_checkpointed(tmp_path / "ws")
