"""One DuckDB transaction, committed when its block ends and rolled back when it fails."""

from __future__ import annotations

from collections.abc import Iterator
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


def _roll_back(con: duckdb.DuckDBPyConnection) -> None:
    try:
        con.execute("ROLLBACK")
    except duckdb.TransactionException as exc:
        # Some failures (running out of memory) end the transaction inside DuckDB: there is nothing left to
        # undo, and the error to report is the one that ended it, not "no transaction is active".
        if "no transaction is active" not in str(exc):
            raise
