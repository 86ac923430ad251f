"""The `--serve` lease on a project: one service per Label Studio project, kept in the project's description.

`[sob-toolkit service host <host> pid <pid> since <time> seen <time>]` names the service that holds the lease (see
`authoring.labelstudio.ownership` for the workspace mark beside it). A second service on the project is refused
with a line naming the first, unless the first is gone: on this host, a process that no longer runs; on another
host, a lease not renewed for `STALE_AFTER_S` seconds (`--serve` renews it every `RENEW_S` seconds). Label Studio
offers no compare-and-swap, so a lease is written, then read back: two services starting within the same second
are told apart there, and the one that lost learns it at its next renewal.
"""

from __future__ import annotations

import os
import re
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from authoring.labelstudio.client import LabelStudioSession
from authoring.labelstudio.errors import LabelStudioError
from core.processes import process_alive

RENEW_S = 20.0
STALE_AFTER_S = 120.0
_LEASE = re.compile(r"\[sob-toolkit service host (\S+) pid (\d+) since (\S+) seen (\S+)\]")


class ProjectServed(LabelStudioError):
    """Another `--serve` holds the project's lease."""


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class Lease:
    host: str
    pid: int
    since: datetime
    seen: datetime

    @classmethod
    def mine(cls, since: datetime | None = None) -> Lease:
        now = _now()
        return cls(socket.gethostname(), os.getpid(), since or now, now)

    @classmethod
    def of(cls, description: str | None) -> Lease | None:
        found = _LEASE.search(description or "")
        if found is None:
            return None
        try:
            since, seen = (datetime.fromisoformat(found.group(i).replace("Z", "+00:00")) for i in (3, 4))
        except ValueError:
            return None
        return cls(found.group(1), int(found.group(2)), since, seen)

    def line(self) -> str:
        return (
            f"[sob-toolkit service host {self.host} pid {self.pid} since {_stamp(self.since)} seen {_stamp(self.seen)}]"
        )

    def is_mine(self) -> bool:
        return self.host == socket.gethostname() and self.pid == os.getpid()

    def gone(self) -> str | None:
        """Why this lease no longer holds (None while its service may still run)."""
        if self.host == socket.gethostname():  # this host can tell for sure
            return None if process_alive(self.pid) else f"process {self.pid} on {self.host} no longer runs"
        idle = (_now() - self.seen).total_seconds()
        if idle > STALE_AFTER_S:
            return f"its lease was last renewed {idle:.0f} s ago"
        return None

    def holder(self) -> str:
        return f"host {self.host}, process {self.pid}, serving since {_stamp(self.since)}"


def with_lease(description: str | None, lease: Lease | None) -> str:
    text = _LEASE.sub("", description or "").rstrip()
    return f"{text}\n{lease.line()}".lstrip() if lease is not None else text


def _description(session: LabelStudioSession, project_id: int) -> str:
    project = session.call("reading the project", session.client.projects.get, id=project_id)
    return getattr(project, "description", None) or ""


def _write(session: LabelStudioSession, project_id: int, description: str) -> None:
    session.call("writing the service's lease", session.client.projects.update, id=project_id, description=description)


def take_lease(session: LabelStudioSession, project_id: int) -> tuple[Lease, str | None]:
    """Hold the project's lease for this process: the lease, and a note when a dead service's lease was taken
    over. ProjectServed naming the holder when another service holds it."""
    held = Lease.of(_description(session, project_id))
    note = None
    if held is not None and not held.is_mine():
        why = held.gone()
        if why is None:
            lapse = f" (its lease lapses {STALE_AFTER_S:.0f} s after it last renewed it)"
            lapse = "" if held.host == socket.gethostname() else lapse
            raise ProjectServed(
                f"Label Studio project {project_id} at {session.base_url} is already served by {held.holder()}: "
                f"stop that service first{lapse}"
            )
        note = f"took over project {project_id} from a service that ended ({held.holder()}; {why})"
    mine = Lease.mine()
    _write(session, project_id, with_lease(_description(session, project_id), mine))
    now_held = Lease.of(_description(session, project_id))
    if now_held is None or not now_held.is_mine():  # another service wrote in between: it wins
        holder = now_held.holder() if now_held else "another service"
        raise ProjectServed(f"Label Studio project {project_id} at {session.base_url} was taken by {holder}")
    return mine, note


def renew_lease(session: LabelStudioSession, project_id: int, since: datetime) -> None:
    """Renew this process's lease; ProjectServed when another service took it meanwhile."""
    description = _description(session, project_id)
    held = Lease.of(description)
    if held is not None and not held.is_mine():
        raise ProjectServed(f"Label Studio project {project_id} is now served by {held.holder()}; stopping")
    _write(session, project_id, with_lease(description, Lease.mine(since)))


def release_lease(session: LabelStudioSession, project_id: int) -> None:
    try:
        description = _description(session, project_id)
        held = Lease.of(description)
        if held is not None and held.is_mine():
            _write(session, project_id, with_lease(description, None))
    except LabelStudioError:
        pass  # the server is gone: the lease lapses on its own


class LeaseKeeper:
    """Renews this service's lease every `every_s` seconds (RENEW_S) in a thread of its own, so that a renewal (a
    read and a write of the project, which grow dear on a busy server) never holds up a cycle and the verdict a
    curator waits for. A renewal that fails (the lease was taken, the server is gone) is kept, `on_failure` is
    called to wake the service, and `raise_failure` raises it there: the service stops as it did when it renewed
    in its own loop."""

    def __init__(
        self,
        session: LabelStudioSession,
        project_id: int,
        since: datetime,
        on_failure: Callable[[], None],
        every_s: float | None = None,
    ):
        self._renew = lambda: renew_lease(session, project_id, since)
        self._on_failure = on_failure
        self._every_s = RENEW_S if every_s is None else every_s
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"lease-{project_id}", daemon=True)
        self.failure: BaseException | None = None
        self.renewals = 0

    def __enter__(self) -> LeaseKeeper:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stopped.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stopped.wait(self._every_s):
            try:
                self._renew()
            except BaseException as exc:  # noqa: BLE001 - handed to the service's own thread, which raises it
                self.failure = exc
                self._on_failure()
                return
            self.renewals += 1

    def raise_failure(self) -> None:
        if self.failure is not None:
            raise self.failure
