"""ExtractBench-style field scoring: every preset accepts what it should and rejects what it should."""

from __future__ import annotations

import pytest

from scoring.fields import MISSING, EvaluationConfigError, FieldConfig, compare_scalar, score_fields


@pytest.mark.parametrize(
    "config, truth, good, bad",
    [
        ("string_exact", "Zürich", "Zürich", "zürich"),
        ("string_case_insensitive", "New  York", "new york", "New York City"),
        ({"metric": "string_fuzzy", "threshold": 0.9}, "Massachusetts", "Massachusets", "Maine"),
        ({"metric": "number_tolerance", "tolerance": 0.5}, 10.0, 10.4, 10.6),
        ({"metric": "number_tolerance", "relative_tolerance": 0.1}, 200, 219, 221),
        ("number_tolerance", 3.14, 3.14, 3.1400001),
        ("integer_exact", 3, 3.0, 4),
        ("boolean_exact", False, False, 0),
    ],
)
def test_presets_accept_and_reject(config, truth, good, bad):
    cfg = FieldConfig.parse(config, "$.x")
    assert compare_scalar(truth, good, cfg)
    assert not compare_scalar(truth, bad, cfg)


def test_types_never_cross():
    assert not compare_scalar(3, "3", FieldConfig.parse("integer_exact", "x"))
    assert not compare_scalar(1, True, FieldConfig.parse("number_tolerance", "x"))
    assert not compare_scalar("true", True, FieldConfig.parse("boolean_exact", "x"))
    assert not compare_scalar("3", 3, FieldConfig.parse("string_fuzzy", "x"))


SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "evaluation_config": "string_case_insensitive"},
        "spouse": {"type": ["string", "null"]},
        "children": {"type": ["integer", "null"]},
        "born": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}, "evaluation_config": "array_unordered"},
        "roles": {
            "type": "array",
            "evaluation_config": {"metric": "array_unordered"},
            "items": {
                "type": "object",
                "properties": {
                    "title": {"type": "string", "evaluation_config": {"metric": "string_fuzzy", "threshold": 0.8}},
                    "year": {"type": "integer"},
                },
            },
        },
    },
}
TRUTH = {
    "name": "Ada Lovelace",
    "spouse": None,
    "children": 3,
    "born": 1815,
    "tags": ["math", "poetry"],
    "roles": [{"title": "Countess", "year": 1838}, {"title": "Analyst", "year": 1843}],
}


def test_the_truth_matches_itself():
    report = score_fields(TRUTH, TRUTH, SCHEMA)
    assert report.score == 1.0 and report.counts == {"match": 10}


def test_missing_null_hallucinated_and_extra_are_kept_apart():
    prediction = {
        "name": "ada lovelace",  # case-insensitive match
        "spouse": "William King",  # truth is null: hallucinated
        "children": None,  # truth has a value: null_predicted
        # "born" absent: missing
        "tags": ["poetry", "math", "chess"],  # unordered match, one extra item
        "roles": [{"title": "Analyst", "year": 1843}, {"title": "Countes", "year": 1840}],  # fuzzy title, wrong year
        "nickname": "Enchantress",  # extra field
    }
    report = score_fields(TRUTH, prediction, SCHEMA)
    outcomes = {r.path: r.outcome for r in report.results}
    assert outcomes["name"] == "match"
    assert outcomes["spouse"] == "hallucinated"
    assert outcomes["children"] == "null_predicted"
    assert outcomes["born"] == "missing"
    assert outcomes["tags[0]"] == outcomes["tags[1]"] == "match"
    assert outcomes["roles[0].title"] == "match" and outcomes["roles[0].year"] == "mismatch"
    assert outcomes["roles[1].title"] == outcomes["roles[1].year"] == "match"
    assert outcomes["nickname"] == "extra" and outcomes["tags[+2]"] == "extra"
    summary = report.summary()
    assert summary["fields"] == 10 and summary["match"] == 6
    assert summary["omission_rate"] == pytest.approx(2 / 10)
    assert summary["hallucination_count"] == 3


def test_a_true_null_whose_key_is_absent_is_missing_not_a_match():
    report = score_fields({"spouse": None}, {}, SCHEMA)
    assert [r.outcome for r in report.results] == ["missing"]
    assert score_fields({"spouse": None}, {"spouse": None}, SCHEMA).score == 1.0


def test_ordered_arrays_are_scored_by_index():
    schema = {"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "string"}}}}
    report = score_fields({"xs": ["a", "b"]}, {"xs": ["b", "a"]}, schema)
    assert report.counts == {"mismatch": 2}


def test_a_container_answered_by_null_or_a_scalar():
    report = score_fields(TRUTH, {**TRUTH, "roles": None}, SCHEMA)
    assert [r.outcome for r in report.results if r.path.startswith("roles")] == ["null_predicted"] * 4
    report = score_fields(TRUTH, {**TRUTH, "roles": "Countess"}, SCHEMA)
    assert [r.outcome for r in report.results if r.path.startswith("roles")] == ["mismatch"] * 4
    report = score_fields(TRUTH, MISSING, SCHEMA)
    assert report.counts == {"missing": 10}


@pytest.mark.parametrize(
    "config, message",
    [
        ("string_vague", "unknown evaluation_config metric"),
        ({"metric": "string_fuzzy", "threshold": 90}, "ratio in"),
        ({"metric": "number_tolerance", "tolerance": -1}, "number >= 0"),
        (7, "preset name or an object"),
    ],
)
def test_bad_configs_are_clear_errors(config, message):
    schema = {"type": "object", "properties": {"x": {"type": "string", "evaluation_config": config}}}
    with pytest.raises(EvaluationConfigError, match=message):
        score_fields({"x": "a"}, {"x": "a"}, schema)
