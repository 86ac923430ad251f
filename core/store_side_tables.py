"""The store's side tables and counts: import lines that could not become records, split assignments, and
records counted by state and by reason."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from core.models import Reason, utcnow
from core.redaction import redact
from core.store_events import EventLog


class SideTables(EventLog):
    """Import rejections, split assignments and counts (a part of `core.store.Store`)."""

    # -- import rejections ---------------------------------------------------------------------
    def add_import_rejections(
        self, source: str, origin: str, rejections: Sequence[tuple[int, str, list[Reason]]]
    ) -> int:
        """Keep lines that could not become records, so they are counted and never lost."""
        rows = [
            {
                "source": source,
                "origin": origin,
                "line_no": line_no,
                "raw": redact(raw),
                "reasons": redact(json.dumps([r.model_dump() for r in reasons], ensure_ascii=False)),
                "logged_at": utcnow(),
            }
            for line_no, raw, reasons in rejections
        ]
        self._write(
            "import_rejections",
            rows,
            conflict="(source, origin, line_no) DO UPDATE SET raw = excluded.raw, reasons = excluded.reasons, "
            "logged_at = excluded.logged_at",
        )
        return len(rows)

    def clear_import_rejections(self, source: str, origin: str) -> None:
        self.con.execute("DELETE FROM import_rejections WHERE source = ? AND origin = ?", [source, origin])

    def import_rejections(self, source: str) -> list[dict[str, Any]]:
        rows = self.con.execute(
            "SELECT origin, line_no, raw, reasons FROM import_rejections WHERE source = ? ORDER BY origin, line_no",
            [source],
        ).fetchall()
        return [{"origin": o, "line_no": n, "raw": raw, "reasons": json.loads(reasons)} for o, n, raw, reasons in rows]

    # -- splits --------------------------------------------------------------------------------
    def split_assignments(self, config: str) -> dict[str, str]:
        return dict(
            self.con.execute("SELECT record_id, split FROM split_assignments WHERE config = ?", [config]).fetchall()
        )

    def assign_splits(self, config: str, assignments: dict[str, str], release: str) -> None:
        rows = [
            {"record_id": rid, "config": config, "split": split, "first_release": release}
            for rid, split in assignments.items()
        ]
        self._write("split_assignments", rows, conflict="(record_id) DO NOTHING")

    # -- reporting -----------------------------------------------------------------------------
    def state_counts(self, source: str) -> dict[str, int]:
        return dict(
            self.con.execute(
                "SELECT state, count(*) FROM records WHERE source = ? GROUP BY state ORDER BY state", [source]
            ).fetchall()
        )

    def reason_counts(self, source: str) -> list[tuple[str, str, int]]:
        """(stage, code, records) for records currently rejected, bounced or held in review, plus import rejections."""
        sql = """
            WITH r AS (
                SELECT record_id, unnest(from_json(reasons, '[{"stage":"VARCHAR","code":"VARCHAR"}]')) AS reason
                FROM records WHERE source = ? AND reasons IS NOT NULL
                  AND state IN ('rejected', 'needs_revision', 'needs_review', 'judge_error')
            ),
            i AS (
                SELECT origin || ':' || line_no AS record_id,
                       unnest(from_json(reasons, '[{"stage":"VARCHAR","code":"VARCHAR"}]')) AS reason
                FROM import_rejections WHERE source = ?
            )
            SELECT reason.stage, reason.code, count(DISTINCT record_id) AS n
            FROM (SELECT * FROM r UNION ALL SELECT * FROM i)
            GROUP BY 1, 2 ORDER BY 1, n DESC, 2
        """
        return [tuple(row) for row in self.con.execute(sql, [source, source]).fetchall()]
