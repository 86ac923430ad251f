"""DuckDB transactions: committed when the work ends, rolled back when it fails."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import duckdb


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """BEGIN ... COMMIT around the block; on an error, ROLLBACK and re-raise that error."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield
        con.execute("COMMIT")
    except Exception:
        _roll_back(con)
        raise


def run_transaction(
    con: duckdb.DuckDBPyConnection, work: Callable[[], None], retry_when: Callable[[duckdb.Error], bool]
) -> None:
    """`work` in one transaction. When it fails with an error `retry_when` accepts (and may act on), it is
    rolled back and run again. A failed COMMIT is never run again: DuckDB may have applied part of it."""
    while True:
        worked = False
        try:
            with transaction(con):
                work()
                worked = True
            return
        except duckdb.Error as exc:
            if worked or not retry_when(exc):
                raise


def _roll_back(con: duckdb.DuckDBPyConnection) -> None:
    try:
        con.execute("ROLLBACK")
    except duckdb.TransactionException as exc:
        # Some failures (running out of memory) end the transaction inside DuckDB: there is nothing left to
        # undo, and the error to report is the one that ended it, not "no transaction is active".
        if "no transaction is active" not in str(exc):
            raise
