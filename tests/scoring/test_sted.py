"""STED: order-free, wording-tolerant, strict about structure; consistency over repeats."""

from __future__ import annotations

import pytest

from scoring.sted import consistency, key_similarity, sted

TRUTH = {"title": "Arrival", "year": 2016, "cast": [{"name": "Amy Adams", "role": "Louise"}, {"name": "Jeremy Renner"}]}


def test_identical_and_reordered_values_are_one():
    reordered = {
        "cast": [{"name": "Jeremy Renner"}, {"role": "Louise", "name": "Amy Adams"}],
        "year": 2016,
        "title": "Arrival",
    }
    assert sted(TRUTH, TRUTH) == 1.0
    assert sted(TRUTH, reordered) == 1.0
    assert sted([1, 2, 3], [3, 1, 2]) == 1.0
    assert sted({}, {}) == 1.0 and sted([], []) == 1.0


def test_a_changed_value_scores_less():
    changed = {**TRUTH, "year": 2017}
    assert sted(TRUTH, changed) == pytest.approx(2 / 3)  # one of three keys wrong
    assert sted({"a": "New York City"}, {"a": "new york city"}) == 1.0  # wording, not meaning
    assert sted({"a": "New York City"}, {"a": "York"}) == pytest.approx(0.5)  # token F1: P=1, R=1/3
    assert sted({"a": 1}, {"a": 2}) == 0.0
    assert sted({"a": True}, {"a": 1}) == 0.0


def test_missing_and_extra_keys_and_items_cost_their_share():
    assert sted({"a": 1, "b": 2}, {"a": 1}) == 0.5
    assert sted({"a": 1}, {"a": 1, "b": 2}) == 0.5
    assert sted([1, 2], [1, 2, 3, 4]) == 0.5
    assert sted([1], []) == 0.0


def test_structural_breaks_score_zero():
    assert sted({"a": [1]}, {"a": {"0": 1}}) == 0.0
    assert sted({"a": 1}, [1]) == 0.0
    assert sted({"a": {"b": 1}}, {"a": "b 1"}) == 0.0


def test_renamed_keys_are_matched_by_their_words():
    assert key_similarity("firstName", "first_name") == 1.0
    assert sted({"firstName": "Ada"}, {"first_name": "Ada"}) == 1.0
    # Hungarian pairing picks the best renamed pair, not the first
    assert sted(
        {"birth_year": 1815, "death_year": 1852}, {"year_of_death": 1852, "year_of_birth": 1815}
    ) == pytest.approx(key_similarity("birth_year", "year_of_birth"))
    assert sted({"colour": "red"}, {"size": "red"}) == 0.0  # unrelated keys never pair


def test_consistency_of_repeats():
    same = consistency([TRUTH, dict(reversed(list(TRUTH.items()))), TRUTH])
    assert (same.mean, same.min, same.pairs) == (1.0, 1.0, 3)
    varied = consistency([{"a": "x"}, {"a": "x"}, {"a": "completely different"}])
    assert varied.pairs == 3 and varied.min == 0.0 and varied.mean == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="at least 2"):
        consistency([TRUTH])
