"""The validation stage and the heuristic judge run in worker processes commit exactly what they commit in process."""

from __future__ import annotations

import copy
import gc
import json
import os
from pathlib import Path
from typing import Any

import pytest

from core import parallel, row_stage
from core.derived import merged
from core.gc_tuning import STAGE_THRESHOLDS, fewer_collections
from core.models import Record, RecordState, SourceItem
from core.store import STORE_FILENAME, Store
from judge.heuristic import HeuristicJudge
from judge.stage import run_judging
from tests.store_checks import assert_checkpointed
from tests.validation.conftest import ED_WOOD_ID, GOOD_GROUND_TRUTH, GOOD_SCHEMA, HOTPOT_SAMPLE, hotpot_context
from validation.stage import run_validation

CHECKPOINT_ROWS = row_stage.CHECKPOINT_ROWS  # as the product has it


@pytest.fixture(autouse=True)
def stages_checkpoint_as_large_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """These dozen records stand for a large stage: its end writes the store file (Store.checkpoint)."""
    monkeypatch.setattr(row_stage, "CHECKPOINT_ROWS", 1)


@pytest.fixture(scope="module")
def ed_wood_context(test_data: Path) -> str:
    rows = json.loads((test_data / HOTPOT_SAMPLE).read_text(encoding="utf-8"))
    return next(hotpot_context(row) for row in rows if row["_id"] == ED_WOOD_ID)


def _records(context: str) -> list[Record]:
    """Good answers and two kinds of answers that break the schema, each several times."""
    item = SourceItem(source="hotpotqa", source_id=ED_WOOD_ID, context=context)
    records = []
    for n in range(12):
        truth: dict[str, Any] = copy.deepcopy(GOOD_GROUND_TRUTH)
        if n % 3 == 1:
            truth["release_year"] = "nineteen ninety-four"  # not an integer: schema failure
        elif n % 3 == 2:
            del truth["director"]  # a required field missing
        records.append(Record.build(item, f"Question {n} about Ed Wood?", copy.deepcopy(GOOD_SCHEMA), truth))
    return records


def _stored_outcome(store: Store) -> list[tuple[Any, ...]]:
    rows = store.con.execute(
        "SELECT record_id, state, record, derived, reasons, validation, judge FROM records ORDER BY record_id"
    ).fetchall()
    # The record as every reader sees it: with the stage outputs stored beside it merged in.
    return [
        (rid, state, merged(json.loads(record), json.loads(derived or "{}")), reasons, validation, judge)
        for rid, state, record, derived, reasons, validation, judge in rows
    ]


def _moves(store: Store) -> list[tuple[Any, ...]]:
    """Each record's events, with their reasons (serialised in a worker, or in this process)."""
    return store.con.execute(
        "SELECT record_id, stage, kind, from_state, to_state, reasons, detail FROM events "
        "WHERE record_id IS NOT NULL ORDER BY record_id, event_id"
    ).fetchall()


Outcome = tuple[dict[str, int], list[tuple[Any, ...]], list[tuple[Any, ...]]]  # counts, records, events


def _validate(workspace: Path, records: list[Record], workers: int) -> Outcome:
    with Store.open(workspace) as store:
        store.upsert_source_items([SourceItem(source="hotpotqa", source_id=ED_WOOD_ID, context="x")])
        store.upsert_records(records, RecordState.AUTHORED, "import")
        broken = json.loads(records[0].model_dump_json())
        broken["input"]["json_schema"] = "not a dict"  # a stored row that no longer parses
        store.con.execute(
            "UPDATE records SET record = ? WHERE record_id = ?", [json.dumps(broken), records[0].record_id]
        )
        counts = run_validation(store, "hotpotqa", workers=workers)
        assert_checkpointed(workspace)
        return dict(counts), _stored_outcome(store), _moves(store)


