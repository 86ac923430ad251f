"""The flags of a source's records for the card and manifest: how many each check raised, how the curators
resolved them (fixed, dismissed), how many are still open, and how many records wait in `needs_review`.

Read with one query over the stored JSON (a record's review lives in the record or, once the judge wrote it,
in its derived column: core/derived.py), so counting never builds a Record per row.
"""

from __future__ import annotations

from typing import Any

from core.models import RecordState
from core.store import Store

_FLAGS = """
WITH r AS (
    SELECT record_id, state, coalesce(
        json_extract(derived, '$.provenance.review.flags'), json_extract(record, '$.provenance.review.flags')
    ) AS flags
    FROM records WHERE source = ? {states}
), f AS (
    SELECT record_id, state,
           unnest(from_json(flags, '[{"code":"VARCHAR","status":"VARCHAR","raised_by":"VARCHAR"}]')) AS flag
    FROM r WHERE flags IS NOT NULL
)
"""
_COUNTS_SQL = (
    _FLAGS.replace("{states}", "")
    + """SELECT flag.code, flag.status, coalesce(flag.raised_by, 'reviewer') LIKE 'gate:%' AS by_gate, count(*) AS n
FROM f GROUP BY ALL ORDER BY ALL"""
)
_OPEN_ACCEPTED_SQL = (
    _FLAGS.replace("{states}", "AND state = 'accepted'")
    + "SELECT DISTINCT record_id FROM f WHERE flag.status = 'open' ORDER BY 1"
)

STATUSES = ("fixed", "dismissed", "open")


def flag_counts(store: Store, source: str) -> dict[str, Any]:
    """{raised, fixed, dismissed, open, by_code: {code: {raised, fixed, dismissed, open}}, by_origin: {gate,
    reviewer: raised}, needs_review: records waiting for a person}."""
    totals = dict.fromkeys(("raised", *STATUSES), 0)
    by_code: dict[str, dict[str, int]] = {}
    by_origin = {"gate": 0, "reviewer": 0}
    for code, status, by_gate, n in store.con.execute(_COUNTS_SQL, [source]).fetchall():
        row = by_code.setdefault(code, dict.fromkeys(("raised", *STATUSES), 0))
        status = status if status in STATUSES else "open"
        for target in (row, totals):
            target["raised"] += n
            target[status] += n
        by_origin["gate" if by_gate else "reviewer"] += n
    return {
        **totals,
        "by_code": dict(sorted(by_code.items(), key=lambda kv: (-kv[1]["raised"], kv[0]))),
        "by_origin": by_origin,
        "needs_review": store.count_in_state(source, RecordState.NEEDS_REVIEW),
    }


def accepted_with_open_flags(store: Store, source: str) -> list[str]:
    """Record ids of accepted records that still carry an open flag: none may be released."""
    return [rid for (rid,) in store.con.execute(_OPEN_ACCEPTED_SQL, [source]).fetchall()]
