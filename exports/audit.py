"""The residual-error audit's figures: the error rate of accepted records, per round and pooled, with
Wilson 95% score intervals (scipy's `binomtest(...).proportion_ci(method="wilson")`).

The audit itself (drawing samples into Label Studio, pulling verdicts, sending wrong records back) is
`authoring/audit.py`; its rows live in the store's `audit_tasks` table. `audit_summary(store, source)`
is what a release's card and manifest print: the latest audit of the source with at least one verdict.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from core.store import Store

CONFIDENCE = 0.95
METHOD = "Wilson score interval, 95%"
SOB_REFERENCE = {
    "error_rate": 0.03,
    "text": "SOB estimated about 3% residual error in its ground truth from five random samples of 100 records",
}


def wilson_interval(errors: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion errors/n (n >= 1)."""
    if n < 1 or not 0 <= errors <= n:
        raise ValueError(f"need 0 <= errors <= n and n >= 1, got errors={errors}, n={n}")
    from scipy.stats import binomtest  # here, not at the top: scipy.stats costs ~1 s and ~70 MB to import

    interval = binomtest(errors, n).proportion_ci(confidence_level=confidence, method="wilson")
    return float(interval.low), float(interval.high)


def estimate(errors: int, reviewed: int) -> dict[str, Any]:
    """Error rate and interval of one sample (None figures before any verdict)."""
    if reviewed == 0:
        return {"reviewed": 0, "incorrect": 0, "error_rate": None, "ci95": None}
    low, high = wilson_interval(errors, reviewed)
    return {
        "reviewed": reviewed,
        "incorrect": errors,
        "error_rate": round(errors / reviewed, 4),
        "ci95": [round(low, 4), round(high, 4)],
    }


def summarise(verdicts: Mapping[int, Sequence[bool | None]]) -> dict[str, Any]:
    """Per round (True = incorrect, False = correct, None = not reviewed yet) and pooled over the rounds."""
    rounds = []
    pooled_errors = pooled_reviewed = drawn = 0
    for number in sorted(verdicts):
        marks = verdicts[number]
        reviewed = [m for m in marks if m is not None]
        errors = sum(reviewed)
        rounds.append({"round": number, "sample_size": len(marks), **estimate(errors, len(reviewed))})
        pooled_errors += errors
        pooled_reviewed += len(reviewed)
        drawn += len(marks)
    return {
        "rounds": rounds,
        "pooled": {"sample_size": drawn, **estimate(pooled_errors, pooled_reviewed)},
        "complete": drawn > 0 and pooled_reviewed == drawn,
        "method": METHOD,
        "sob_reference": SOB_REFERENCE,
    }


def audit_summary(store: Store, source: str) -> dict[str, Any] | None:
    """The latest audit of `source` that has at least one verdict, summarised; None when there is none."""
    row = store.con.execute(
        "SELECT audit_id FROM audit_tasks WHERE source = ? GROUP BY audit_id HAVING count(verdict) > 0 "
        "ORDER BY max(drawn_at) DESC, audit_id LIMIT 1",
        [source],
    ).fetchone()
    if row is None:
        return None
    return {"audit_id": row[0], **summarise(audit_verdicts(store, row[0]))}


def audit_verdicts(store: Store, audit_id: str) -> dict[int, list[bool | None]]:
    rows = store.con.execute(
        "SELECT round, verdict FROM audit_tasks WHERE audit_id = ? ORDER BY round, record_id", [audit_id]
    ).fetchall()
    verdicts: dict[int, list[bool | None]] = {}
    for number, verdict in rows:
        verdicts.setdefault(int(number), []).append(None if verdict is None else verdict == "incorrect")
    return verdicts


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def format_estimate(part: Mapping[str, Any]) -> str:
    if not part.get("reviewed"):
        return f"0 of {part['sample_size']} reviewed"
    low, high = part["ci95"]
    return (
        f"{part['incorrect']}/{part['reviewed']} incorrect = {_pct(part['error_rate'])} "
        f"(95% CI {_pct(low)}-{_pct(high)}; {part['reviewed']} of {part['sample_size']} reviewed)"
    )


def summary_lines(summary: Mapping[str, Any]) -> list[str]:
    """Plain lines for the run report and the card."""
    lines = [f"round {r['round']}: {format_estimate(r)}" for r in summary["rounds"]]
    lines.append(f"pooled: {format_estimate(summary['pooled'])}")
    return lines


def card_section(summary: Mapping[str, Any] | None) -> str:
    """The dataset card's "Residual-error audit" section (markdown), beside SOB's own figure."""
    if summary is None:
        body = [
            "No residual-error audit has been reviewed for this release yet "
            "(`python -m build_split --source S --audit 100 --rounds 5` draws one into Label Studio). "
            f"For comparison, {SOB_REFERENCE['text']}.",
        ]
    else:
        pooled = summary["pooled"]
        body = [
            f"Reviewers re-checked random samples of accepted records (audit `{summary['audit_id']}`, "
            f"{summary['method']}{'' if summary['complete'] else '; not every sampled record is reviewed yet'}):",
            "",
            *(f"- {line}" for line in summary_lines(summary)),
            "",
            f"Our residual error rate: **{_pct(pooled['error_rate'])}**"
            + (f" (95% CI {_pct(pooled['ci95'][0])}-{_pct(pooled['ci95'][1])})" if pooled.get("ci95") else "")
            + f". For comparison, {SOB_REFERENCE['text']}.",
        ]
    return "\n".join(["## Residual-error audit", "", *body, ""])


def manifest_entry(summary: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The manifest's `residual_error_audit` value (JSON-ready)."""
    return json.loads(json.dumps(summary)) if summary is not None else None
