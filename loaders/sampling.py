"""Deterministic stratified sampling: the same seed always draws the same items."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

T = TypeVar("T")


def _rank(seed: int, key: str) -> str:
    return hashlib.sha256(f"{seed}:{key}".encode()).hexdigest()


def stratified_sample(
    items: Sequence[T], limit: int, seed: int, stratum: Callable[[T], Hashable], key: Callable[[T], str]
) -> list[T]:
    """Draw `limit` items with each stratum's share kept (largest remainder), ordered by a seeded hash."""
    if limit >= len(items):
        return sorted(items, key=lambda it: _rank(seed, key(it)))
    groups: dict[Hashable, list[T]] = defaultdict(list)
    for item in items:
        groups[stratum(item)].append(item)
    total = len(items)
    quotas = {name: limit * len(members) / total for name, members in groups.items()}
    taken = {name: int(q) for name, q in quotas.items()}
    leftover = limit - sum(taken.values())
    # Largest remainders first; ties broken by the stratum's name so the draw is stable.
    for name in sorted(quotas, key=lambda n: (-(quotas[n] - taken[n]), str(n)))[:leftover]:
        taken[name] += 1
    chosen: list[T] = []
    for name, members in groups.items():
        members.sort(key=lambda it: _rank(seed, key(it)))
        chosen.extend(members[: taken[name]])
    return sorted(chosen, key=lambda it: _rank(seed, key(it)))
