"""A fixed-size test split: stratified, sticky, and only new records ever fill it."""

from __future__ import annotations

from collections import Counter

import pytest

from exports.release import write_release
from exports.splits import SplitAssigner, pick_stratified


def test_stratified_pick_keeps_each_stratum_share():
    ids = [f"r{i}" for i in range(100)]
    strata = {rid: ("hard" if i < 60 else "easy") for i, rid in enumerate(ids)}
    chosen = pick_stratified(ids, strata, 10, "test")
    assert Counter(strata[r] for r in chosen) == {"hard": 6, "easy": 4}
    assert set(chosen) == set(pick_stratified(list(reversed(ids)), strata, 10, "test"))  # order-free
    assert pick_stratified(ids, strata, 0, "test") == []
    assert set(pick_stratified(ids[:3], strata, 10, "test")) == set(ids[:3])


def test_assigner_fills_test_to_size_and_never_moves_released_records():
    ids = [f"r{i:03d}" for i in range(200)]
    strata = {rid: f"{i % 3}|{i % 2}" for i, rid in enumerate(ids)}
    first = SplitAssigner("default", {}, test_size=30, strata=strata)
    first.plan_new(ids)
    counts = Counter(first.new.values())
    assert counts["test"] == 30 and counts["train"] > counts["validation"] > 0
    assert Counter(strata[r] for r, s in first.new.items() if s == "test") == {k: 5 for k in set(strata.values())}
    # a later release: 50 new records, the released ones keep their split, test stays at 30
    more = [f"s{i:03d}" for i in range(50)]
    second = SplitAssigner("default", first.new, test_size=30, strata=strata)
    second.plan_new(ids + more)
    assert set(second.new) == set(more) and "test" not in second.new.values()
    # a bigger size later adds only new records to test
    third = SplitAssigner("default", first.new, test_size=40, strata=strata)
    third.plan_new(ids + more)
    assert Counter(third.new.values())["test"] == 10


@pytest.mark.parametrize("config, size", [("image", 5), ("default", 0)])
def test_a_test_size_needs_a_test_split(config, size):
    with pytest.raises(ValueError, match="test split and a size >= 1"):
        SplitAssigner(config, {}, test_size=size)


def test_release_with_a_fixed_test_size(store, workspace, factory, judge_kwargs):
    factory.add_records(store, "hotpotqa", range(40))
    result = write_release(store, "hotpotqa", "1.0.0", workspace, test_size=12, **judge_kwargs)
    assert result.counts["test"] == 12 and sum(result.counts.values()) == 40
    sticky = {r: s for r, s in store.split_assignments("default").items() if s == "test"}
    factory.add_records(store, "hotpotqa", range(40, 60), tag="b")
    again = write_release(store, "hotpotqa", "1.1.0", workspace, test_size=12, **judge_kwargs)
    assert again.counts["test"] == 12
    assert {r: s for r, s in store.split_assignments("default").items() if s == "test"} == sticky
