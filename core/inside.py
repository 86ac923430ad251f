"""Paths named by input data stay inside their root.

A test file, a row or a manifest may name a file (`"pdf": "../../../etc/x.pdf"`, an absolute path, a
symlink out of the folder). Each such name is joined to the folder it is relative to and resolved; a
name that lands outside is refused, so no input can make the toolkit read or write beside its workspace.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath


def inside(root: Path, name: str) -> Path | None:
    """`root / name` resolved, or None when `name` is absolute, empty or leads outside `root`
    (through `..` or a symlink)."""
    if not name or "\0" in name or PurePosixPath(name).is_absolute() or Path(name).is_absolute():
        return None
    base = Path(root).resolve()
    target = (base / name).resolve()
    return target if target != base and target.is_relative_to(base) else None
