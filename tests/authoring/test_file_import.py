import json
from pathlib import Path

import pytest

from authoring.file_import import import_authored
from core.models import SourceItem, make_record_id

ITEM = SourceItem(source="hotpotqa", source_id="h1", context="Alpha beta.", question="Seed?", answer="beta")
SCHEMA = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}


def line(**overrides) -> str:
    payload = {
        "source_id": "h1",
        "question": "What is alpha?",
        "json_schema": SCHEMA,
        "ground_truth": {"a": "beta"},
        "annotator": "ann",
    }
    payload.update(overrides)
    return json.dumps({k: v for k, v in payload.items() if v is not ...}, ensure_ascii=False)


def run(tmp_path: Path, *lines: str):
    path = tmp_path / "authored.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return import_authored(path, {"h1": ITEM})


def test_good_line_becomes_a_record_with_provenance(tmp_path: Path) -> None:
    result = run(tmp_path, line())
    assert not result.rejections
    (record,) = result.records
    assert record.record_id == make_record_id("hotpotqa", "h1", "What is alpha?")
    assert record.input.context == "Alpha beta." and record.output.ground_truth == {"a": "beta"}
    assert record.provenance.annotator == "ann" and record.provenance.authored_via == "file:authored.jsonl"
    # The seed answer belongs to the seed question only.
    assert "answer" not in record.metadata.extra and record.metadata.extra["seed_question"] == "Seed?"
    (seeded,) = run(tmp_path, line(question="Seed?")).records
    assert seeded.metadata.extra["answer"] == "beta"


def test_every_bad_line_is_rejected_with_its_line_number(tmp_path: Path) -> None:
    result = run(
        tmp_path,
        line(),
        "{broken",
        line(source_id="nope"),
        line(annotator=...),
        line(extra_key=1),
        line(json_schema=["not", "a", "schema"]),
        "[1, 2]",
        "",
        line(),  # same record again
        line(question="Ünïcode ☃?", ground_truth={"a": "日本"}),
    )
    assert len(result.records) == 2
    assert result.records[1].input.question == "Ünïcode ☃?"
    got = [(n, [r.code for r in reasons]) for n, _, reasons in result.rejections]
    assert got == [
        (2, ["malformed_json"]),
        (3, ["unknown_source_id"]),
        (4, ["missing_field"]),
        (5, ["unknown_field"]),
        (6, ["invalid_field"]),
        (7, ["not_an_object"]),
        (9, ["duplicate_record"]),
    ]
    assert result.rejections[0][1] == "{broken"  # the raw line is kept
    assert "$.annotator" in result.rejections[2][2][0].message
    assert result.lines == 9  # blank lines are not records


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="authored file"):
        import_authored(tmp_path / "nope.jsonl", {})
