"""Who checked a release's rows: the manifest and card say it, and a release that only the offline
pre-filter checked is refused unless the curator asks for it (`--allow-unreviewed`).

Only an LLM judge (or a second human) may accept a record into a release; the heuristic judge is a
pre-filter that may reject. A release's metadata is derived from its rows, never from the options of
the run that wrote it, so it cannot claim a judge or a threshold its rows did not get.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from core.models import RecordState
from core.store import Store

HEURISTIC = "heuristic"


@dataclass
class ReviewSummary:
    rows: int = 0
    by_judge: Counter[str] = field(default_factory=Counter)  # "name@version" -> accepted rows
    thresholds: Counter[int] = field(default_factory=Counter)

    @property
    def unreviewed(self) -> int:
        """Rows accepted by the heuristic pre-filter alone."""
        return sum(n for judge, n in self.by_judge.items() if judge.split("@", 1)[0] == HEURISTIC)

    @property
    def status(self) -> str:
        if not self.rows:
            return "empty"
        return "heuristic-only" if self.unreviewed else "llm-judge"

    def judge_label(self) -> tuple[str, str]:
        """(name, version) for the card and manifest: the one judge of every row, or `mixed`."""
        if len(self.by_judge) == 1:
            name, _, version = next(iter(self.by_judge)).partition("@")
            return name, version
        return "mixed", ", ".join(f"{judge} ({n})" for judge, n in sorted(self.by_judge.items()))

    def threshold(self, default: int | float) -> int | float:
        return next(iter(self.thresholds)) if len(self.thresholds) == 1 else default

    def as_manifest(self, allowed_unreviewed: bool) -> dict[str, Any]:
        return {
            "status": self.status,
            "rows": self.rows,
            "rows_by_judge": dict(sorted(self.by_judge.items())),
            "unreviewed_rows": self.unreviewed,
            "allowed_unreviewed": allowed_unreviewed,
            "thresholds": {str(k): v for k, v in sorted(self.thresholds.items())},
        }


def review_of(store: Store, source: str) -> ReviewSummary:
    """How the accepted records of `source` (the rows of its next release) were judged."""
    summary = ReviewSummary()
    for item in store.records(source, [RecordState.ACCEPTED], ordered=False):
        summary.rows += 1
        summary.by_judge[item.record.provenance.judge or "unknown"] += 1
        threshold = (item.judge or {}).get("threshold")
        if threshold is not None:
            summary.thresholds[int(threshold)] += 1
    return summary


def refusal(summary: ReviewSummary, version: str, source: str) -> str | None:
    """Why release `version` must not be written without --allow-unreviewed (None when it may)."""
    if not summary.unreviewed:
        return None
    return (
        f"release {version} refused: {summary.unreviewed} of {summary.rows} {source} record(s) were accepted by the "
        "offline heuristic pre-filter alone, which may reject but never vouch for a record. Judge them with an LLM "
        "(--judge gemini or --judge openai; the heuristic can stay as --prefilter), or pass --allow-unreviewed to "
        "write the release marked `review: heuristic-only` in its card and manifest"
    )
