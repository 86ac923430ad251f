"""Checks on a workspace's store files shared by the stage tests."""

from __future__ import annotations

from pathlib import Path

from core.store import STORE_FILENAME


def assert_checkpointed(workspace: Path) -> None:
    """The stage wrote its changes into the store file at its end (Store.checkpoint), not left them in the WAL
    (and in memory DuckDB cannot evict) for the next stage."""
    wal = workspace / f"{STORE_FILENAME}.wal"
    assert not wal.exists() or wal.stat().st_size == 0
