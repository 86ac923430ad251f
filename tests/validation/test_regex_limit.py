"""A schema's regular expressions cannot hold a record's validation longer than their time budget."""

from __future__ import annotations

import re
import time

import pytest

from tests.validation.conftest import MakeRecord
from validation import regex_limit
from validation.pipeline import check_record

SLOW = "^(a|aa)+$"  # exponential in `re`, and still backtracking in `regex`
HOSTILE = "a" * 40 + "!"


def test_a_slow_pattern_rejects_the_record_at_its_place_within_the_budget(make_record: MakeRecord) -> None:
    schema = {
        "type": "object",
        "properties": {"codes": {"type": "array", "items": {"type": "string", "pattern": SLOW}}},
    }
    # Many strings, each allowed one search of its own: the record's budget still bounds the whole check.
    record = make_record(schema=schema, ground_truth={"codes": [HOSTILE] * 50})
    started = time.monotonic()
    report = check_record(record).report
    elapsed = time.monotonic() - started
    assert elapsed < regex_limit.BUDGET_SECONDS + 1.0, f"the pattern held validation for {elapsed:.1f} s"
    slow = [f for f in report.failures if f.code == "schema_pattern_too_slow"]
    assert [f.path for f in slow] == ["$.properties.codes.items.pattern"]
    assert not report.passed


def test_a_slow_pattern_property_name_is_named_too(make_record: MakeRecord) -> None:
    schema = {"type": "object", "patternProperties": {SLOW: {"type": "string"}}, "additionalProperties": False}
    started = time.monotonic()
    report = check_record(make_record(schema=schema, ground_truth={HOSTILE: "x"})).report
    assert time.monotonic() - started < regex_limit.BUDGET_SECONDS + 1.0
    paths = {f.path for f in report.failures if f.code == "schema_pattern_too_slow"}
    assert paths == {'$.patternProperties["^(a|aa)+$"]'}


def test_an_ordinary_pattern_still_matches_and_mismatches() -> None:
    assert regex_limit.search(r"^\d{4}-\d{2}$", "1965-08")
    assert regex_limit.search(r"^\d{4}-\d{2}$", "1965-8") is None
    with pytest.raises(re.error):
        regex_limit.search("(unclosed", "x")


def test_search_alone_stops_at_its_own_limit() -> None:
    started = time.monotonic()
    with pytest.raises(regex_limit.PatternTooSlow):
        regex_limit.search(SLOW, HOSTILE)
    assert time.monotonic() - started < regex_limit.SEARCH_SECONDS + 0.5
