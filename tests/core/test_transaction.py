from pathlib import Path

import duckdb
import pytest

from core.transaction import run_transaction, transaction


@pytest.fixture
def con(tmp_path: Path) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(str(tmp_path / "t.duckdb"))
    con.execute("CREATE TABLE t (x INTEGER)")
    return con


def rows(con: duckdb.DuckDBPyConnection) -> list[int]:
    return [x for (x,) in con.execute("SELECT x FROM t ORDER BY x").fetchall()]


def test_a_block_that_ends_commits(con: duckdb.DuckDBPyConnection) -> None:
    with transaction(con):
        con.execute("INSERT INTO t VALUES (1), (2)")
    assert rows(con) == [1, 2]


def test_a_block_that_fails_leaves_nothing_and_raises_its_own_error(con: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(ValueError, match="half way"):
        with transaction(con):
            con.execute("INSERT INTO t VALUES (1)")
            raise ValueError("half way")
    assert rows(con) == []
    with transaction(con):  # the connection is usable again
        con.execute("INSERT INTO t VALUES (3)")
    assert rows(con) == [3]


def test_the_error_that_ended_the_transaction_is_reported_not_the_failed_rollback(
    con: duckdb.DuckDBPyConnection,
) -> None:
    # Running out of memory ends DuckDB's transaction itself; a plain ROLLBACK then failed with "no transaction
    # is active" and hid the real error (the CLI called the store damaged).
    with pytest.raises(RuntimeError, match="the real failure"):
        with transaction(con):
            con.execute("INSERT INTO t VALUES (1)")
            con.execute("ROLLBACK")  # as DuckDB does on such a failure
            raise RuntimeError("the real failure")
    assert rows(con) == []


def test_work_that_may_be_retried_runs_again_from_a_clean_slate(con: duckdb.DuckDBPyConnection) -> None:
    attempts = []

    def work() -> None:
        attempts.append(len(attempts))
        con.execute("INSERT INTO t VALUES (?)", [len(attempts)])
        if len(attempts) == 1:
            raise duckdb.OutOfMemoryException("could not allocate block")

    run_transaction(con, work, retry_when=lambda exc: isinstance(exc, duckdb.OutOfMemoryException))
    assert attempts == [0, 1] and rows(con) == [2]  # the first attempt's row was rolled back


def test_an_error_not_to_retry_is_raised_after_one_attempt(con: duckdb.DuckDBPyConnection) -> None:
    attempts = []

    def work() -> None:
        attempts.append(1)
        con.execute("INSERT INTO t VALUES (1)")
        raise duckdb.ConstraintException("duplicate key")

    with pytest.raises(duckdb.ConstraintException):
        run_transaction(con, work, retry_when=lambda exc: isinstance(exc, duckdb.OutOfMemoryException))
    assert attempts == [1] and rows(con) == []


def test_a_failed_commit_is_never_run_again(con: duckdb.DuckDBPyConnection) -> None:
    # DuckDB may have applied part of a commit that failed: running the work again could apply it twice.
    attempts = []

    def work() -> None:
        attempts.append(1)
        con.execute("ROLLBACK")  # the COMMIT after the work then fails

    with pytest.raises(duckdb.TransactionException):
        run_transaction(con, work, retry_when=lambda exc: True)
    assert attempts == [1]