def test_workers_commit_what_the_stage_commits_in_process(tmp_path: Path, ed_wood_context: str) -> None:
    records = _records(ed_wood_context)
    in_process = _validate(tmp_path / "serial", records, workers=0)
    in_workers = _validate(tmp_path / "parallel", records, workers=2)
    counts, rows, moves = in_process
    assert counts == {"validated": 3, "rejected": 8}  # the unreadable row is set aside, not counted
    states = {rid: state for rid, state, *_ in rows}
    assert states[records[0].record_id] == "rejected"
    assert "unreadable_record" in dict((r[0], r[3]) for r in rows)[records[0].record_id]
    assert sum(state == "validated" for state in states.values()) == 3
    rejected = [reasons for _, stage, _, _, to, reasons, _ in moves if stage == "validation" and to == "rejected"]
    assert len(rejected) == 8 and all("ground_truth_schema_mismatch" in (r or "") for r in rejected)
    # Same states, reasons, reports, stored records (evidence located, validated output) and events either way.
    assert in_workers == in_process
    validated = [record for _, state, record, *_ in rows if state == "validated"]
    assert all(r["output"]["validated_output"] == GOOD_GROUND_TRUTH for r in validated)
    assert all(r["output"]["evidence"]["$.director"]["quote"] == "Tim Burton" for r in validated)


def _judge(workspace: Path, workers: int) -> Outcome:
    with Store.open(workspace) as store:
        counts = run_judging(store, "hotpotqa", HeuristicJudge(), 60, workers=workers)
        assert_checkpointed(workspace)
        rows, moves = _stored_outcome(store), _moves(store)
    for _, _, record, *_ in rows:
        record.get("provenance", {}).pop("judged_at", None)  # the moment of judging differs between two runs
    return dict(counts), rows, moves


def test_the_heuristic_judge_in_workers_commits_what_it_commits_in_process(
    tmp_path: Path, ed_wood_context: str
) -> None:
    records = _records(ed_wood_context)
    records += [r.model_copy(update={"record_id": f"copy-{r.record_id}"}) for r in records[3:6]]
    for name in ("serial", "parallel"):
        _validate(tmp_path / name, records, workers=0)
        with Store.open(tmp_path / name) as store:  # a validated row that no longer parses
            store.con.execute(
                "UPDATE records SET record = '{\"record_id\": 1}' WHERE record_id LIKE 'copy-%' AND state = 'validated'"
            )
    in_process = _judge(tmp_path / "serial", workers=0)
    in_workers = _judge(tmp_path / "parallel", workers=2)
    counts, rows, _ = in_process
    assert sum(counts.values()) == 3 and set(counts) <= {"accepted", "rejected"}
    unreadable = [rid for rid, _, _, reasons, *_ in rows if "unreadable_record" in (reasons or "")]
    assert len(unreadable) == 2  # one set aside by validation, one by the judge
    judged = [r["provenance"]["judge"] for _, _, r, *_ in rows if r.get("provenance", {}).get("judge")]
    assert len(judged) == 3 and all(judge.startswith("heuristic@") for judge in judged)
    assert in_workers == in_process


