"""SOB's bootstrap draws: numpy's Mersenne Twister gives what Python's random.Random(seed).randrange gives."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from scoring.bootstrap import PythonRandrange, sob_intervals


@pytest.mark.parametrize("n", [1, 2, 3, 209, 4096, 5000, 70000])
def test_draws_are_pythons_randrange_in_order(n):
    python = random.Random(42)
    want = [python.randrange(n) for _ in range(20000)]
    stream = PythonRandrange(42, n)
    assert [*stream.take(7), *stream.take(19993)] == want


def sob_interval(values, weights, samples, seed):
    """SOB's loop, written out with Python's random for one column."""
    rng = random.Random(seed + (0 if weights is None else 1))
    n, estimates = len(values), []
    for _ in range(samples):
        picked = [rng.randrange(n) for _ in range(n)]
        if weights is None:
            estimates.append(sum(values[i] for i in picked) / n)
        else:
            total = sum(weights[i] for i in picked)
            estimates.append(sum(values[i] * weights[i] for i in picked) / total if total else 0.0)
    estimates.sort()
    last = len(estimates) - 1
    return estimates[math.floor(0.025 * last)], estimates[math.ceil(0.975 * last)]


def test_intervals_are_sobs_loop_for_plain_and_weighted_means():
    rng = np.random.default_rng(3)
    values = rng.random((57, 2))
    weights = rng.choice([0.0, 1.0, 2.0, 3.0], size=57)
    ours_plain = sob_intervals(values, None, samples=300, seed=42)
    ours_weighted = sob_intervals(values, weights, samples=300, seed=42)
    # The second column continues the same random stream after the first.
    assert ours_plain[0] == pytest.approx(sob_interval(list(values[:, 0]), None, 300, 42), abs=1e-12)
    assert ours_weighted[0] == pytest.approx(sob_interval(list(values[:, 0]), list(weights), 300, 42), abs=1e-12)
    assert ours_plain[1] != ours_plain[0]
