"""Records re-validated through the `Record` model, from a model or from a raw dict."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.models import Record
from validation.pydantic_check import check_pydantic, parse_record

MakeRecord = Callable[..., Record]


def test_good_record_passes(make_record: MakeRecord) -> None:
    record = make_record()
    assert check_pydantic(record) == []
    parsed, failures = parse_record(record.model_dump(mode="json"))
    assert failures == [] and isinstance(parsed, Record) and parsed == record


def test_fields_assigned_after_construction_are_caught(make_record: MakeRecord) -> None:
    record = make_record()
    record.input.question = ""  # pydantic does not validate assignments on these models
    record.output.ground_truth = ["not", "an", "object"]  # type: ignore[assignment]
    found = {(f.check, f.code, f.path) for f in check_pydantic(record)}
    assert found == {
        ("pydantic", "pydantic_string_too_short", "$.input.question"),
        ("pydantic", "pydantic_dict_type", "$.output.ground_truth"),
    }


def test_raw_dict_reports_every_error(make_record: MakeRecord) -> None:
    raw: dict[str, Any] = make_record().model_dump(mode="json")
    del raw["input"]["context"]
    raw["metadata"]["source"] = "wikipedia"
    raw["output"]["surprise"] = 1
    parsed, failures = parse_record(raw)
    assert parsed is None
    assert {(f.code, f.path) for f in failures} == {
        ("pydantic_missing", "$.input.context"),
        ("pydantic_literal_error", "$.metadata.source"),
        ("pydantic_extra_forbidden", "$.output.surprise"),
    }


def test_not_a_dict_at_all() -> None:
    assert [(f.code, f.path) for f in check_pydantic(["a", "list"])] == [("pydantic_model_type", "$")]
