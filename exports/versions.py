"""Release versions: strict semantic versions (X.Y.Z), and finding the previous release."""

from __future__ import annotations

import re
from pathlib import Path

# ASCII digits only: `\d` would take other scripts' digits too (`1١.0.0` is not 11.0.0, nor any version).
_SEMVER = re.compile(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)")


class InvalidVersionError(ValueError):
    """A release version that is not X.Y.Z."""


def parse_version(version: str) -> tuple[int, int, int]:
    """`"1.2.3"` -> `(1, 2, 3)`; anything else (`v1.2.3`, `1.2`, `1.2.3-rc1`, `01.2.3`) is refused."""
    match = _SEMVER.fullmatch(version) if isinstance(version, str) else None
    if not match:
        raise InvalidVersionError(
            f"invalid release version {version!r}: use a semantic version MAJOR.MINOR.PATCH such as "
            "'1.0.0' (digits only, no 'v' prefix, no leading zeros, no pre-release suffix)"
        )
    major, minor, patch = (int(part) for part in match.groups())
    return major, minor, patch


def released_versions(config_dir: Path) -> list[str]:
    """Versions already released in `releases/<config>/`, oldest first (temp folders ignored)."""
    if not config_dir.is_dir():
        return []
    found = [p.name for p in config_dir.iterdir() if p.is_dir() and _SEMVER.fullmatch(p.name)]
    return sorted(found, key=parse_version)


def previous_version(config_dir: Path, version: str) -> str | None:
    """The highest released version below `version`, or None."""
    key = parse_version(version)
    below = [v for v in released_versions(config_dir) if parse_version(v) < key]
    return below[-1] if below else None
