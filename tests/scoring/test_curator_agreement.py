"""Two curators' answers compared: value accuracy over the union of leaves, STED, what differs, and the summary with
its intervals; the card section is absent when no record had two answers."""

from __future__ import annotations

import math

import pytest

from exports.curation_card import card_section as curation_card_section
from exports.curation_card import curator_agreement_section as card_section
from scoring.curator_agreement import compare_answers, status_lines, summarize

SCHEMA = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}


def answer(truth, question="Which a and b?", schema=SCHEMA, verdict="accept"):
    return {"question": question, "json_schema": schema, "ground_truth": truth, "verdict": verdict}


def test_identical_answers_agree_whatever_the_key_order_and_the_question_spacing():
    first = answer({"a": "x", "b": 3})
    second = answer({"b": 3.0, "a": "x"}, question="  which A and b? ")
    comparison = compare_answers(first, second)
    assert comparison.agree and comparison.value_accuracy == 1.0 and comparison.sted == 1.0
    assert comparison.differences() == []


def test_one_differing_leaf_and_a_leaf_only_one_side_has():
    comparison = compare_answers(answer({"a": "x", "b": 3}), answer({"a": "y", "b": 3, "c": True}))
    assert not comparison.agree
    assert comparison.differing_fields == ("a", "c")
    assert comparison.value_accuracy == pytest.approx(1 / 3)  # b of a, b, c
    assert comparison.differences() == ["$.ground_truth.a", "$.ground_truth.c"]
    assert 0 < comparison.sted < 1


def test_same_answer_to_another_schema_or_with_another_verdict_disagrees():
    other_schema = {**SCHEMA, "required": ["a"]}
    assert compare_answers(answer({"a": "x"}), answer({"a": "x"}, schema=other_schema)).differences() == [
        "$.json_schema"
    ]
    assert compare_answers(answer({"a": "x"}), answer({"a": "x"}, verdict="reject")).differences() == ["$.verdict"]
    # JSON equality as scoring compares values: true is not 1, "3" is not 3
    assert not compare_answers(answer({"b": 1}), answer({"b": True})).agree
    assert not compare_answers(answer({"b": 3}), answer({"b": "3"})).agree


def test_summary_means_intervals_and_wilson():
    rows = [
        compare_answers(answer({"a": "x", "b": i}), answer({"a": "x", "b": i if i % 4 else -1})).as_row()
        for i in range(20)
    ]
    numbers = summarize(rows, adjudicated=2).as_dict()
    assert numbers["records_with_two_answers"] == 20 and numbers["disagree"] == 5 and numbers["adjudicated"] == 2
    assert numbers["mean_value_accuracy"] == pytest.approx((15 + 5 * 0.5) / 20)
    low, high = numbers["value_accuracy_ci95"]
    assert low < numbers["mean_value_accuracy"] < high <= 1.0
    low, high = numbers["disagree_ci95"]
    assert low < 0.25 < high and math.isclose(low, 0.1119, abs_tol=1e-3)  # Wilson 5/20
    assert numbers["fields_that_differ"] == {"b": 5}
    lines = status_lines(numbers)
    assert lines[0].startswith("curator agreement: 20 record(s) with two answers, 5 disagree (95% CI 11.2%-46.9%)")
    assert "## Curator agreement" in card_section(numbers)


def test_no_two_answers_no_figures_and_no_card_section():
    assert summarize([]).as_dict()["mean_value_accuracy"] is None
    assert status_lines(summarize([]).as_dict()) == []
    numbers = {
        "records": 3,
        "draft_agreement": {"records_with_draft": 0},
        "output_budget": {"max_tokens": 10, "tokenizer": "t", "over_budget": 0, "budget": 2048},
        "array_order_warnings": 0,
        "suspect_flags": 0,
        "ambiguity_flags": 0,
    }
    assert "Curator agreement" not in curation_card_section(numbers)
