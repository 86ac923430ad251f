"""A Label Studio started by the toolkit never outlives it.

Three guards, because no one of them covers every way the toolkit can end:

- the server runs in its own process group, and `LabelStudioServer.stop()` stops the whole group (normal
  exit, an exception, and SIGINT/SIGTERM/SIGHUP, which `core.stop_signals` turns into an exception);
- on Linux the server is asked to receive SIGTERM when the toolkit dies (`prctl(PR_SET_PDEATHSIG)`), which
  covers SIGKILL of the toolkit;
- the server's process group is recorded in `<data dir>/server.pid`; the next start in the same data dir
  finds a server still running from a killed run (one that ignored or never got the signal above) and stops
  it before anything else, so it cannot hold the port or the data dir.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from core.processes import group_alive, process_alive

PID_FILENAME = "server.pid"
_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """In the child, before exec: SIGTERM when the parent dies (Linux; elsewhere the pid record covers it)."""
    with contextlib.suppress(OSError, AttributeError):  # not Linux: the pid record is the fallback
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


@dataclass(frozen=True)
class ServerRecord:
    """What a started server leaves in its data dir while it runs."""

    pid: int  # the server's process, leader of its own process group
    port: int
    owner_pid: int  # the toolkit process that started it

    @classmethod
    def read(cls, data_dir: Path) -> ServerRecord | None:
        try:
            raw = json.loads((data_dir / PID_FILENAME).read_text(encoding="utf-8"))
            return cls(pid=int(raw["pid"]), port=int(raw["port"]), owner_pid=int(raw["owner_pid"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def write(self, data_dir: Path) -> None:
        path = data_dir / PID_FILENAME
        path.write_text(json.dumps({"pid": self.pid, "port": self.port, "owner_pid": self.owner_pid}), encoding="utf-8")


def forget(data_dir: Path) -> None:
    (data_dir / PID_FILENAME).unlink(missing_ok=True)


def _is_label_studio_of(pid: int, data_dir: Path) -> bool:
    """The recorded pid is still this data dir's Label Studio (not a pid the system gave to another program)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return process_alive(pid)  # no /proc: trust the record
    text = [part.decode("utf-8", "replace") for part in argv]
    return any("label-studio" in part or "label_studio" in part for part in text) and str(data_dir) in text


def stop_group(pgid: int, timeout_s: float = 10.0) -> None:
    """SIGTERM the group, wait, then SIGKILL what is left."""
    for sig, wait in ((signal.SIGTERM, timeout_s), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if not group_alive(pgid):
                return
            time.sleep(0.1)


class ServerInUse(RuntimeError):
    """The data dir's server belongs to a toolkit run that is still going (another terminal)."""

    def __init__(self, record: ServerRecord) -> None:
        super().__init__(
            f"Label Studio of this workspace already runs on port {record.port}, started by process "
            f"{record.owner_pid}: use it (--label-studio-url http://127.0.0.1:{record.port}) or stop that run first"
        )
        self.record = record


def _ours(record: ServerRecord, data_dir: Path) -> bool:
    """The recorded process group still runs this data dir's Label Studio. A group whose leader is gone but
    whose members live is still ours: Linux gives no new process the id of a live process group."""
    if not group_alive(record.pid):
        return False
    return not process_alive(record.pid) or _is_label_studio_of(record.pid, data_dir)


def stop_orphan(data_dir: Path) -> ServerRecord | None:
    """Stop a server that a killed run left in `data_dir`; returns its record when there was one to stop.
    ServerInUse when the run that started it is still alive."""
    record = ServerRecord.read(data_dir)
    if record is None:
        return None
    running = _ours(record, data_dir)
    if running and record.owner_pid != os.getpid() and process_alive(record.owner_pid):
        raise ServerInUse(record)
    if running:
        stop_group(record.pid)
    forget(data_dir)
    return record if running else None
