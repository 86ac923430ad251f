"""The gate's three outcomes from a judge's verdict: rejected, needs_review or passed.

* a dimension below the threshold: `rejected` (what a judge can prove wrong);
* else flags a person has not dismissed: `needs_review`, one reason per open flag (stage `gate`), the flags
  kept in the record's `provenance.review` (core/review.py) beside the earlier ones, so the curator's
  resolutions stay and a flag dismissed for the same code and path is not raised again;
* else `passed`: accepted, or on to the LLM judge when the verdict came from the pre-filter.

The judge stage, the threshold re-apply and `python -m judge.calibrate` all decide here, so the three
agree on what a verdict means.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from core.models import Reason, Record, utcnow
from core.review import ReviewFlag, ReviewInfo, subject_hash
from core.verdicts import GateFlag, JudgeVerdict
from judge.review_stage import merge_flags
from judge.reviewer import subject_of

STAGE = "gate"
REASON_LIMIT = 1_000  # ReviewFlag.reason's limit

Outcome = Literal["rejected", "needs_review", "passed"]


@dataclass
class GateDecision:
    outcome: Outcome
    reasons: list[Reason] = field(default_factory=list)
    review: ReviewInfo | None = None  # the record's review to store, when the gate changed it

    @property
    def open_flags(self) -> list[ReviewFlag]:
        return self.review.open_flags if self.review is not None else []


def raised_flags(flags: list[GateFlag], raised_by: str) -> list[ReviewFlag]:
    """The verdict's flags as open review flags (numbered later by `merge_flags`), one per code and path."""
    seen: set[tuple[str, str]] = set()
    out = []
    for flag in flags:
        if (flag.code, flag.path) in seen:
            continue
        seen.add((flag.code, flag.path))
        reason = " ".join(flag.reason.split())[:REASON_LIMIT] or flag.code
        out.append(ReviewFlag(id="R0", code=flag.code, path=flag.path, reason=reason, raised_by=raised_by))
    return out


def gate_review(record: Record, verdict: JudgeVerdict) -> ReviewInfo | None:
    """The record's review after this verdict's flags, or None when there is nothing to store (no flag raised
    and no open flag left from before)."""
    previous = record.provenance.review
    if not verdict.flags and not (previous and previous.open_flags):
        return None
    raised_by = f"{STAGE}:{verdict.judge}"
    return ReviewInfo(
        reviewer=raised_by,
        version=verdict.version,
        reviewed_at=utcnow(),
        subject_hash=subject_hash(subject_of(record)),
        flags=merge_flags(previous, raised_flags(verdict.flags, raised_by)),
    )


def low_score_reasons(verdict: JudgeVerdict, stage: str) -> list[Reason]:
    return [
        Reason(
            stage=stage,
            code=f"low_{dim}",
            message=f"{dim} scored {verdict.scores[dim]} < {verdict.threshold}: {verdict.rationales.get(dim, '')}",
        )
        for dim in verdict.failing_dimensions()
    ]


def flag_reasons(flags: list[ReviewFlag]) -> list[Reason]:
    return [Reason(stage=STAGE, code=f.code, message=f"{f.id}: {f.reason}", path=f.path) for f in flags]


def decide(record: Record, verdict: JudgeVerdict, judge_stage: str = "judge") -> GateDecision:
    """The outcome of `verdict` (at its own threshold) for `record`; see the module docstring."""
    if verdict.failing_dimensions():
        return GateDecision("rejected", low_score_reasons(verdict, judge_stage))
    review = gate_review(record, verdict)
    if review is not None and review.open_flags:
        return GateDecision("needs_review", flag_reasons(review.open_flags), review)
    return GateDecision("passed", [], review)
