"""Taking turns on a workspace's store: a process that needs it waits, and the one holding it lets go between
writes, so `--status` or a release from another terminal works while a long run or the service is going.

DuckDB lets one process at a time open a store file. A process that finds it taken leaves a request in
`<workspace>/.waiting/` and tries again until `SOB_WORKSPACE_WAIT` seconds (default 120) have passed. The
holder looks for requests at the end of each stage and between its batches of writes (`Store.let_waiting_in`):
when there is one, it checkpoints, closes the store, waits for the requester to take it (or to give up), and
opens it again, itself waiting its turn the same way. A write is one DuckDB transaction, so two writers never
interleave inside a write; a waiting process never makes the holder fail, it only waits.
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from core.processes import process_alive

WAIT_ENV = "SOB_WORKSPACE_WAIT"
DEFAULT_WAIT_S = 120.0
REQUESTS_DIR = ".waiting"
POLL_S = 0.05
HANDOVER_S = 10.0  # how long a holder that let go waits for the requester to take the store

T = TypeVar("T")


def wait_limit() -> float:
    raw = os.environ.get(WAIT_ENV, "").strip()
    try:
        return max(0.0, float(raw)) if raw else DEFAULT_WAIT_S
    except ValueError:
        return DEFAULT_WAIT_S


@contextmanager
def request(workspace: Path) -> Iterator[Path]:
    """A request for the store, seen by its holder while the block runs."""
    folder = Path(workspace) / REQUESTS_DIR
    folder.mkdir(exist_ok=True)
    path = folder / f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
    path.write_text(str(os.getpid()), encoding="utf-8")
    try:
        yield path
    finally:
        path.unlink(missing_ok=True)


def waiting_requests(workspace: Path) -> list[Path]:
    """Requests of other live processes (a killed requester's file is removed)."""
    folder = Path(workspace) / REQUESTS_DIR
    if not folder.is_dir():
        return []
    found = []
    for path in folder.iterdir():
        try:
            pid = int(path.name.split("-", 1)[0])
        except ValueError:
            continue
        if pid == os.getpid():
            continue
        if process_alive(pid):
            found.append(path)
        else:
            path.unlink(missing_ok=True)
    return found


def take_turns(
    workspace: Path, connect: Callable[[], T], is_busy: Callable[[BaseException], bool], wait_s: float | None = None
) -> T:
    """`connect()`; while the store is taken, wait for its holder to let go (up to `wait_s`, then re-raise)."""
    limit = wait_limit() if wait_s is None else wait_s
    try:
        return connect()
    except Exception as exc:
        if not is_busy(exc) or limit <= 0:
            raise
    started = time.monotonic()
    deadline = started + limit
    told = False
    with request(workspace):
        while True:
            try:
                return connect()
            except Exception as exc:
                if not is_busy(exc) or time.monotonic() >= deadline:
                    raise
            if not told and time.monotonic() - started > 1.0:
                print(
                    f"note: waiting for the run that holds workspace {workspace} to finish its write ...",
                    file=sys.stderr,
                )
                told = True
            time.sleep(POLL_S)


def hand_over(workspace: Path, requests: list[Path], timeout_s: float = HANDOVER_S) -> None:
    """After letting go: wait until the requesters seen have taken the store (their request is gone) or died."""
    deadline = time.monotonic() + timeout_s
    pending = set(requests)
    while pending and time.monotonic() < deadline:
        pending = {path for path in pending if path.exists()}
        if pending:
            time.sleep(POLL_S)
