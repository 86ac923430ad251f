"""Unit tests of the release parts: splits, versions, token counts, statistics and rows."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

from exports import (
    InvalidVersionError,
    StatsCollector,
    arrow_schema,
    column_names,
    compute_split,
    count_tokens,
    get_tokenizer,
    parse_version,
    plan_splits,
    record_row,
)
from exports.columns import stored_row
from exports.splits import bucket


def test_split_formula_is_deterministic_and_roughly_80_10_10():
    ids = [f"{i:064x}" for i in range(3000)]
    splits = [compute_split(rid, "default") for rid in ids]
    assert splits == [compute_split(rid, "default") for rid in ids]
    share = {s: splits.count(s) / len(ids) for s in ("train", "validation", "test")}
    assert 0.77 < share["train"] < 0.83 and 0.08 < share["validation"] < 0.12 and 0.08 < share["test"] < 0.12
    assert {compute_split(rid, "image") for rid in ids} == {"train"}
    assert {compute_split(rid, "audio") for rid in ids} == {"train"}
    assert all(0 <= bucket(rid) < 100 for rid in ids[:50])


def test_stored_assignments_win():
    ids = ["a", "b", "c"]
    plan = plan_splits(ids, "default", {"a": "test"})
    assert plan.assignments["a"] == "test" and "a" not in plan.new
    assert set(plan.new) == {"b", "c"}
    with pytest.raises(ValueError, match="publishes only"):
        plan_splits(["a"], "image", {"a": "test"})
    with pytest.raises(ValueError, match="unknown release config"):
        compute_split("a", "video")


def test_parse_version():
    assert parse_version("0.1.0") == (0, 1, 0)
    assert parse_version("10.20.30") == (10, 20, 30)
    assert parse_version("1.10.0") > parse_version("1.9.0")
    for bad in ("1", "1.2", "1.2.3.4", "v1.2.3", "1.2.x", "1.02.3"):
        with pytest.raises(InvalidVersionError):
            parse_version(bad)


def test_count_tokens_reports_its_tokenizer():
    tok = get_tokenizer()
    assert tok.name
    counts = count_tokens(["Hello, world!", "", "Zürich ist schön."])
    assert len(counts) == 3 and counts[1] == 0
    if not tok.exact:
        assert counts == [4, 0, 4]
        assert "approximation" in tok.name


def test_stats_collector():
    stats = StatsCollector(["train", "test"], batch_size=2)
    stats.add("train", "a b c", {"level": "easy", "properties": 2, "required": 1})
    stats.add("train", "a b c d e", {"level": "hard", "properties": 6, "required": 3}, category="legal")
    stats.add("test", "a", None, difficulty="hard")
    result = stats.result()
    train = result["splits"]["train"]
    assert train["records"] == 2 and train["median_schema_properties"] == 4
    assert train["share_hard"] == 0.5 and train["share_medium"] == 0.0
    test = result["splits"]["test"]
    assert test["records"] == 1 and test["with_complexity"] == 0 and test["median_required_fields"] is None
    assert result["overall"]["records"] == 3 and result["overall"]["with_complexity"] == 2
    assert result["source_categories"] == {"legal": 1} and result["question_difficulty"] == {"hard": 1}
    if not result["tokenizer_exact"]:
        assert train["avg_context_tokens"] == 4.0


def test_stats_counted_beside_the_caller_are_the_same():
    texts = ["Zürich is a city.", "the\x0bre is", "", "naïve café 1990–1995, Zürich"] * 5
    plain, beside = StatsCollector(["train", "test"], batch_size=3), None
    with ThreadPoolExecutor(max_workers=1) as pool:
        beside = StatsCollector(["train", "test"], batch_size=3, submit=pool.submit)
        for i, text in enumerate(texts):
            for stats in (plain, beside):
                stats.add("train" if i % 3 else "test", text, None)
        assert beside.result() == plain.result()
    expected = sum(count_tokens([text for i, text in enumerate(texts) if i % 3]))
    assert plain.result()["splits"]["train"]["avg_context_tokens"] == round(expected / 13, 1)


@pytest.mark.parametrize("source", ["hotpotqa", "olmocr", "ami"])
def test_the_row_of_stored_json_is_the_row_of_the_record(factory, source):
    for i in range(6):
        record = factory.make_record(source, i)
        if i % 2:
            record.output.validated_output = {"answer": f"Zürich {i}", "n": 10**30, "x": 1e20}
            record.metadata.schema_complexity = "hard"
            record.provenance.judge = "llm@1"
        validation, verdict = (factory.validation_report(i), factory.verdict(i)) if i % 3 else (None, None)
        stored = json.loads(record.model_dump_json())
        assert stored_row(stored, validation, verdict) == record_row(record, validation, verdict)


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d["input"].pop("context"),
        lambda d: d["output"].update(ground_truth=[1]),
        lambda d: d["metadata"].update(source="nowhere"),
        lambda d: d.update(provenance=None),
        lambda d: d["input"].update(question=""),
    ],
)
def test_stored_json_without_a_rows_fields_is_left_to_the_model(factory, damage):
    stored = json.loads(factory.make_record("hotpotqa", 1).model_dump_json())
    damage(stored)
    assert stored_row(stored) is None


def test_record_row_order_and_types(factory):
    record = factory.make_record("ami", 1)
    row = record_row(record, factory.validation_report(1), factory.verdict(1))
    assert list(row) == column_names("ami") == arrow_schema("ami").names
    assert row["num_speakers"] == 4 and row["meeting_id"] == "ES2001a"
    assert json.loads(row["ground_truth"]) == record.output.ground_truth
    assert row["schema_complexity"] == "medium" and row["grounded_fraction"] == 0.5
    bad = factory.make_record("ami", 2)
    bad.metadata.extra["num_speakers"] = "many"
    with pytest.raises(ValueError, match="num_speakers"):
        record_row(bad)
    bare = record_row(factory.make_record("hotpotqa", 1))
    assert bare["judge"] is None and bare["judge_scores"] is None and bare["grounded_fraction"] is None
