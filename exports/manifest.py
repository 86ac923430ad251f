"""The release manifest: what was released, from what, and how to check it (hashes)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from core.models import RecordState, utcnow
from core.store import Store
from exports.splits import SPLIT_RATIOS

MANIFEST_FORMAT = 2  # 2: changelog, assets (plots) and rubric version
RECORD_IDS_HASH_METHOD = "sha256 over the released record ids, ascending, each followed by '\\n'"


def file_sha256(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def build_funnel(store: Store, source: str, released: int) -> dict[str, Any]:
    """From loaded source items to released records, with rejection reasons by stage."""
    counts = store.state_counts(source)
    order = [str(state) for state in RecordState]
    states = {s: counts[s] for s in sorted(counts, key=lambda s: (order.index(s) if s in order else 99, s))}
    return {
        "source_items_loaded": store.count_source_items(source),
        "import_lines_rejected": len(store.import_rejections(source)),
        "records_authored": sum(counts.values()),
        "states": states,
        "rejections": [{"stage": stage, "code": code, "records": n} for stage, code, n in store.reason_counts(source)],
        "accepted": counts.get(str(RecordState.ACCEPTED), 0),
        "released": released,
    }


def build_manifest(
    *,
    version: str,
    parent: str | None,
    config: str,
    source: str,
    counts: dict[str, int],
    files: dict[str, dict[str, Any]],
    record_ids_sha256: str,
    new_split_assignments: int,
    judge_name: str,
    judge_version: str,
    threshold: int | float,
    toolkit_version: str,
    stats: dict[str, Any],
    funnel: dict[str, Any],
    card_sha256: str,
    rubric_version: str | None = None,
    changelog: dict[str, Any] | None = None,
    assets: dict[str, dict[str, Any]] | None = None,
    review: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "manifest_format": MANIFEST_FORMAT,
        "version": version,
        "parent_version": parent,
        "config": config,
        "source": source,
        "created_at": utcnow().isoformat(timespec="seconds"),
        "toolkit_version": toolkit_version,
        "judge": {"name": judge_name, "version": judge_version, "threshold": threshold}
        | ({"rubric_version": rubric_version} if rubric_version else {}),
        # Who checked the rows: `heuristic-only` when the offline pre-filter alone accepted some of them.
        "review": review or {"status": "unknown"},
        "tokenizer": stats["tokenizer"],
        "num_records": sum(counts.values()),
        "splits": counts,
        "files": files,
        "record_ids_sha256": record_ids_sha256,
        "record_ids_hash_method": RECORD_IDS_HASH_METHOD,
        "split_policy": {
            "method": "sha256(record_id) mod 100 on first release; sticky afterwards (store split_assignments)",
            "ratios": dict(SPLIT_RATIOS[config]),
            "newly_assigned": new_split_assignments,
        },
        "card_sha256": card_sha256,
        "assets": assets or {},
        "changelog": changelog,
        "funnel": funnel,
        "statistics": stats,
    }
