"""Complexity-weighted means and bootstrap confidence intervals."""

from __future__ import annotations

import pytest

from scoring.aggregate import record_weight, summarize
from scoring.sob import Reference, score_response

SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}


def scores(values):
    ref = Reference.build("r", {"a": 1}, SCHEMA)
    return [score_response(ref, {"a": 1} if ok else {"a": 2}) for ok in values]


def test_weights_follow_schema_complexity_then_difficulty():
    assert [record_weight(x) for x in ("easy", "medium", "hard")] == [1.0, 2.0, 3.0]
    assert record_weight(None, "hard") == 3.0
    assert record_weight("medium", "hard") == 2.0
    assert record_weight(None, None) == 0.0 and record_weight("unknown") == 0.0


def test_weighted_and_plain_means():
    result = summarize(scores([True, False]), [3.0, 1.0], samples=200, seed=1)
    assert result["overall"]["value_accuracy"]["mean"] == 0.5
    assert result["weighted"]["value_accuracy"]["mean"] == 0.75
    assert result["overall"]["json_pass_rate"]["mean"] == 1.0
    assert result["overall"]["Strict Precision"]["mean"] == 0.5
    assert result["unweighted_records"] == 0


def test_bootstrap_interval_brackets_the_mean_and_is_reproducible():
    values = [i % 4 != 0 for i in range(400)]  # 0.75
    first = summarize(scores(values), [1.0] * 400, samples=500, seed=7)["overall"]["value_accuracy"]
    again = summarize(scores(values), [1.0] * 400, samples=500, seed=7)["overall"]["value_accuracy"]
    assert first == again
    assert first["ci95_low"] < 0.75 < first["ci95_high"]
    # binomial standard error sqrt(.75*.25/400) = 0.0217: the 95% interval is about +-0.042
    assert 0.06 < first["ci95_high"] - first["ci95_low"] < 0.11


def test_constant_scores_have_a_zero_width_interval():
    result = summarize(scores([True] * 50), [2.0] * 50, samples=100)
    assert result["weighted"]["value_accuracy"] == {"mean": 1.0, "ci95_low": 1.0, "ci95_high": 1.0}


def test_records_without_complexity_have_no_weight():
    result = summarize(scores([True, False]), [0.0, 1.0], samples=50)
    assert result["weighted"]["value_accuracy"]["mean"] == 0.0 and result["unweighted_records"] == 1


def test_mismatched_lengths_are_refused():
    with pytest.raises(ValueError, match="2 scores but 1 weights"):
        summarize(scores([True, False]), [1.0])
