import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from core.models import Reason, Record, RecordState, SourceItem
from core.store import StateChange, Store, StoreTooNewError, WorkspaceBusyError
from core.store_connection import STORE_MEMORY_ENV, is_out_of_memory
from core.store_migrations import MIGRATIONS
from tests.store_checks import assert_checkpointed


def item(n: int) -> SourceItem:
    return SourceItem(source="hotpotqa", source_id=f"s{n}", context=f"context {n}", question="q?", answer="a")


def record(n: int, answer: str = "a") -> Record:
    return Record.build(item(n), f"question {n}?", {"type": "object"}, {"x": answer})


def test_migrations_are_versioned_and_reapplied_never(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        assert store.schema_version() == MIGRATIONS[-1][0]
    with Store.open(tmp_path) as store:  # reopening applies nothing twice
        rows = store.con.execute("SELECT count(*) FROM schema_migrations").fetchone()[0]
        assert rows == len(MIGRATIONS)


def test_a_store_migrated_by_a_newer_toolkit_is_refused_untouched(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        store.upsert_records([record(1)], RecordState.AUTHORED, "import")
        newer = MIGRATIONS[-1][0] + 1
        store.con.execute("INSERT INTO schema_migrations VALUES (?, now())", [newer])
    with pytest.raises(StoreTooNewError, match=f"store format {newer}; this version knows formats up to {newer - 1}"):
        Store.open(tmp_path)
    with duckdb.connect(str(tmp_path / "curation.duckdb")) as con:  # the refusal let the file go, unchanged
        assert con.execute("SELECT max(version) FROM schema_migrations").fetchone()[0] == newer
        assert con.execute("SELECT count(*) FROM records").fetchone()[0] == 1
    with duckdb.connect(str(tmp_path / "curation.duckdb")) as con:
        con.execute("DELETE FROM schema_migrations WHERE version = ?", [newer])
    with Store.open(tmp_path) as store:  # the format this version knows opens as before
        assert store.schema_version() == newer - 1


def test_a_thread_limit_outlives_a_fresh_connection_and_ends_with_its_block(tmp_path: Path) -> None:
    def threads(store: Store) -> int:
        return store.con.execute("SELECT current_setting('threads')").fetchone()[0]

    with Store.open(tmp_path) as store:
        default = threads(store)
        with store.threads_limited(1):
            assert threads(store) == 1
            store.checkpoint()  # a new connection, as a hand-over to a waiting process makes
            assert threads(store) == 1
        assert threads(store) == default
        store.checkpoint()
        assert threads(store) == default
        with pytest.raises(RuntimeError, match="the reason"), store.threads_limited(1):  # not hidden by the reset
            store.con.close()
            raise RuntimeError("the reason")


def test_source_items_upsert_counts_new_changed_unchanged(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        assert store.upsert_source_items([item(1), item(2)]).new == 2
        changed = item(2).model_copy(update={"context": "new context"})
        counts = store.upsert_source_items([item(1), changed])
        assert (counts.new, counts.changed, counts.unchanged) == (0, 1, 1)
        assert store.source_items("hotpotqa")["s2"].context == "new context"
        kinds = [e["kind"] for e in store.events(source="hotpotqa")]
        assert kinds == ["source_loaded", "source_loaded", "source_changed"]


def test_records_edits_and_state_changes_are_logged(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        first = record(1)
        assert store.upsert_records([first], RecordState.AUTHORED, "import").new == 1
        assert store.upsert_records([first], RecordState.AUTHORED, "import").unchanged == 1
        reason = Reason(stage="validation", code="undeclared_key", message="m", path="$.y")
        store.apply([StateChange(first.record_id, RecordState.REJECTED, "validation", [reason])])
        (stored,) = store.records("hotpotqa")
        assert stored.state == RecordState.REJECTED and stored.reasons == [reason]
        assert store.reason_counts("hotpotqa") == [("validation", "undeclared_key", 1)]
        # A curator's edit keeps the id, brings the record back to `authored` and clears old reasons.
        edited = record(1, answer="b")
        assert edited.record_id == first.record_id
        assert store.upsert_records([edited], RecordState.AUTHORED, "import").changed == 1
        (stored,) = store.records("hotpotqa")
        assert stored.state == RecordState.AUTHORED and stored.reasons == []
        assert stored.record.output.ground_truth == {"x": "b"}
        history = [(e["kind"], e["from_state"], e["to_state"]) for e in store.events(record_id=first.record_id)]
        assert history == [
            ("authored", None, "authored"),
            ("state_change", "authored", "rejected"),
            ("authored_edit", "rejected", "authored"),
        ]


def test_apply_on_unknown_record_fails_and_changes_nothing(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        store.upsert_records([record(1)], RecordState.AUTHORED, "import")
        with pytest.raises(KeyError):
            store.apply(
                [
                    StateChange(record(1).record_id, RecordState.VALIDATED, "validation"),
                    StateChange("missing", RecordState.VALIDATED, "validation"),
                ]
            )
        assert store.state_counts("hotpotqa") == {"authored": 1}


def test_import_rejections_are_kept_and_counted(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        reasons = [Reason(stage="import", code="malformed_json", message="line 3: bad")]
        store.add_import_rejections("hotpotqa", "authored:a.jsonl", [(3, "{bad", reasons)])
        assert store.import_rejections("hotpotqa")[0]["raw"] == "{bad"
        assert store.reason_counts("hotpotqa") == [("import", "malformed_json", 1)]


def test_second_process_gets_a_clear_error(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from core.store import Store, WorkspaceBusyError\n"
        f"try:\n    Store.open({str(tmp_path)!r})\n"
        "except WorkspaceBusyError as e:\n    print('BUSY', e); sys.exit(3)\n"
    )
    with Store.open(tmp_path):
        # A holder that never lets go (not a toolkit run): the second process waits its limit, then says so.
        env = {**os.environ, "SOB_WORKSPACE_WAIT": "1"}
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 3, proc.stderr
    assert "in use by another process" in proc.stdout and "--workspace" in proc.stdout
    with Store.open(tmp_path):  # free again once the first process closed it
        pass
    assert issubclass(WorkspaceBusyError, RuntimeError)


def test_store_checkpoints_rarely_and_keeps_commits_across_a_reopen(tmp_path: Path) -> None:
    # A checkpoint per 16 MB of WAL made each stage of a 25k-record run slower as the store grew.
    with Store.open(tmp_path) as store:
        setting = store.con.execute("SELECT current_setting('checkpoint_threshold')").fetchone()[0]
        assert setting == "122.0 MiB"  # 128MB as DuckDB prints it
        store.upsert_records([record(1), record(2)], RecordState.AUTHORED, "import")
        store.apply([StateChange(record(1).record_id, RecordState.VALIDATED, "validation")])
    with Store.open(tmp_path) as store:
        assert store.state_counts("hotpotqa") == {"authored": 1, "validated": 1}


def test_the_store_caches_within_a_memory_limit_that_can_be_set(tmp_path: Path, monkeypatch) -> None:
    # Without a limit DuckDB kept 250-300 MB of cached blocks in a 25k-record run (80% of RAM allowed).
    monkeypatch.delenv(STORE_MEMORY_ENV, raising=False)
    with Store.open(tmp_path) as store:
        assert store.con.execute("SELECT current_setting('memory_limit')").fetchone()[0] == "244.1 MiB"  # 256MB
        store.checkpoint()  # the reopened connection keeps it
        assert store.con.execute("SELECT current_setting('memory_limit')").fetchone()[0] == "244.1 MiB"
    for setting, shown in (("2GB", "1.8 GiB"), ("1GiB", "1.0 GiB"), ("1.5 gb", "1.3 GiB")):
        monkeypatch.setenv(STORE_MEMORY_ENV, setting)
        with Store.open(tmp_path) as store:
            assert store.con.execute("SELECT current_setting('memory_limit')").fetchone()[0] == shown


@pytest.mark.parametrize("value", ["lots", "512", "-1GB", "1GB; DROP TABLE records"])
def test_a_memory_limit_that_is_no_size_is_refused_before_the_store_is_touched(
    tmp_path: Path, monkeypatch, value: str
) -> None:
    monkeypatch.setenv(STORE_MEMORY_ENV, value)
    with pytest.raises(ValueError, match=f"{STORE_MEMORY_ENV}=.*expected a size such as 512MB"):
        Store.open(tmp_path / "ws")
    assert not (tmp_path / "ws" / "curation.duckdb").exists()


def test_running_out_of_store_memory_is_named_with_its_fix_and_keeps_what_was_committed(
    tmp_path: Path, monkeypatch
) -> None:
    from build_split.errors import explain_failure

    with Store.open(tmp_path) as store:
        store.upsert_records([record(1)], RecordState.AUTHORED, "import")
    monkeypatch.setenv(STORE_MEMORY_ENV, "1MB")
    with pytest.raises(duckdb.Error) as caught:
        with Store.open(tmp_path) as store:
            store.upsert_records([record(i) for i in range(2, 400)], RecordState.AUTHORED, "import")
            store.checkpoint()
    assert is_out_of_memory(caught.value)
    message = explain_failure(caught.value, tmp_path)
    assert f"needed more memory than its limit ({STORE_MEMORY_ENV}=1MB)" in message
    assert f"set {STORE_MEMORY_ENV} higher" in message and "damaged" not in message
    monkeypatch.delenv(STORE_MEMORY_ENV)
    with Store.open(tmp_path) as store:
        assert store.state_counts("hotpotqa") == {"authored": 1}  # the committed record, nothing half-written


def test_a_write_that_runs_out_of_memory_doubles_the_limit_and_commits_once(tmp_path: Path, monkeypatch) -> None:
    import core.store as store_module

    monkeypatch.setenv(STORE_MEMORY_ENV, "256MB")
    with Store.open(tmp_path) as store:
        store.upsert_records([record(1)], RecordState.AUTHORED, "import")
        insert_events = store._insert_events
        failures = iter([duckdb.OutOfMemoryException("Out of Memory Error: could not allocate block")])

        def out_of_memory_once(events):
            insert_events(events)  # written, then lost with the failed attempt
            failure = next(failures, None)
            if failure is not None:
                raise failure

        monkeypatch.setattr(store, "_insert_events", out_of_memory_once)
        store.apply([StateChange(record(1).record_id, RecordState.VALIDATED, "validation")])
        assert store.con.execute("SELECT current_setting('memory_limit')").fetchone()[0] == "488.2 MiB"  # 512MB
        moves = store.con.execute("SELECT count(*) FROM events WHERE to_state = 'validated'").fetchone()[0]
        assert (store.state_counts("hotpotqa"), moves) == ({"validated": 1}, 1)

        # At the ceiling (DuckDB's default, 80% of RAM) the error is raised, and nothing is committed.
        monkeypatch.setattr(store_module, "_memory_ceiling", lambda: store.memory_limit)
        failures = iter([duckdb.OutOfMemoryException("Out of Memory Error: could not allocate block")])
        with pytest.raises(duckdb.OutOfMemoryException):
            store.apply([StateChange(record(1).record_id, RecordState.ACCEPTED, "judge")])
        assert store.state_counts("hotpotqa") == {"validated": 1}


def test_record_pages_read_each_waiting_row_once_across_runs_of_ids(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(Store, "ID_RUN_PAGES", 2)  # runs of 2 pages of 3 ids: 23 rows span 4 runs
    with Store.open(tmp_path) as store:
        store.upsert_records([record(n) for n in range(23)], RecordState.AUTHORED, "import")
        ids = sorted(store.record_ids("hotpotqa", [RecordState.AUTHORED]))
        # Rows that leave the state before their page is read are not read: one whose id is already in the run
        # being paged (index 4: the run's second page), one in a later run (index 10).
        seen = []
        for row in store.record_pages("hotpotqa", [RecordState.AUTHORED], page_size=3):
            seen.append(row.record_id)
            assert row.state == RecordState.AUTHORED
            if len(seen) == 1:
                store.apply([StateChange(ids[i], RecordState.REJECTED, "test") for i in (4, 10)])
            elif len(seen) == 8:  # a row moved on after it was read is not read again
                store.apply([StateChange(seen[-1], RecordState.VALIDATED, "test")])
        assert seen == [rid for i, rid in enumerate(ids) if i not in (4, 10)]


def test_a_checkpoint_writes_the_wal_into_the_file_and_the_store_goes_on(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        store.upsert_records([record(n) for n in range(5)], RecordState.AUTHORED, "import")
        old = store.con
        store.checkpoint()
        assert_checkpointed(tmp_path)
        with pytest.raises(duckdb.ConnectionException):  # a fresh connection replaced the one that wrote
            old.execute("SELECT 1")
        first = store.record_ids("hotpotqa", [RecordState.AUTHORED])[0]
        store.apply([StateChange(first, RecordState.REJECTED, "test")])
        assert store.state_counts("hotpotqa") == {"authored": 4, "rejected": 1}
        assert store.con.execute("SELECT current_setting('checkpoint_threshold')").fetchone()[0] != "16.0 MiB"


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_store_files_are_for_their_user_only_even_under_a_permissive_umask(tmp_path: Path) -> None:
    """Issue 35: curation.duckdb (every document, draft and the LLM cache) was 0644 in a 0755 workspace."""
    before = os.umask(0o022)
    try:
        with Store.open(tmp_path) as store:
            assert mode(tmp_path / "curation.duckdb") == 0o600
            store.upsert_records([record(n) for n in range(3)], RecordState.AUTHORED, "import")
            assert mode(tmp_path / "curation.duckdb.wal") == 0o600
            store.checkpoint()  # DuckDB deletes the WAL and makes a new one at the next write
            store.upsert_records([record(n) for n in range(3, 6)], RecordState.AUTHORED, "import")
            assert mode(tmp_path / "curation.duckdb.wal") == 0o600
    finally:
        os.umask(before)


def test_a_store_left_readable_by_an_older_version_is_tightened_when_opened(tmp_path: Path) -> None:
    with Store.open(tmp_path):
        pass
    (tmp_path / "curation.duckdb").chmod(0o644)
    with Store.open(tmp_path) as store:
        assert mode(tmp_path / "curation.duckdb") == 0o600
        assert store.state_counts("hotpotqa") == {}
