"""The numbers behind the card's plots, read from the curation store (exports/plots.py draws them).

- judge scores of every judged record, accepted and not accepted apart, per dimension;
- the funnel: source items loaded, drafted, records authored, validated, judged, released, with the main
  reasons records fell out before each step;
- flags by code and how they were resolved (exports/flags.py counts them).

One query each over the stored JSON, so a release of 25,000 records does not build a Record per row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core import fast_json
from core.models import RecordState
from core.store import Store

ACCEPTED, NOT_ACCEPTED = "accepted", "rejected"  # the two groups of judged records
FUNNEL_STEPS = ("loaded", "drafted", "authored", "validated", "judged", "released")
# The funnel step a reason's stage kept a record (or an input line) from reaching.
STEP_OF_STAGE = {
    "load": "loaded",
    "draft": "drafted",
    "import": "authored",
    "authoring": "authored",
    "label_studio": "authored",
    "curator": "authored",
    "store": "authored",
    "validation": "validated",
    "gate": "validated",
    "review": "validated",
    "judge": "released",
    "audit": "released",
}
REASONS_PER_STEP = 3

_JUDGED_SQL = """
SELECT state, json_extract(judge, '$.scores') FROM records
WHERE source = ? AND judge IS NOT NULL AND json_extract(judge, '$.scores') IS NOT NULL
ORDER BY record_id
"""
_DRAFTED_SQL = "SELECT count(*) FROM drafts WHERE source = ? AND status = 'drafted'"
_VALIDATED_SQL = """
SELECT count(*) FROM records WHERE source = ? AND json_extract_string(validation, '$.passed') = 'true'
"""


def judge_scores(store: Store, source: str) -> dict[str, dict[str, list[float]]]:
    """{dimension: {"accepted": scores, "rejected": scores}} over every record with a judge verdict: those in
    `accepted`, and the others (rejected, held in needs_review, sent back) as `rejected`. Dimensions in first-seen
    order, scores in record id order."""
    groups: dict[str, dict[str, list[float]]] = {}
    for state, scores in _judged(store, source):
        group = ACCEPTED if state == str(RecordState.ACCEPTED) else NOT_ACCEPTED
        for name, value in scores.items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                groups.setdefault(str(name), {ACCEPTED: [], NOT_ACCEPTED: []})[group].append(float(value))
    return groups


def _judged(store: Store, source: str) -> list[tuple[str, dict[str, Any]]]:
    """(state, scores) of every record with a judge verdict that has scores."""
    rows = []
    for state, scores_json in store.con.execute(_JUDGED_SQL, [source]).fetchall():
        scores = fast_json.loads(scores_json) if isinstance(scores_json, str) else scores_json
        if isinstance(scores, dict):
            rows.append((state, scores))
    return rows


@dataclass(frozen=True)
class FunnelStep:
    name: str
    count: int
    lost: list[tuple[str, int]] = field(default_factory=list)  # (stage: code, records) kept from this step


def funnel(store: Store, source: str, released: int) -> list[FunnelStep]:
    """Loaded -> drafted -> authored -> validated -> judged -> released, each with the main reasons (at most
    `REASONS_PER_STEP`, most records first) that kept records or input lines from reaching it. A step a workflow
    skips (no LLM drafts when curators write every answer) counts 0."""
    counts = {
        "loaded": store.count_source_items(source),
        "drafted": _one(store, _DRAFTED_SQL, source),
        "authored": sum(store.state_counts(source).values()),
        "validated": _one(store, _VALIDATED_SQL, source),
        "judged": len(_judged(store, source)),
        "released": released,
    }
    lost: dict[str, list[tuple[str, int]]] = {step: [] for step in FUNNEL_STEPS}
    for stage, code, n in store.reason_counts(source):
        lost[STEP_OF_STAGE.get(stage, "released")].append((f"{stage}: {code}", n))
    return [
        FunnelStep(step, counts[step], sorted(lost[step], key=lambda r: (-r[1], r[0]))[:REASONS_PER_STEP])
        for step in FUNNEL_STEPS
    ]


def _one(store: Store, sql: str, source: str) -> int:
    row = store.con.execute(sql, [source]).fetchone()
    return int(row[0]) if row else 0


def flag_resolutions(flags: dict[str, Any] | None) -> dict[str, dict[str, int]]:
    """{code: {fixed, dismissed, open}} from exports.flags.flag_counts, most raised first."""
    by_code = (flags or {}).get("by_code") or {}
    return {code: {k: int(row.get(k, 0)) for k in ("fixed", "dismissed", "open")} for code, row in by_code.items()}
