"""Means over records: plain and complexity-weighted (easy 1, medium 2, hard 3), with SOB's bootstrap.

As in SOB, a record's weight comes from its schema complexity, else its question difficulty; a
record with neither has weight 0 in the weighted means (and is counted in `unweighted_records`).
The intervals are SOB's, drawn from the same random stream (`scoring.bootstrap`), so with the same
seed and sample count they are SOB's numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from scoring.bootstrap import sob_intervals, sob_means
from scoring.sob import CATEGORIES, METRICS, SUB_CHECKS, RecordScore

COMPLEXITY_WEIGHTS: dict[str, float] = {"easy": 1.0, "medium": 2.0, "hard": 3.0}
DEFAULT_BOOTSTRAP_SAMPLES = 1000
# SOB's order of the summary's metrics (its bootstrap draws them in this order, then the categories).
SOB_METRIC_ORDER: tuple[str, ...] = (*SUB_CHECKS, *METRICS)


def record_weight(schema_complexity: str | None, question_difficulty: str | None = None) -> float:
    for level in (schema_complexity, question_difficulty):
        if level in COMPLEXITY_WEIGHTS:
            return COMPLEXITY_WEIGHTS[level]
    return 0.0


@dataclass(frozen=True)
class Estimate:
    mean: float
    ci_low: float
    ci_high: float

    def as_dict(self) -> dict[str, float]:
        return {"mean": self.mean, "ci95_low": self.ci_low, "ci95_high": self.ci_high}


def columns() -> list[str]:
    """Metric columns in SOB's order, then the category columns."""
    return [*SOB_METRIC_ORDER, *CATEGORIES]


def score_matrix(scores: Sequence[RecordScore]) -> np.ndarray:
    """records x columns(): the metrics, sub-checks and per-record category scores."""
    matrix = np.empty((len(scores), len(SOB_METRIC_ORDER) + len(CATEGORIES)), dtype=np.float64)
    for row, score in enumerate(scores):
        matrix[row] = [*(score.metrics[name] for name in SOB_METRIC_ORDER), *map(score.category, CATEGORIES)]
    return matrix


def summarize(
    scores: Sequence[RecordScore],
    weights: Sequence[float],
    *,
    samples: int = DEFAULT_BOOTSTRAP_SAMPLES,
    seed: int = 42,
) -> dict[str, Any]:
    """{"n", "unweighted_records", "overall": {column: estimate}, "weighted": {column: estimate}}."""
    if len(scores) != len(weights):
        raise ValueError(f"{len(scores)} scores but {len(weights)} weights")
    names = columns()
    matrix = score_matrix(scores)
    w = np.asarray(weights, dtype=np.float64)
    result: dict[str, Any] = {"n": len(scores), "unweighted_records": int((w == 0).sum())}
    for label, row_weights in (("overall", None), ("weighted", w)):
        means = sob_means(matrix, row_weights)
        bounds = sob_intervals(matrix, row_weights, samples=samples, seed=seed)
        result[label] = {name: Estimate(float(means[i]), *bounds[i]).as_dict() for i, name in enumerate(names)}
    return result
