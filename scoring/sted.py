"""STED: a semantic tree similarity between two JSON values (0..1), and consistency over repeats.

After Wang et al., "STED and Consistency Scoring" (NeurIPS 2025 workshop): structure is strict,
wording is flexible, and order does not matter. This implementation is offline (no embedding
model), so "semantic" means normalised text; the definition:

- Two objects: keys with the same name are paired; the keys left over on both sides are paired by
  the Hungarian algorithm (scipy `linear_sum_assignment`) on `key_similarity x value_similarity`,
  where key similarity is the Jaccard overlap of the keys' words (`firstName` ~ `first_name` = 1).
  The score is the sum of the paired similarities / the larger key count, so a key missing on
  either side costs its share.
- Two arrays: items are paired by the Hungarian algorithm on their similarities (order is ignored);
  the score is the sum of the paired similarities / the longer length.
- Two scalars: 1.0 when equal as JSON; two strings that differ get their token F1 (lower case, no
  punctuation or articles), so "New York City" ~ "new york city" = 1; numbers must be equal (within
  1e-9 relative); anything else 0.
- An object against an array, or a container against a scalar, is a structural break: 0.0.
- Two empty objects, or two empty arrays, are equal (1.0).

Consistency of n >= 2 repeated outputs is the mean STED over all pairs (`min` is reported beside
it): 1.0 when every repeat says the same thing, whatever the key or item order.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from scoring.text import json_kind, same_value, token_f1

_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")
MAX_DEPTH = 64


def key_words(key: str) -> frozenset[str]:
    return frozenset(w.lower() for w in _WORD_SPLIT.split(key) if w)


def key_similarity(a: str, b: str) -> float:
    if a == b:
        return 1.0
    wa, wb = key_words(a), key_words(b)
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / len(wa | wb)


def _scalar_similarity(a: Any, b: Any) -> float:
    if same_value(a, b):
        return 1.0
    kind = json_kind(a)
    if kind != json_kind(b):
        return 0.0
    if kind == "string":
        return token_f1(a, b)
    if kind == "number":
        return 1.0 if math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0) else 0.0
    return 0.0


def _assignment(matrix: np.ndarray) -> float:
    """The largest total similarity of a one-to-one pairing of rows and columns."""
    if matrix.size == 0:
        return 0.0
    rows, cols = linear_sum_assignment(matrix, maximize=True)
    return float(matrix[rows, cols].sum())


def _pair(a: dict[str, Any], b: dict[str, Any], ka: str, kb: str, depth: int) -> float:
    similarity = key_similarity(ka, kb)
    return similarity * sted(a[ka], b[kb], depth + 1) if similarity else 0.0


def sted(a: Any, b: Any, _depth: int = 0) -> float:
    """Similarity of two JSON values in [0, 1] (see the module docstring)."""
    if _depth > MAX_DEPTH:
        raise ValueError(f"JSON nested deeper than {MAX_DEPTH} levels")
    if isinstance(a, dict) and isinstance(b, dict):
        if not a and not b:
            return 1.0
        total = sum(sted(a[k], b[k], _depth + 1) for k in a.keys() & b.keys())
        left = [k for k in a if k not in b]
        right = [k for k in b if k not in a]
        if left and right:
            matrix = np.array([[_pair(a, b, ka, kb, _depth) for kb in right] for ka in left])
            total += _assignment(matrix)
        return total / max(len(a), len(b))
    if isinstance(a, list) and isinstance(b, list):
        if not a and not b:
            return 1.0
        if not a or not b:
            return 0.0
        matrix = np.array([[sted(x, y, _depth + 1) for y in b] for x in a])
        return _assignment(matrix) / max(len(a), len(b))
    if isinstance(a, dict | list) or isinstance(b, dict | list):
        return 0.0
    return _scalar_similarity(a, b)


@dataclass(frozen=True)
class Consistency:
    mean: float
    min: float
    pairs: int


def consistency(outputs: Sequence[Any]) -> Consistency:
    """Mean (and min) pairwise STED of repeated outputs; needs at least two."""
    if len(outputs) < 2:
        raise ValueError(f"consistency needs at least 2 outputs, got {len(outputs)}")
    values = [sted(x, y) for x, y in itertools.combinations(outputs, 2)]
    return Consistency(mean=sum(values) / len(values), min=min(values), pairs=len(values))