def test_a_stage_in_workers_limits_duckdb_to_one_thread_and_gives_the_default_back(
    tmp_path: Path, ed_wood_context: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the workers keep every core busy, DuckDB's own threads would only contend with them."""
    seen: list[int] = []
    apply = Store.apply

    def watched(store: Store, changes: Any) -> None:
        seen.append(store.con.execute("SELECT current_setting('threads')").fetchone()[0])
        apply(store, changes)

    monkeypatch.setattr(Store, "apply", watched)
    with Store.open(tmp_path) as store:
        default = store.con.execute("SELECT current_setting('threads')").fetchone()[0]
    for workers, expected in ((2, 1), (0, default)):
        seen.clear()
        counts, _, _ = _validate(tmp_path / f"workers-{workers}", _records(ed_wood_context), workers=workers)
        assert sum(counts.values()) == 11
        assert seen and set(seen) == {expected}, (workers, seen)
    with Store.open(tmp_path / "workers-2") as store:
        assert store.con.execute("SELECT current_setting('threads')").fetchone()[0] == default


def test_worker_count_follows_sob_workers_and_the_size_of_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(parallel.WORKERS_ENV, raising=False)
    assert parallel.worker_count(10) == 0  # a small run stays in process
    monkeypatch.setattr(parallel, "available_cores", lambda: 2)
    assert parallel.worker_count(parallel.MIN_PARALLEL) == 2
    monkeypatch.setattr(parallel, "available_cores", lambda: 1)
    assert parallel.worker_count(10**6) == 0  # one core: workers would only add copying
    monkeypatch.setenv(parallel.WORKERS_ENV, "3")
    assert parallel.worker_count(10) == 3
    monkeypatch.setenv(parallel.WORKERS_ENV, "many")
    with pytest.raises(ValueError, match="SOB_WORKERS='many'"):
        parallel.worker_count(10)


def _double(value: int) -> int:
    return 2 * value


def test_map_batches_keeps_batches_in_order_with_and_without_workers() -> None:
    batches = [list(range(start, start + 5)) for start in range(0, 40, 5)]
    expected = [(batch, [2 * v for v in batch]) for batch in batches]
    assert list(parallel.map_batches(_double, batches, workers=0)) == expected
    assert list(parallel.map_batches(_double, iter(batches), workers=2)) == expected


def _die_on_three(value: int) -> int:
    if value == 3:
        os._exit(1)  # a worker killed (out of memory, or by hand) in the middle of a batch
    return value


def test_a_worker_that_dies_stops_the_run_with_an_error_instead_of_a_hang() -> None:
    finished = []
    with pytest.raises(parallel.WorkerFailed, match="SOB_WORKERS=0"):
        for batch, results in parallel.map_batches(_die_on_three, [[1, 2], [3, 4], [5, 6]], workers=2):
            finished.append((batch, results))
    assert finished in ([], [([1, 2], [1, 2])])  # what came back before the death is handed over


def test_fewer_collections_restores_the_thresholds_even_on_error() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), fewer_collections():
        assert gc.get_threshold() == STAGE_THRESHOLDS
        raise RuntimeError("stage failed")
    assert gc.get_threshold() == before


def test_a_stage_of_a_few_records_leaves_its_writes_to_duckdb_and_they_are_kept(
    tmp_path: Path, ed_wood_context: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `--serve` cycle validates a record or two: no checkpoint and fresh connection at the stage's end (a tenth
    of the cycle); the writes stay in the WAL until DuckDB's own checkpoint, and nothing of them is lost."""
    monkeypatch.setattr(row_stage, "CHECKPOINT_ROWS", CHECKPOINT_ROWS)
    records = _records(ed_wood_context)
    assert len(records) < CHECKPOINT_ROWS
    with Store.open(tmp_path) as store:
        store.upsert_source_items([SourceItem(source="hotpotqa", source_id=ED_WOOD_ID, context=ed_wood_context)])
        store.upsert_records(records, RecordState.AUTHORED, "import")
        connection = store.con
        counts = run_validation(store, "hotpotqa", workers=0)
        assert store.con is connection  # not reopened
        assert (tmp_path / f"{STORE_FILENAME}.wal").stat().st_size > 0
    with Store.open(tmp_path) as store:
        assert store.state_counts("hotpotqa") == dict(counts) == {"validated": 4, "rejected": 8}


def test_the_fork_server_starts_early_only_for_a_run_that_will_use_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    import multiprocessing.forkserver

    monkeypatch.delenv(parallel.WORKERS_ENV, raising=False)
    monkeypatch.setattr(parallel, "available_cores", lambda: 2)
    assert parallel.start_fork_server(parallel.MIN_PARALLEL - 1) is False  # a small run stays in process
    monkeypatch.setenv(parallel.WORKERS_ENV, "0")
    assert parallel.start_fork_server(10**6) is False  # SOB_WORKERS=0: every stage stays in process
    monkeypatch.setenv(parallel.WORKERS_ENV, "2")
    assert parallel.start_fork_server(10) is True
    server = multiprocessing.forkserver._forkserver._forkserver_pid  # the one the stages' workers fork from
    assert server is not None and os.waitpid(server, os.WNOHANG) == (0, 0)  # running
    assert list(parallel.map_batches(_double, [[1, 2], [3]], workers=2)) == [([1, 2], [2, 4]), ([3], [6])]
    assert multiprocessing.forkserver._forkserver._forkserver_pid == server  # the workers came from it
