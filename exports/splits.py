"""Split assignment: deterministic from the record id, and sticky across releases.

A record's split is `sha256(record_id) mod 100` mapped onto the config's split ratios. Once a
release has been written, its assignments live in the store (`split_assignments`) and win over
the formula, so a record that went to `test` stays in `test` in every later release, even if
the ratios are changed one day.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from core.sources import source_for_config, sources


class _SplitRatios(Mapping[str, tuple[tuple[str, int], ...]]):
    """Per release config: (split, share in percent), in the order the splits are published; each source
    declares its config's splits (core/sources.py)."""

    def __getitem__(self, config: str) -> tuple[tuple[str, int], ...]:
        source = source_for_config(config)
        if source is None:
            raise KeyError(config)
        return source.splits

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(source.release_config for source in sources()))

    def __len__(self) -> int:
        return len(list(iter(self)))


SPLIT_RATIOS: Mapping[str, tuple[tuple[str, int], ...]] = _SplitRatios()


def split_names(config: str) -> tuple[str, ...]:
    """The splits a config publishes, in card/manifest order."""
    try:
        return tuple(name for name, _ in SPLIT_RATIOS[config])
    except KeyError:
        raise ValueError(f"unknown release config {config!r}; known: {sorted(SPLIT_RATIOS)}") from None


def bucket(record_id: str) -> int:
    """0..99, from the SHA-256 of the record id (uniform whatever the id looks like)."""
    return int(hashlib.sha256(record_id.encode("utf-8")).hexdigest(), 16) % 100


def compute_split(record_id: str, config: str) -> str:
    """The split the formula gives a record that has never been released."""
    if config not in SPLIT_RATIOS:
        split_names(config)  # raises the clear error
    b = bucket(record_id)
    upper = 0
    for name, share in SPLIT_RATIOS[config]:
        upper += share
        if b < upper:
            return name
    raise AssertionError(f"split ratios of {config!r} do not add up to 100")


@dataclass
class SplitPlan:
    """Where each record goes: `assignments` for all, `new` for those not yet in the store."""

    assignments: dict[str, str] = field(default_factory=dict)
    new: dict[str, str] = field(default_factory=dict)


def compute_split_without(record_id: str, config: str, excluded: str) -> str:
    """The formula's split among the config's other splits, their shares renormalised."""
    shares = [(name, share) for name, share in SPLIT_RATIOS[config] if name != excluded and share]
    b = int(hashlib.sha256(f"{excluded}-free:{record_id}".encode()).hexdigest(), 16) % sum(s for _, s in shares)
    upper = 0
    for name, share in shares:
        upper += share
        if b < upper:
            return name
    raise AssertionError("unreachable")


def pick_stratified(candidates: Sequence[str], strata: Mapping[str, str], size: int, salt: str) -> list[str]:
    """`size` ids, each stratum's share as in `candidates` (largest remainders), a seeded hash order
    inside each stratum: deterministic from the ids."""
    if size <= 0:
        return []
    groups: dict[str, list[str]] = {}
    for rid in candidates:
        groups.setdefault(strata.get(rid, ""), []).append(rid)
    total = len(candidates)
    if size >= total:
        return list(candidates)
    quotas = {key: size * len(ids) / total for key, ids in groups.items()}
    counts = {key: int(q) for key, q in quotas.items()}
    for key in sorted(quotas, key=lambda k: (-(quotas[k] - counts[k]), k))[: size - sum(counts.values())]:
        counts[key] += 1
    chosen: list[str] = []
    for key, ids in sorted(groups.items()):
        ranked = sorted(ids, key=lambda r: hashlib.sha256(f"{salt}:{r}".encode()).hexdigest())
        chosen.extend(ranked[: counts[key]])
    return chosen


class SplitAssigner:
    """Streaming form of `plan_splits`: call `split_of` per record, then save `new`.

    With `test_size`, the test split is filled up to that many records (stratified by `strata`,
    record id -> stratum) from the records never released; every other new record goes to the other
    splits. Released assignments still win, so the test split is sticky and never shrinks."""

    def __init__(
        self,
        config: str,
        existing: Mapping[str, str],
        *,
        test_size: int | None = None,
        strata: Mapping[str, str] | None = None,
    ) -> None:
        self.config = config
        self.allowed = set(split_names(config))
        self.existing = existing
        self.new: dict[str, str] = {}
        if test_size is not None and (test_size < 1 or "test" not in self.allowed):
            raise ValueError(f"a test size needs a config with a test split and a size >= 1 ({config}, {test_size})")
        self.test_size = test_size
        self.strata = strata or {}

    def _plan_fixed_test(self, new_ids: list[str]) -> None:
        assert self.test_size is not None
        in_test = sum(1 for split in self.existing.values() if split == "test")
        chosen = set(pick_stratified(new_ids, self.strata, self.test_size - in_test, "test"))
        for rid in new_ids:
            self.new[rid] = "test" if rid in chosen else compute_split_without(rid, self.config, "test")

    def plan_new(self, record_ids: Iterable[str]) -> None:
        """Assign every record not yet released, keeping each split non-empty where possible.

        With a handful of records the formula can leave `test` empty, and `datasets` cannot load
        a config with an empty split. A split that would stay empty takes, from the largest split,
        the new record that ranks first for it (a seeded hash): deterministic from the ids, and
        only ever new records move, so released assignments stay sticky.
        """
        new_ids = sorted(rid for rid in record_ids if rid not in self.existing)
        if self.test_size is not None:
            self._plan_fixed_test(new_ids)
        for rid in new_ids:
            self.new.setdefault(rid, compute_split(rid, self.config))
        members: dict[str, list[str]] = {name: [] for name in split_names(self.config)}
        for rid, split in list(self.existing.items()) + list(self.new.items()):
            if split in members:
                members[split].append(rid)
        shares = dict(SPLIT_RATIOS[self.config])
        for split, ids in members.items():
            if ids or not shares[split]:
                continue
            donor = max(members, key=lambda name: (len([r for r in members[name] if r in self.new]), name))
            movable = [r for r in members[donor] if r in self.new]
            if len(movable) < 2:  # never empty the donor to fill another split
                continue
            chosen = min(movable, key=lambda r: hashlib.sha256(f"{split}:{r}".encode()).hexdigest())
            members[donor].remove(chosen)
            members[split].append(chosen)
            self.new[chosen] = split

    def split_of(self, record_id: str) -> str:
        split = self.existing.get(record_id)
        if split is None:
            split = self.new.get(record_id) or compute_split(record_id, self.config)
            self.new[record_id] = split
        elif split not in self.allowed:
            raise ValueError(
                f"record {record_id} is assigned to split {split!r} in the store, "
                f"but config {self.config!r} publishes only {sorted(self.allowed)}"
            )
        return split


def plan_splits(record_ids: Iterable[str], config: str, existing: Mapping[str, str]) -> SplitPlan:
    """Existing (stored) assignments win; new records get the formula's split."""
    assigner = SplitAssigner(config, existing)
    assignments = {rid: assigner.split_of(rid) for rid in record_ids}
    return SplitPlan(assignments=assignments, new=assigner.new)
