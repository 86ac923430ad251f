"""Evidence per value: parsing, resolution, hard failures with their paths, normalisations, and doubts."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from authoring.file_import import import_authored
from core.evidence import Evidence, parse_evidence, parse_evidence_map
from core.models import Record, SourceItem
from validation.evidence import check_evidence
from validation.evidence_given import derive
from validation.normalise import matches_normalised, number_readings, words_to_number
from validation.pipeline import check_record

CONTEXT = (
    "Scott Derrickson (born July 16, 1966) is an American director.\n\n"
    "Ed Wood\nEdward Davis Wood Jr. (October 10, 1924 – December 10, 1978) was an American filmmaker. "
    "Attendance fell 12% to 3,677 in 1986. Lows of -5 C were seen."
)
MEETING = "[0:05] ME: THE BUDGET IS TWELVE AND A HALF POUNDS\n[0:12] UI: WE USE RUBBER\n[0:40] PM: OKAY"


def codes(result) -> list[tuple[str, str]]:
    return [(f.code, f.path) for f in result.failures]


def test_short_forms_parse_and_bad_entries_say_why() -> None:
    assert parse_evidence("born July 16, 1966") == Evidence(kind="span", quote="born July 16, 1966")
    assert parse_evidence("absent").kind == "absent"
    derived = parse_evidence({"derived_from": "$.a", "rule": "count"})
    assert derived.kind == "derived" and derived.sources == ["$.a"]
    parsed, problems = parse_evidence_map(
        {"a.b": "x", "$.c": 3, "$.d": {"kind": "derived"}, "$.e": {"sources": ["$.a"], "rule": "bogus"}}
    )
    assert set(parsed) == {"$.a.b"}
    assert dict(problems)["$.c"].startswith("evidence must be a quoted string or an object")
    assert "sources" in dict(problems)["$.d"] and "unknown rule" in dict(problems)["$.e"]
    with pytest.raises(ValueError, match="end must be greater"):
        parse_evidence({"start": 5, "end": 5})


def test_spans_are_resolved_to_offsets_and_must_support_their_value() -> None:
    truth = {"name": "Scott Derrickson", "born": 1966, "city": "Paris"}
    evidence = {"$.born": parse_evidence("born July 16, 1966"), "$.city": parse_evidence("American director")}
    result = check_evidence(truth, CONTEXT, evidence)
    born = result.resolved["$.born"]
    assert CONTEXT[born.start : born.end] == "born July 16, 1966" and not born.auto
    # A name that is not its quote may be a paraphrase: a doubt for a person, not a rejection.
    assert codes(result) == []
    assert [(i.code, i.path) for i in result.issues] == [("evidence_unverified", "$.city")]
    assert result.resolved["$.name"].auto  # located by the toolkit
    # A number its own quote contradicts is provably wrong.
    wrong = check_evidence({"born": 1967}, CONTEXT, {"$.born": parse_evidence("born July 16, 1966")})
    assert codes(wrong) == [("evidence_mismatch", "$.born")]


def test_broken_evidence_fails_with_a_reason_never_a_crash() -> None:
    truth = {"a": "American", "b": 1966, "c": None, "d": "x"}
    evidence = {
        "$.a": parse_evidence("Canadian director"),
        "$.b": Evidence(start=0, end=5, quote="born"),
        "$.c": parse_evidence("American"),
        "$.d": Evidence(start=10, end=10_000),
        "$.nowhere": parse_evidence("absent"),
    }
    got = codes(check_evidence(truth, CONTEXT, evidence))
    assert ("evidence_not_in_context", "$.a") in got
    assert ("evidence_offsets_mismatch", "$.b") in got
    assert ("evidence_mismatch", "$.c") in got  # a span cannot support null: mark it absent
    assert ("evidence_offsets_mismatch", "$.d") in got
    assert ("evidence_unknown_path", "$.nowhere") in got


def test_absent_and_derived_evidence() -> None:
    truth = {"people": [{"n": "American"}, {"n": "American"}], "same": True, "gap": 3, "tags": [], "x": "y"}
    evidence = {
        "$.same": parse_evidence({"derived_from": ["$.people[0].n", "$.people[1].n"], "rule": "equal"}),
        "$.gap": parse_evidence({"derived_from": ["$.people"], "rule": "count"}),
        "$.tags": parse_evidence("absent"),
        "$.x": parse_evidence("absent"),
    }
    got = codes(check_evidence(truth, CONTEXT, evidence))
    assert got == [("evidence_mismatch", "$.gap"), ("evidence_mismatch", "$.x")]
    unknown = check_evidence({"same": True}, CONTEXT, {"$.same": parse_evidence({"derived_from": ["$.who"]})})
    assert codes(unknown) == [("derived_unknown_source", "$.same")]
    assert derive("difference", [1986, 1979]) == 7 and derive("later", [2013, 1986]) is True
    assert derive("sum", ["a", 1]) is None


def test_normalisations_are_recognised_and_nothing_else() -> None:
    assert words_to_number("twelve and a half") == Decimal("12.5")
    assert words_to_number("three thousand six hundred") == 3600
    assert words_to_number("a banana") is None
    assert Decimal("12.5") in number_readings("TWELVE AND A HALF POUNDS")
    assert matches_normalised(0.736, "73.6%") and matches_normalised(73.6, "73.6%")
    assert matches_normalised(3677, "3,677 seated") and not matches_normalised(367, "3,677 seated")
    assert matches_normalised("1966-07-16", "born July 16, 1966")
    assert not matches_normalised("1966-06-16", "born July 16, 1966")
    assert matches_normalised(-5, "Lows of -5 C") and not matches_normalised(5, "Lows of -5 C")
    assert matches_normalised("NORTH EAST ISD", "North East ISD")


def test_transcript_markup_is_no_evidence_and_words_are_numbers() -> None:
    result = check_evidence({"price": 12.5, "material": "RUBBER", "minute": 40, "speaker": "UI"}, MEETING, {})
    assert result.ungrounded == ["$.minute"]  # 40 is only in the timestamp [0:40]
    assert result.resolved["$.price"].kind == "normalised"
    assert result.support["speaker"] == 1
    in_markup = check_evidence({"minute": 40}, MEETING, {"$.minute": parse_evidence("0:40")})
    assert codes(in_markup) == [("evidence_in_markup", "$.minute")]


def test_values_are_tied_to_their_entity_and_field() -> None:
    swapped = {"people": [{"name": "Scott Derrickson", "born": "October 10, 1924"}]}
    doubts = [(i.code, i.path) for i in check_evidence(swapped, CONTEXT, {}).issues]
    assert doubts == [("value_not_near_entity", "$.people[0].born")]
    right = {"people": [{"name": "Ed Wood", "born": "October 10, 1924"}]}
    assert check_evidence(right, CONTEXT, {}).issues == []
    table = "| Item | Price | Stock |\n|---|---|---|\n| Pen | 2.50 | 40 |"
    permuted = check_evidence({"item": {"name": "Pen", "price": "40", "stock": "2.50"}}, table, {})
    assert sorted(i.code for i in permuted.issues) == ["value_in_wrong_field", "value_in_wrong_field"]
    assert check_evidence({"item": {"name": "Pen", "price": "2.50", "stock": "40"}}, table, {}).issues == []


def _record(ground_truth: dict, evidence: dict, schema: dict) -> Record:
    item = SourceItem(source="olmocr", source_id="p.pdf", context="Footnotes: none. Total 12.")
    return Record.build(item, "What are the page's total and footnotes?", schema, ground_truth, evidence=evidence)


def test_an_empty_list_marked_absent_passes_validation_and_an_unmarked_one_does_not() -> None:
    schema = {
        "type": "object",
        "properties": {
            "total": {"type": "integer"},
            "footnotes": {"type": "array", "items": {"type": "string"}},
            "page": {"type": "string"},
        },
        "required": ["total", "footnotes", "page"],
        "additionalProperties": False,
    }
    truth = {"total": 12, "footnotes": [], "page": "Total"}
    marked = check_record(_record(truth, {"$.footnotes": parse_evidence("absent")}, schema))
    assert marked.report.passed, marked.report.failures
    assert marked.evidence is not None and marked.evidence["$.total"].auto
    unmarked = check_record(_record(truth, {}, schema))
    assert [f.code for f in unmarked.report.failures] == ["empty_array"]


def test_authored_lines_with_unreadable_evidence_are_rejected_with_their_line(tmp_path: Path) -> None:
    item = SourceItem(source="hotpotqa", source_id="s1", context=CONTEXT)
    line = {"source_id": "s1", "question": "Who?", "json_schema": {}, "ground_truth": {}, "annotator": "a"}
    path = tmp_path / "a.jsonl"
    path.write_text(
        json.dumps(line | {"evidence": {"$.a": 7}})
        + "\n"
        + json.dumps(line | {"question": "Where?", "evidence": {"$.a": "American"}})
        + "\n"
    )
    result = import_authored(path, {"s1": item})
    assert [r.output.evidence["$.a"].quote for r in result.records] == ["American"]
    ((line_no, _, reasons),) = result.rejections
    assert line_no == 1 and reasons[0].code == "invalid_evidence" and reasons[0].path == "$.a"
