"""SOB's bootstrap intervals, drawn exactly as its evaluator draws them, at numpy speed.

SOB resamples the records with `random.Random(seed)` (seed + 1 for the weighted means), one
`randrange(n)` per drawn record, `samples` resamples per column, the columns one after the other
on one stream; each interval is the sorted estimates at floor(0.025 (m - 1)) and ceil(0.975 (m - 1)).
`randrange(n)` takes the top `n.bit_length()` bits of one 32-bit Mersenne Twister output and draws
again when they are >= n. numpy's MT19937 is the same generator: started from Python's state it
gives the same outputs, so the same rejection rule over whole arrays gives SOB's draws, record for
record, without a Python loop. The draws depend only on (n, samples, seed, columns), so they are
made once and shared by every model scored on the same records.
"""

from __future__ import annotations

import math
import random
from functools import lru_cache

import numpy as np


class PythonRandrange:
    """The values `random.Random(seed).randrange(n)` returns, in order, in blocks."""

    def __init__(self, seed: int, n: int) -> None:
        if not 0 < n < 2**32:
            raise ValueError(f"randrange over {n} values is not supported")
        _, state, _ = random.Random(seed).getstate()
        self._bits = np.random.MT19937()
        self._bits.state = {
            "bit_generator": "MT19937",
            "state": {"key": np.array(state[:624], dtype=np.uint32), "pos": state[624]},
        }
        self.n = n
        self._shift = np.uint64(32 - n.bit_length())
        self._left = np.empty(0, dtype=np.int64)

    def take(self, count: int) -> np.ndarray:
        parts, have = [self._left], len(self._left)
        while have < count:
            # Enough raw outputs for what is missing, at the acceptance rate n / 2^bits, plus slack.
            raw = self._bits.random_raw(int((count - have) * (1 << self.n.bit_length()) / self.n * 1.02) + 64)
            drawn = (raw >> self._shift).astype(np.int64)
            drawn = drawn[drawn < self.n]
            parts.append(drawn)
            have += len(drawn)
        block = np.concatenate(parts)
        self._left = block[count:]
        return block[:count]


@lru_cache(maxsize=2)
def resample_indices(n: int, samples: int, seed: int, columns: int) -> np.ndarray:
    """columns x samples x n record indices: SOB's draws for each column's resamples."""
    dtype = np.uint16 if n <= 2**16 else np.uint32
    stream = PythonRandrange(seed, n)
    out = np.empty((columns, samples, n), dtype=dtype)
    for column in range(columns):
        out[column] = stream.take(samples * n).reshape(samples, n)
    out.flags.writeable = False
    return out


def percentile_bounds(estimates: np.ndarray) -> tuple[float, float]:
    if len(estimates) == 0:
        return 0.0, 0.0
    ordered = np.sort(estimates)
    last = len(ordered) - 1
    return float(ordered[max(0, math.floor(0.025 * last))]), float(ordered[min(last, math.ceil(0.975 * last))])


def sob_means(values: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """Per column: the plain mean, or sum(w x) / sum(w) (0 when every weight is 0), as SOB."""
    if len(values) == 0:
        return np.zeros(values.shape[1])
    if weights is None:
        return values.sum(axis=0) / len(values)
    total = weights.sum()
    return (weights @ values) / total if total > 0 else np.zeros(values.shape[1])


def sob_intervals(
    values: np.ndarray, weights: np.ndarray | None, *, samples: int, seed: int
) -> list[tuple[float, float]]:
    """(low, high) per column of `values` (records x columns, in SOB's column order)."""
    n, columns = values.shape
    if n == 0 or samples <= 0:
        return [(0.0, 0.0)] * columns
    drawn = resample_indices(n, samples, seed + (0 if weights is None else 1), columns)
    bounds = []
    for column in range(columns):
        index = drawn[column]
        if weights is None:
            estimates = values[:, column][index].sum(axis=1) / n
        else:
            totals = weights[index].sum(axis=1)
            sums = (weights * values[:, column])[index].sum(axis=1)
            estimates = np.divide(sums, totals, out=np.zeros(samples), where=totals > 0)
        bounds.append(percentile_bounds(estimates))
    return bounds
