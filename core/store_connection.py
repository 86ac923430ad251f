"""Opening the store's DuckDB file: its settings (checkpoint threshold, memory limit) and the errors that name
what stops it from opening and how to fix it."""

from __future__ import annotations

import os
import re
from pathlib import Path

import duckdb

STORE_FILENAME = "curation.duckdb"
CHECKPOINT_THRESHOLD = "128MB"
# DuckDB keeps every block it has read or written cached up to its memory limit, 80% of the machine's RAM
# by default: a 25k-record run held 250-300 MB of cache on top of the work itself. A limit makes it evict
# (spilling to `curation.duckdb.tmp` beside the store when it must) instead; 256 MB ran 100k records.
STORE_MEMORY_ENV = "SOB_STORE_MEMORY"
DEFAULT_STORE_MEMORY = "256MB"
_MEMORY_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([KMGT]i?B)", re.IGNORECASE)


class WorkspaceError(RuntimeError):
    """The workspace or its store cannot be used; the message says why and how to fix it."""


class WorkspaceBusyError(WorkspaceError):
    """Another process holds the workspace's store."""


class StoreTooNewError(WorkspaceError):
    """The store was migrated by a newer toolkit: this one does not know all its tables or how its rows are kept."""

    def __init__(self, path: Path, store_version: int, known_version: int) -> None:
        super().__init__(
            f"the store {path} was last opened by a newer version of the toolkit (store format {store_version}; "
            f"this version knows formats up to {known_version}). Update the toolkit (git pull, then pip install "
            "-e . again) before working in this workspace: an older version could misread what the newer one wrote"
        )


class StoreDamagedError(WorkspaceError):
    """The store file cannot be read: truncated, overwritten or otherwise not a DuckDB database."""

    def __init__(self, path: Path, detail: object) -> None:
        first_line = str(detail).strip().splitlines()[0] if str(detail).strip() else type(detail).__name__
        super().__init__(
            f"the store {path} is damaged and cannot be read ({first_line}). Move it aside "
            f"(mv {path} {path}.damaged) and run again with your inputs to rebuild it, or restore it from a backup"
        )
        self.path = path


class StoreMemoryError(WorkspaceError):
    """The store needed more memory than SOB_STORE_MEMORY allows."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"the store {path} needed more memory than its limit ({STORE_MEMORY_ENV}={store_memory_setting()}): "
            f"set {STORE_MEMORY_ENV} higher (for example 1GB) and run again; every batch committed before this "
            "one is kept"
        )


def is_out_of_memory(exc: BaseException) -> bool:
    """DuckDB ran out of its memory limit (also when the failure surfaces as a failed commit)."""
    return isinstance(exc, duckdb.OutOfMemoryException) or (
        isinstance(exc, duckdb.Error) and "could not allocate block" in str(exc).lower()
    )


def is_busy(exc: BaseException) -> bool:
    return isinstance(exc, WorkspaceBusyError)


def open_error(workspace: Path, path: Path, exc: Exception) -> WorkspaceError:
    """Name what stops the store from opening, and how to fix it."""
    text = str(exc)
    lowered = text.lower()
    if "could not set lock" in lowered or "conflicting lock" in lowered:
        return WorkspaceBusyError(
            f"workspace {workspace} is in use by another process ({exc}). "
            "Wait for that run to finish, or use another --workspace."
        )
    if isinstance(exc, PermissionError) or "permission denied" in lowered or "read-only" in lowered:
        return WorkspaceError(
            f"workspace {workspace} is not writable ({text.splitlines()[0]}): give yourself write access "
            f"(chmod -R u+w {workspace}) or pass another --workspace"
        )
    if isinstance(exc, OSError):
        return WorkspaceError(f"workspace {workspace} cannot be used: {exc}")
    if is_out_of_memory(exc):
        return StoreMemoryError(path)
    return StoreDamagedError(path, exc)


def store_memory_setting() -> str:
    """What SOB_STORE_MEMORY says (a size such as 512MB or 2GB), or the default."""
    return os.environ.get(STORE_MEMORY_ENV, "").strip() or DEFAULT_STORE_MEMORY


def store_memory_limit() -> int:
    """The store's memory limit in bytes, as DuckDB reads the setting ('256MB' is 256,000,000 bytes and
    '1GiB' 1,073,741,824); ValueError naming SOB_STORE_MEMORY when it is no size."""
    value = store_memory_setting()
    match = _MEMORY_SIZE.fullmatch(value)
    if match is None:
        raise ValueError(f"{STORE_MEMORY_ENV}={value!r}: expected a size such as 512MB or 2GB")
    number, unit = float(match.group(1)), match.group(2).upper()
    base = 1024 if "I" in unit else 1000
    return int(number * base ** ("KMGT".index(unit[0]) + 1))


def keep_files_private(path: Path) -> None:
    """The store holds every document, draft and the LLM cache: only its user may read it. DuckDB creates the
    file, its WAL (anew after each checkpoint) and its spill folder with the process umask, so the umask of a
    process that opens a store keeps group and others out from then on (files 0600, folders 0700); files an
    older version left readable are tightened."""
    current = os.umask(0o077)
    os.umask(current | 0o077)
    for existing, mode in ((path, 0o600), (Path(f"{path}.wal"), 0o600), (Path(f"{path}.tmp"), 0o700)):
        try:
            info = existing.lstat()
            if info.st_uid == os.getuid() and info.st_mode & 0o077 and not existing.is_symlink():
                existing.chmod(mode)
        except OSError:  # missing, or not ours to change (opening it says what is wrong, if anything)
            continue


def connect(workspace: Path, path: Path, memory_limit: int) -> duckdb.DuckDBPyConnection:
    keep_files_private(path)
    try:
        con = duckdb.connect(str(path))
    except (duckdb.Error, OSError) as exc:
        raise open_error(workspace, path, exc) from exc
    try:
        # DuckDB checkpoints (rewrites changed tables into the file) whenever 16 MB of WAL has built up:
        # with whole records of several KB per row, a 25k-record stage then checkpoints dozens of times,
        # each slower as the store grows. A larger WAL checkpoints a few times per run instead; every
        # commit is still in the WAL on disk, so nothing committed is lost on a crash.
        con.execute(f"SET checkpoint_threshold = '{CHECKPOINT_THRESHOLD}'")
        con.execute(f"SET memory_limit = '{memory_limit}B'")
    except duckdb.Error as exc:
        con.close()
        raise open_error(workspace, path, exc) from exc
    return con
