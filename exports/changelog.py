"""The changelog between a release and its parent: record ids added, removed and changed, per split.

A record is identified by `record_id` (SHA-256 of source, source id and question), so an edit to
its schema or answer shows as *changed*, not as a removal plus an addition. *Changed* means a
different content digest: SHA-256 over the record's content columns (everything before the
provenance columns: context, question, json_schema, ground_truth, validated_output, difficulty,
complexity, source id and the source's own fields). Re-judging alone does not make a change.
Split assignments are sticky, so a record never changes split; should it happen (a parent from
another workspace), it is listed under `moved`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from exports.columns import CORE_COLUMNS, SOURCE_COLUMNS
from exports.layout import DATA_DIR

CHANGE_KINDS = ("added", "removed", "changed")
_MARKS = {"added": "+", "removed": "-", "changed": "~"}
CARD_ID_LIMIT = 10  # ids listed per kind and split in the card; the manifest lists them all
DIGEST_METHOD = "sha256 of the JSON list of the row's content columns (provenance columns excluded)"


def content_columns(source: str) -> list[str]:
    return [name for name, _ in CORE_COLUMNS] + [name for name, _ in SOURCE_COLUMNS.get(source, ())]


def row_digest(row: Mapping[str, Any], columns: Iterable[str]) -> str:
    values = [row.get(name) for name in columns]
    return hashlib.sha256(json.dumps(values, ensure_ascii=False).encode("utf-8")).hexdigest()


def release_digests(release_path: Path, source: str) -> dict[str, tuple[str, str]]:
    """{record_id: (split, content digest)} from a release folder's data files."""
    columns = content_columns(source)
    found: dict[str, tuple[str, str]] = {}
    data = Path(release_path) / DATA_DIR
    for path in sorted(data.glob("*.parquet")):
        split = path.name.split("-", 1)[0]  # `<split>-<sha256 prefix>.parquet` (`<split>-00000-of-00001` before)
        present = [c for c in columns if c in pq.read_schema(path).names]  # never the page images' bytes
        rows = pq.read_table(path, columns=present).to_pylist()
        for row in rows:
            found[row["record_id"]] = (split, row_digest(row, columns))
    return found


def first_release_changelog(counts: Mapping[str, int], parent: str | None = None) -> dict[str, Any]:
    """No parent to compare with: every record is `added` (counts only). With a `parent` whose
    folder is not available locally, says so."""
    per_split = {split: {"added": n, "removed": 0, "changed": 0, "unchanged": 0} for split, n in counts.items()}
    totals = {kind: sum(s[kind] for s in per_split.values()) for kind in ("added", "removed", "changed", "unchanged")}
    log: dict[str, Any] = {"parent_version": parent, "first_release": parent is None, "totals": totals}
    if parent is not None:
        log["note"] = f"release {parent} is not in this workspace, so this release could not be compared with it"
    log["splits"] = per_split
    return log


def compute_changelog(
    new: Mapping[str, tuple[str, str]],
    old: Mapping[str, tuple[str, str]],
    splits: Iterable[str],
    parent: str | None,
) -> dict[str, Any]:
    """Compare two {record_id: (split, digest)} maps, per split (in `splits` order)."""
    per_split: dict[str, dict[str, Any]] = {
        split: {"added": 0, "removed": 0, "changed": 0, "unchanged": 0} for split in splits
    }
    ids: dict[str, dict[str, list[str]]] = {}
    moved: list[dict[str, str]] = []

    def bucket(split: str) -> dict[str, list[str]]:
        per_split.setdefault(split, {"added": 0, "removed": 0, "changed": 0, "unchanged": 0})
        return ids.setdefault(split, {kind: [] for kind in CHANGE_KINDS})

    for rid in sorted(new):
        split, digest = new[rid]
        if rid not in old:
            bucket(split)["added"].append(rid)
            continue
        old_split, old_digest = old[rid]
        if old_split != split:
            moved.append({"record_id": rid, "from": old_split, "to": split})
            bucket(old_split)["removed"].append(rid)
            bucket(split)["added"].append(rid)
        elif old_digest != digest:
            bucket(split)["changed"].append(rid)
        else:
            per_split.setdefault(split, {"added": 0, "removed": 0, "changed": 0, "unchanged": 0})
            per_split[split]["unchanged"] += 1
    for rid in sorted(old):
        if rid not in new:
            bucket(old[rid][0])["removed"].append(rid)

    for split, kinds in ids.items():
        for kind, listed in kinds.items():
            per_split[split][kind] = len(listed)
            per_split[split][f"{kind}_ids"] = listed
    for split in per_split:
        for kind in CHANGE_KINDS:
            per_split[split].setdefault(f"{kind}_ids", [])
    totals = {kind: sum(s[kind] for s in per_split.values()) for kind in ("added", "removed", "changed", "unchanged")}
    return {
        "parent_version": parent,
        "first_release": False,
        "digest_method": DIGEST_METHOD,
        "totals": totals,
        "splits": per_split,
        "moved": moved,
    }


def diff_releases(config_dir: Path, source: str, old_version: str, new_version: str) -> dict[str, Any]:
    """The changelog from local release `old_version` to `new_version` (both under `config_dir`)."""
    from exports.splits import split_names

    paths = {v: Path(config_dir) / v for v in (old_version, new_version)}
    for version, path in paths.items():
        if not (path / "data").is_dir():
            known = sorted(p.name for p in Path(config_dir).iterdir() if p.is_dir()) if config_dir.is_dir() else []
            raise FileNotFoundError(
                f"no local release {version} in {config_dir} (releases there: {', '.join(known) or 'none'})"
            )
    config = Path(config_dir).name
    log = compute_changelog(
        release_digests(paths[new_version], source),
        release_digests(paths[old_version], source),
        split_names(config),
        old_version,
    )
    log["version"] = new_version
    return log


def format_changelog(log: Mapping[str, Any], version: str | None = None, limit: int | None = None) -> str:
    """Plain-text changelog, for the terminal (`--diff`)."""
    version = version or log.get("version") or "this release"
    parent = log.get("parent_version")
    lines = [f"changes from {parent} to {version}" if parent else f"{version}: first release"]
    totals = log["totals"]
    lines.append(
        f"  total: {totals['added']} added, {totals['removed']} removed, {totals['changed']} changed, "
        f"{totals['unchanged']} unchanged"
    )
    for split, figures in log["splits"].items():
        lines.append(
            f"  {split}: {figures['added']} added, {figures['removed']} removed, {figures['changed']} changed, "
            f"{figures['unchanged']} unchanged"
        )
        for kind in CHANGE_KINDS:
            listed = figures.get(f"{kind}_ids") or []
            shown = listed if limit is None else listed[:limit]
            for rid in shown:
                lines.append(f"    {_MARKS[kind]} {rid}")
            if len(shown) < len(listed):
                lines.append(f"    ... and {len(listed) - len(shown)} more {kind}")
    for move in log.get("moved") or []:
        lines.append(f"  moved {move['record_id']}: {move['from']} -> {move['to']}")
    return "\n".join(lines)
