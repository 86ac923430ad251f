"""Means over records: plain and complexity-weighted (easy 1, medium 2, hard 3), with bootstrap CIs.

As in SOB, a record's weight comes from its schema complexity, else its question difficulty; a
record with neither has weight 0 in the weighted means (and is counted in `unweighted_records`).
The bootstrap resamples records with replacement (`samples` times, seeded) and reports the 2.5th and
97.5th percentiles. The resampling is one multinomial count matrix shared by every metric, so 1,000
samples over 5,000 records cost one matrix product, not a Python loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from scoring.sob import CATEGORIES, METRICS, SUB_CHECKS, RecordScore

COMPLEXITY_WEIGHTS: dict[str, float] = {"easy": 1.0, "medium": 2.0, "hard": 3.0}
DEFAULT_BOOTSTRAP_SAMPLES = 1000
CI_LEVEL = 0.95


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
    """Metric columns, then the category columns, in report order."""
    return [*METRICS, *SUB_CHECKS, *CATEGORIES]


def score_matrix(scores: Sequence[RecordScore]) -> np.ndarray:
    """records x columns(): the metrics, sub-checks and per-record category scores."""
    names = [*METRICS, *SUB_CHECKS]
    matrix = np.empty((len(scores), len(names) + len(CATEGORIES)), dtype=np.float64)
    for row, score in enumerate(scores):
        matrix[row, : len(names)] = [score.metrics[name] for name in names]
        matrix[row, len(names) :] = [score.category(name) for name in CATEGORIES]
    return matrix


@lru_cache(maxsize=2)
def _resample_counts(n: int, samples: int, seed: int) -> np.ndarray:
    """samples x n: how often each record is drawn in each bootstrap sample. Cached, so every model
    scored on the same records gets the same resamples (a paired bootstrap) at no extra cost."""
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n, np.full(n, 1.0 / n), size=samples).astype(np.float64)
    counts.flags.writeable = False
    return counts


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
    n = len(scores)
    w = np.asarray(weights, dtype=np.float64)
    if n == 0:
        empty = {name: Estimate(0.0, 0.0, 0.0).as_dict() for name in names}
        return {"n": 0, "unweighted_records": 0, "overall": empty, "weighted": empty}
    matrix = score_matrix(scores)
    counts = _resample_counts(n, samples, seed) if samples > 0 else None
    result: dict[str, Any] = {"n": n, "unweighted_records": int((w == 0).sum())}
    for label, row_weights in (("overall", np.ones(n)), ("weighted", w)):
        total = row_weights.sum()
        means = (row_weights @ matrix) / total if total > 0 else np.zeros(len(names))
        if counts is not None:
            sample_weights = counts if label == "overall" else counts * row_weights  # samples x records
            totals = sample_weights.sum(axis=1)
            valid = totals > 0
            boot = (sample_weights[valid] @ matrix) / totals[valid, None]
            tail = (1 - CI_LEVEL) / 2 * 100
            low = np.percentile(boot, tail, axis=0) if len(boot) else means
            high = np.percentile(boot, 100 - tail, axis=0) if len(boot) else means
        else:
            low = high = means
        result[label] = {
            name: Estimate(float(means[i]), float(low[i]), float(high[i])).as_dict() for i, name in enumerate(names)
        }
    return result
