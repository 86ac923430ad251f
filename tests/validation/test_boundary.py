"""The input boundary: limits checked before anything is stored, false rejects and false accepts both."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from authoring.labelstudio import parse_annotation
from core.boundary import (
    InputRejected,
    check_value,
    few_containers,
    parse_json_text,
    read_json_lines,
    read_json_list,
)
from core.limits import MAX_INPUT_CONTAINERS, MAX_INPUT_NESTING, MAX_LINE_BYTES, MAX_STRING_CHARS, measure
from core.models import Provenance, Record, RecordState, SourceItem
from core.store import Store


def nested_text(depth: int) -> str:
    return '{"a": ' * depth + "1" + "}" * depth


def rejected(text: str) -> str:
    with pytest.raises(InputRejected) as caught:
        parse_json_text(text)
    return caught.value.code


@pytest.mark.parametrize("depth", [MAX_INPUT_NESTING + 1, 150, 450, 999, 5_000, 100_000])
def test_too_deep_is_a_rejection_at_any_depth(depth: int) -> None:
    assert rejected(nested_text(depth)) == "too_deep"


def test_at_the_limit_is_accepted() -> None:
    assert parse_json_text(nested_text(MAX_INPUT_NESTING)) is not None


def _random_value(rng: random.Random, depth: int) -> Any:
    """A value nested up to `depth` levels: one child goes deeper, its siblings are scalars."""
    if depth <= 0 or rng.random() < 0.05:
        return rng.choice([1, "a [b] {c}", "[[[", "}{", None, True, 2.5])
    children = [rng.choice([1, "x]", "{{", None]) for _ in range(rng.randint(0, 3))]
    children.insert(rng.randint(0, len(children)), _random_value(rng, depth - 1))
    if rng.random() < 0.5:
        return children
    return {f"k{i}{rng.choice(['', '[', '{'])}": child for i, child in enumerate(children)}


def test_few_containers_never_passes_a_value_the_walk_would_reject() -> None:
    """The count of brackets that lets a line skip the walk (core/boundary.py::few_containers) is exact: a text
    it passes is within both limits, on random values with brackets in their strings and keys and nesting
    beyond the limit; and texts on both sides of it occur."""
    rng = random.Random(34)
    outcomes = set()
    for _ in range(2000):
        value = _random_value(rng, rng.choice([3, 20, 60, MAX_INPUT_NESTING - 2, MAX_INPUT_NESTING + 5]))
        text = json.dumps(value)
        depth, containers = measure(value, MAX_INPUT_NESTING, MAX_INPUT_CONTAINERS)
        few = few_containers(text)
        outcomes.add((few, depth > MAX_INPUT_NESTING))
        if few:
            assert depth <= MAX_INPUT_NESTING and containers <= MAX_INPUT_CONTAINERS, text[:200]
            assert parse_json_text(text) == value
    assert {(True, False), (False, False), (False, True)} <= outcomes


def test_strings_lengths_surrogates() -> None:
    assert rejected(json.dumps({"a": "x" * (MAX_STRING_CHARS + 1)})) == "value_too_long"
    assert rejected(json.dumps({"x" * (MAX_STRING_CHARS + 1): 1})) == "value_too_long"
    assert rejected('{"a": "Ed \\ud800Wood"}') == "lone_surrogate"
    assert rejected('{"a": "\\udc00"}') == "lone_surrogate"
    # False rejects: a long but allowed value, and an escaped surrogate *pair* (an emoji) are fine.
    assert parse_json_text(json.dumps({"a": "x" * MAX_STRING_CHARS}))["a"] == "x" * MAX_STRING_CHARS
    assert parse_json_text('{"film": "Ed Wood \\ud83c\\udfac"}') == {"film": "Ed Wood 🎬"}
    assert parse_json_text('{"ключ": "名前"}') == {"ключ": "名前"}
    assert rejected("{'a': 1}") == "malformed_json"
    assert rejected(" " * (MAX_LINE_BYTES + 1)) == "line_too_large"


def test_too_many_containers() -> None:
    with pytest.raises(InputRejected) as caught:
        check_value([[] for _ in range(300_000)])
    assert caught.value.code == "too_large"


def test_jsonl_lines_are_rejected_one_by_one(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_bytes(
        b"\xef\xbb\xbf" + b'{"n": 1}\n'  # a byte-order mark on the first line is not an error
        b'{"n": "caf\xe9"}\n'  # Latin-1, not UTF-8
        b"\n"
        + nested_text(100_000).encode()
        + b"\n"
        + b'{"n": "'
        + b"x" * (MAX_LINE_BYTES + 10)
        + b'"}\n'
        + b'{"n": 6}'  # no final line break
    )
    lines = list(read_json_lines(path))
    assert [(line.number, line.problem.code if line.problem else line.value) for line in lines] == [
        (1, {"n": 1}),
        (2, "invalid_utf8"),
        (4, "too_deep"),
        (5, "line_too_large"),
        (6, {"n": 6}),
    ]
    assert len(lines[3].raw) <= 2000 and len(lines[4].raw) <= 2000  # reports keep only the start


def test_json_list_items_are_rejected_one_by_one() -> None:
    items = ['{"n": 1}', nested_text(100_000), nested_text(200), '{"s": "\\ud800"}', '{"n": 5}']
    lines = list(read_json_list("[" + ",\n".join(items) + "]\n"))
    assert [(line.number, line.problem.code if line.problem else line.value) for line in lines] == [
        (1, {"n": 1}),
        (2, "too_deep"),
        (3, "too_deep"),
        (4, "lone_surrogate"),
        (5, {"n": 5}),
    ]
    assert list(read_json_list(" [ ] ")) == []
    for broken, code in (
        ('{"a": 1}', "not_a_list"),
        ('[{"a": 1} {"b": 2}]', "malformed_json"),
        ("[1,", "malformed_json"),
    ):
        with pytest.raises(InputRejected) as caught:
            list(read_json_list(broken))
        assert caught.value.code == code


def test_brackets_inside_strings_do_not_confuse_the_item_boundaries() -> None:
    deep = '{"a": "]]]}}}[[[{{{\\"", "b": ' + nested_text(3_000) + "}"
    lines = list(read_json_list(f'[{deep}, {{"after": "]"}}]'))
    assert [line.problem.code if line.problem else line.value for line in lines] == ["too_deep", {"after": "]"}]


def test_label_studio_editors_are_held_to_the_limits() -> None:
    def annotation(schema: str, answer: str) -> list[dict[str, Any]]:
        return [
            {"from_name": "question", "value": {"text": ["Who directed Ed Wood?"]}},
            {"from_name": "json_schema", "value": {"text": [schema]}},
            {"from_name": "ground_truth", "value": {"text": [answer]}},
            {"from_name": "verdict", "value": {"choices": ["accept"]}},
        ]

    deep = parse_annotation(annotation(nested_text(100_000), '{"a": 1}'))
    assert deep.json_schema is None and [p.code for p in deep.problems] == ["too_deep"]
    huge = parse_annotation(annotation('{"type": "object"}', json.dumps({"a": "x" * (MAX_STRING_CHARS + 1)})))
    assert huge.ground_truth is None and [p.code for p in huge.problems] == ["value_too_long"]
    long_question = annotation('{"type": "object"}', '{"a": 1}')
    long_question[0]["value"]["text"] = ["Who? " * 30_000]
    too_long = parse_annotation(long_question)
    assert [p.code for p in too_long.problems] == ["value_too_long"] and len(too_long.question) == MAX_STRING_CHARS
    fine = parse_annotation(annotation('{"type": "object"}', '{"director": "Tim Burton"}'))
    assert fine.problems == [] and fine.ground_truth == {"director": "Tim Burton"}


def test_a_record_at_every_limit_is_read_back_from_the_store(tmp_path: Path) -> None:
    """Whatever passes the boundary can be stored, read back and written again."""
    schema: Any = {"type": "string"}
    for _ in range(MAX_INPUT_NESTING - 2):
        schema = {"type": "array", "items": schema}
    line = json.dumps({"json_schema": schema, "ground_truth": {"a": "x" * MAX_STRING_CHARS}})
    value = parse_json_text(line)
    item = SourceItem(source="hotpotqa", source_id="s1", context="x", metadata={"type": "bridge"})
    record = Record.build(item, "q?", value["json_schema"], value["ground_truth"], Provenance(annotator="a"))
    with Store.open(tmp_path) as store:
        store.upsert_source_items([item])
        store.upsert_records([record], RecordState.AUTHORED, "import")
        [stored] = list(store.records("hotpotqa"))
    assert stored.record == record
    Record.model_validate_json(stored.record.model_dump_json())


def test_an_unreadable_stored_record_is_set_aside_not_fatal(tmp_path: Path) -> None:
    items = [SourceItem(source="hotpotqa", source_id=f"s{n}", context="x") for n in (1, 2)]
    records = [Record.build(item, "q?", {"type": "object"}, {}) for item in items]
    with Store.open(tmp_path) as store:
        store.upsert_source_items(items)
        store.upsert_records(records, RecordState.AUTHORED, "import")
        broken = json.loads(records[0].model_dump_json())
        broken["output"]["ground_truth"] = json.loads(nested_text(250))  # written before the limits existed
        store.con.execute(
            "UPDATE records SET record = ? WHERE record_id = ?", [json.dumps(broken), records[0].record_id]
        )
        assert [s.record.record_id for s in store.records("hotpotqa")] == [records[1].record_id]
        assert store.state_counts("hotpotqa") == {"authored": 1, "rejected": 1}
        [(record_id, source_id, reasons)] = store.unreadable_records("hotpotqa")
        assert (record_id, source_id, reasons[0].code) == (records[0].record_id, "s1", "unreadable_record")
        events = len(store.events(record_id=record_id))
        assert [s.record.record_id for s in store.records("hotpotqa")] == [records[1].record_id]
        assert len(store.events(record_id=record_id)) == events  # set aside once, not on every read
