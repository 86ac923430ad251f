"""One `error:` line for failures of the workspace, its store or an input file: what failed and how to fix it."""

from __future__ import annotations

from pathlib import Path

import duckdb

from core.store import STORE_FILENAME, StoreDamagedError, StoreMemoryError, WorkspaceError
from core.store_connection import is_out_of_memory

# DuckDB's words for a file it cannot make sense of (as opposed to a query that went wrong).
_DAMAGE_MARKERS = ("corrupt", "checksum", "could not read enough bytes", "not a valid duckdb database")


def explain_failure(exc: BaseException, workspace: Path) -> str:
    if isinstance(exc, duckdb.Error) and any(marker in str(exc).lower() for marker in _DAMAGE_MARKERS):
        exc = StoreDamagedError(workspace / STORE_FILENAME, exc)
    if isinstance(exc, StoreDamagedError):
        return f"{exc}. {releases_are_intact(workspace)}"
    if is_out_of_memory(exc):
        exc = StoreMemoryError(workspace / STORE_FILENAME)
    if isinstance(exc, WorkspaceError):
        return str(exc)
    if isinstance(exc, duckdb.Error):
        return (
            f"the store {workspace / STORE_FILENAME} failed: {str(exc).splitlines()[0]}. "
            f"{releases_are_intact(workspace)}"
        )
    if isinstance(exc, IsADirectoryError):
        return f"{exc.filename} is a folder where a file was expected: pass the file itself"
    if isinstance(exc, PermissionError):
        return (
            f"cannot access {exc.filename}: permission denied; give yourself access to it (chmod u+rw) "
            "or pass another path"
        )
    if isinstance(exc, OSError):
        return f"cannot use {exc.filename or 'a file'}: {exc.strerror or exc}"
    return str(exc)


def releases_are_intact(workspace: Path) -> str:
    """Check every release folder against its manifest, so the message says what is really safe."""
    from exports.release import ReleaseError, verify_release

    folders = sorted(p.parent for p in (workspace / "releases").glob("*/*/manifest.json"))
    if not folders:
        return "No release has been written in this workspace yet."
    broken = []
    for folder in folders:
        try:
            verify_release(folder)
        except ReleaseError:
            broken.append(folder)
    intact = len(folders) - len(broken)
    line = (
        f"Releases already written live apart from the store: {intact} of {len(folders)} under "
        f"{workspace / 'releases'} match their manifests"
    )
    if broken:
        line += f"; these do not: {', '.join(str(p) for p in broken)}"
    return line + "."
