"""Whose project is it, and which service serves it: marks the toolkit keeps in a project's description.

Label Studio (open source) has no free-form project metadata, so the toolkit keeps two one-line marks at the end
of the project's description, where an administrator can read them too:

- `[sob-toolkit workspace <id>]`: the workspace that made (or adopted) the project. The id is drawn once per
  workspace and kept in `<workspace>/workspace-id`. A project found by title that another workspace marked, or
  that no workspace marked, is never written into without `--adopt` (which moves the mark).
- `[sob-toolkit service host <host> pid <pid> since <time> seen <time>]`: the `--serve` process that holds the
  project's lease. A second service on the project is refused with a line naming the first, unless the first is
  gone: on this host, a process that no longer runs; on another host, a lease not renewed for `STALE_AFTER_S`
  seconds (`--serve` renews it every `RENEW_S` seconds). Label Studio offers no compare-and-swap,
  so a lease is written, then read back: two services starting within the same second are told apart there.
"""

from __future__ import annotations

import os
import re
import socket
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from authoring.labelstudio.client import LabelStudioError, LabelStudioSession
from core.processes import process_alive

IDENTITY_FILENAME = "workspace-id"
RENEW_S = 20.0
STALE_AFTER_S = 120.0
_OWNER = re.compile(r"\[sob-toolkit workspace ([0-9a-f]{32})\]")
_LEASE = re.compile(r"\[sob-toolkit service host (\S+) pid (\d+) since (\S+) seen (\S+)\]")


class ForeignProject(LabelStudioError):
    """A project by the toolkit's title that this workspace did not make: written into only with --adopt."""


class ProjectServed(LabelStudioError):
    """Another `--serve` holds the project's lease."""


def workspace_identity(workspace: Path) -> str:
    """This workspace's id (drawn on first use)."""
    path = Path(workspace) / IDENTITY_FILENAME
    try:
        text = path.read_text(encoding="utf-8").strip()
        if re.fullmatch(r"[0-9a-f]{32}", text):
            return text
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise LabelStudioError(f"cannot read {path}: {exc.strerror}") from exc
    identity = uuid.uuid4().hex
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(identity + "\n", encoding="utf-8")
    return identity


def owner(description: str | None) -> str | None:
    found = _OWNER.search(description or "")
    return found.group(1) if found else None


def with_owner(description: str | None, identity: str) -> str:
    text = _OWNER.sub("", description or "").rstrip()
    return f"{text}\n\n[sob-toolkit workspace {identity}]".lstrip()


def check_owner(project: Any, identity: str, *, adopt: bool, base_url: str) -> str | None:
    """The description to write when the project needs this workspace's mark, None when it has it already.
    ForeignProject when another workspace (or none) marked it and `adopt` is off."""
    description = getattr(project, "description", None) or ""
    marked = owner(description)
    if marked == identity:
        return None
    if not adopt:
        whose = f"workspace {marked[:8]}" if marked else "no workspace of this toolkit"
        raise ForeignProject(
            f"Label Studio project {project.id} {project.title!r} at {base_url} was made by {whose}, not by this "
            "one: pass --adopt to curate it from this workspace, or set LABEL_STUDIO_PROJECT_TITLE to make a "
            "project of its own"
        )
    return with_owner(description, identity)


# -- the service's lease ------------------------------------------------------------------------------------
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
