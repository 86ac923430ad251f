"""The validation stage checks records it has just parsed from the store's JSON text more cheaply (a schema key
from pydantic's serialiser, the schema's size measured once per distinct schema); the report must be exactly
the one a record built in Python gets."""

from __future__ import annotations

import copy
import json
from typing import Any

from core.limits import MAX_SCHEMA_NESTING
from core.models import Record
from tests.validation.conftest import GOOD_SCHEMA, MakeRecord
from tests.validation.test_hostile_input import nested
from validation.cache import parsed_schema_key
from validation.pipeline import check_record


def _reparsed(record: Record) -> Record:
    return Record.model_validate_json(record.model_dump_json())


def _same_checks(record: Record) -> None:
    built = check_record(record)
    parsed = check_record(_reparsed(record), parsed_from_json=True)
    assert parsed.report.model_dump() == built.report.model_dump()
    assert parsed.validated_output == built.validated_output
    assert parsed.evidence == built.evidence


def test_parsed_schema_keys_are_equal_only_for_equal_schemas() -> None:
    schema = copy.deepcopy(GOOD_SCHEMA)
    assert parsed_schema_key(schema) == parsed_schema_key(json.loads(json.dumps(schema)))
    changed = copy.deepcopy(schema)
    changed["properties"]["release_year"]["type"] = "number"  # integer -> number: another schema
    assert parsed_schema_key(changed) != parsed_schema_key(schema)
    assert parsed_schema_key({"const": 1}) != parsed_schema_key({"const": 1.0})  # JSON tells 1 from 1.0
    assert parsed_schema_key({"const": float("nan")}) != parsed_schema_key({"const": None})
    reordered = dict(reversed(list(schema.items())))
    assert parsed_schema_key(reordered) != parsed_schema_key(schema)  # another text: only a cache miss
    deep: dict[str, Any] = {}
    for _ in range(400):
        deep = {"not": deep}
    assert parsed_schema_key(deep) is None  # too deep for the serialiser: checked without a cache


def test_a_parsed_record_gets_the_report_a_built_one_gets(make_record: MakeRecord) -> None:
    _same_checks(make_record())  # passes
    bad_truth = make_record(ground_truth={"film": "Ed Wood", "release_year": "1994", "extra": []})
    _same_checks(bad_truth)  # fails several checks
    reordered = dict(reversed(list(copy.deepcopy(GOOD_SCHEMA).items())))
    _same_checks(make_record(schema=reordered))  # same schema, keys in another order: a cache entry of its own


def test_an_oversized_schema_is_caught_on_the_parsed_path_every_time(make_record: MakeRecord) -> None:
    deep_schema, data = nested(MAX_SCHEMA_NESTING // 2)  # two containers per level: past the schema limit
    record = make_record(schema=deep_schema, ground_truth=data)
    for _ in range(2):  # the second time from the cache of schema sizes
        checked = check_record(_reparsed(record), parsed_from_json=True)
        assert "schema_too_deep" in {f.code for f in checked.report.failures}
        assert "edited by its owner" not in {f.message for f in checked.report.failures}
        assert checked.validated_output is None and checked.report.complexity is None
        checked.report.failures[0].message = "edited by its owner"  # reports are copies, not the cache's own
    _same_checks(record)
