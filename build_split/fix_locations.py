"""Where a curator fixes each held or rejected record: its Label Studio task (the task's URL, in Label Studio's own
form), or the authored file it came from, with the file's path and the line."""

from __future__ import annotations

from collections.abc import Sequence

from authoring import ls_state
from core import revisions
from core.models import RecordState
from core.store import Store

SHOWN_IN_STATUS = 20  # --status names this many; --rejections names every one


def fix_locations(store: Store, record_ids: Sequence[str]) -> dict[str, str]:
    """Record id -> where to fix it: `Label Studio <task URL>`, `<path> line <n>`, or the origin as recorded."""
    urls = ls_state.task_urls(store, record_ids)
    where: dict[str, str] = {}
    for record_id in record_ids:
        if record_id in urls:
            where[record_id] = f"Label Studio {urls[record_id]}"
            continue
        current = revisions.current_revision(store.con, record_id)
        if current is None:
            continue
        detail = current.origin_detail
        if current.origin.startswith("file:"):
            path = detail.get("path") or current.origin[len("file:") :]
            where[record_id] = f"{path} line {detail['line']}" if detail.get("line") else str(path)
        else:
            where[record_id] = revisions.describe_origin(current.origin, detail)
    return where


def fix_lines(store: Store, source: str, limit: int = SHOWN_IN_STATUS) -> list[str]:
    """`--status`'s list: where to fix each held, sent back or rejected record (the first `limit`)."""
    states = [str(s) for s in (RecordState.NEEDS_REVIEW, RecordState.NEEDS_REVISION, RecordState.REJECTED)]
    record_ids = [
        row[0]
        for row in store.con.execute(
            "SELECT record_id FROM records WHERE source = ? AND state = ANY(?) ORDER BY state, record_id",
            [source, states],
        ).fetchall()
    ]
    if not record_ids:
        return []
    where = fix_locations(store, record_ids[:limit])
    lines = ["where to fix them (held, sent back or rejected records):"]
    lines += [f"  {rid[:12]} fix in {where[rid]}" for rid in record_ids[:limit] if rid in where]
    if len(record_ids) > limit:
        lines.append(f"  ... and {len(record_ids) - limit} more: --rejections names every one")
    return lines
