"""Whose project is it: the workspace mark the toolkit keeps in a Label Studio project's description.

Label Studio (open source) has no free-form project metadata, so the toolkit keeps one-line marks at the end of
the project's description, where an administrator can read them too. `[sob-toolkit workspace <id>]` names the
workspace that made (or adopted) the project; the id is drawn once per workspace and kept in
`<workspace>/workspace-id`. A project found by title that another workspace marked, or that no workspace marked,
is never written into without `--adopt` (which moves the mark). The `--serve` lease beside it: `lease.py`.
"""

from __future__ import annotations

import re
import uuid
from pathlib import Path
from typing import Any

from authoring.labelstudio.errors import LabelStudioError

IDENTITY_FILENAME = "workspace-id"
_OWNER = re.compile(r"\[sob-toolkit workspace ([0-9a-f]{32})\]")


class ForeignProject(LabelStudioError):
    """A project by the toolkit's title that this workspace did not make: written into only with --adopt."""


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
