"""Taking turns on a workspace's store: a process that needs it waits, and the one holding it lets go between
writes, so `--status` or a release from another terminal works while a long run or the service is going.

DuckDB lets one process at a time open a store file. A process that finds it taken leaves a request in
`<workspace>/.waiting/` and tries again until `SOB_WORKSPACE_WAIT` seconds (default 120) have passed. The
holder looks for requests at the end of each stage and between its batches of writes (`Store.let_waiting_in`):
when there is one, it checkpoints, closes the store, waits for the requester to take it (or to give up), and
opens it again, itself waiting its turn the same way. A write is one DuckDB transaction, so two writers never
interleave inside a write; a waiting process never makes the holder fail, it only waits.

A request names its process by pid and start time: a request whose process has ended (killed, a zombie, or
its pid since taken by another process) is removed, not waited for. A requester that does not take the store
within `HANDOVER_S` of being let in is not waited for again by that holder; every wait past a second says
what it waits for.
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


def process_start(pid: int) -> str | None:
    """When process `pid` started (Linux: its start time in clock ticks since boot), "" where that cannot be
    read (no /proc: then only whether it exists counts), None when it is not running (gone, or a zombie)."""
    if not process_alive(pid):
        return None
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return "" if not Path("/proc/self/stat").exists() else None
    fields = stat[stat.rfind(")") + 2 :].split()  # the name in parentheses may hold spaces
    if len(fields) < 20 or fields[0] in ("Z", "X"):
        return None
    return fields[19]


@contextmanager
def request(workspace: Path) -> Iterator[Path]:
    """A request for the store, seen by its holder while the block runs."""
    folder = Path(workspace) / REQUESTS_DIR
    folder.mkdir(exist_ok=True)
    path = folder / f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
    path.write_text(f"{os.getpid()} {process_start(os.getpid()) or ''}".strip(), encoding="utf-8")
    try:
        yield path
    finally:
        path.unlink(missing_ok=True)


def _requester_alive(path: Path) -> bool | None:
    """True for a request of a running process, False for one of an ended process, None for a file that is not
    a request (left alone)."""
    try:
        pid = int(path.name.split("-", 1)[0])
        words = path.read_text(encoding="utf-8", errors="replace").split()
    except FileNotFoundError:  # taken back by its process meanwhile
        return None
    except (ValueError, OSError):
        return None
    started = process_start(pid)
    if started is None:
        return False
    recorded = words[1] if len(words) > 1 else None
    return not (recorded and started and recorded != started)  # the pid now belongs to another process


_unanswered: set[Path] = set()  # requests this process let in that never took the store: not waited for again


def waiting_requests(workspace: Path) -> list[Path]:
    """Requests of other running processes (a request of an ended process is removed)."""
    folder = Path(workspace) / REQUESTS_DIR
    if not folder.is_dir():
        return []
    found = []
    for path in folder.iterdir():
        if path.name.startswith(f"{os.getpid()}-") or path in _unanswered:
            continue
        alive = _requester_alive(path)
        if alive:
            found.append(path)
        elif alive is False:
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


def hand_over(workspace: Path, requests: list[Path], timeout_s: float | None = None) -> None:
    """After letting go: wait until the requesters seen have taken the store (their request is gone) or ended.
    One that has not within `timeout_s` (default HANDOVER_S) is named, and not waited for again."""
    limit = HANDOVER_S if timeout_s is None else timeout_s
    started = time.monotonic()
    pending = set(requests)
    told = False
    while pending and time.monotonic() - started < limit:
        pending = {path for path in pending if path.exists() and _requester_alive(path) is not False}
        if pending and not told and time.monotonic() - started > 1.0:
            print(f"note: letting {_named(pending)} use workspace {workspace} ...", file=sys.stderr)
            told = True
        if pending:
            time.sleep(POLL_S)
    pending = {path for path in pending if path.exists()}
    if pending:
        _unanswered.update(pending)
        print(
            f"note: {_named(pending)} did not take workspace {workspace} within {limit:g} s of being let in: "
            "carrying on without waiting for it again",
            file=sys.stderr,
        )


def _named(requests: set[Path]) -> str:
    pids = sorted(path.name.split("-", 1)[0] for path in requests)
    return ("process " if len(pids) == 1 else "processes ") + ", ".join(pids) + f" (request in {REQUESTS_DIR}/)"
