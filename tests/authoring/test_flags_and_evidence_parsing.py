"""What a curator writes in Label Studio, read without a server: flag resolutions and evidence spans."""

from __future__ import annotations

import json

from authoring.flag_resolutions import NONE_OPEN, flags_text, resolve
from authoring.ls_evidence import from_utf16, parse_evidence, prefill, to_utf16
from core.evidence import Evidence
from core.review import ReviewFlag, ReviewInfo

CONTEXT = (
    "Ingrid Solvang 🔭 directed Marrow Creek Observatory from 1958 to 1977. She studied at the University of Oslo."
)


def review(*flags: ReviewFlag) -> ReviewInfo:
    return ReviewInfo(
        reviewer="gemini:gemini-2.5-flash",
        version="v",
        reviewed_at="2026-01-01T00:00:00Z",
        subject_hash="h",
        flags=list(flags),
    )


R1 = ReviewFlag(id="R1", code="ungrounded_value", path="$.start", reason="the context says 1958")
R2 = ReviewFlag(id="R2", code="ambiguous_question", path="$", reason="which directorship?")


def test_every_flag_fixed_or_dismissed_with_a_note_resolves_the_review() -> None:
    text = "R1 fixed\nr2 dismissed: the question names the observatory, so there is one directorship\n"
    resolved, problems = resolve(review(R1, R2), text, changed=True, annotator="ann@x")
    assert problems == []
    assert [(f.id, f.status, f.resolved_by) for f in resolved.flags] == [
        ("R1", "fixed", "ann@x"),
        ("R2", "dismissed", "ann@x"),
    ]
    assert resolved.flags[1].note.startswith("the question names") and resolved.open_flags == []


def test_unresolved_flags_notes_missing_and_fixes_without_an_edit_keep_the_record_back() -> None:
    cases = {
        "": {"flag_unresolved"},
        "R1 dismissed\nR2 dismissed -  ": {"dismissal_without_note"},
        "R1 fixed\nR2 fixed": {"fixed_but_unchanged"},
        "R1 dismissed: fine\nR2 dismissed: fine\nR7 fixed": {"unknown_flag"},
        "R1 dismissed: fine\nR2 dismissed: fine\nlooks good to me": {"unreadable_resolution"},
        "R1 dismissed: fine": {"flag_unresolved"},
    }
    for text, codes in cases.items():
        resolved, problems = resolve(review(R1, R2), text, changed=False, annotator=None)
        assert {p.code for p in problems} == codes, text
        assert all(p.stage == "authoring" for p in problems)
    _, problems = resolve(review(R1, R2), "R1 fixed", changed=False, annotator=None)
    assert any("R1 (ungrounded_value at $.start) is marked fixed" in p.message for p in problems)


def test_the_flags_box_lists_open_flags_only() -> None:
    assert flags_text(None) == NONE_OPEN
    done = R1.model_copy(update={"status": "fixed"})
    text = flags_text(review(done, R2))
    assert "R2 [ambiguous_question] $: which directorship?" in text and "R1" not in text.split("\n")[0]
    assert flags_text(review(done)) == NONE_OPEN


def test_offsets_count_utf16_units_in_label_studio_and_code_points_here() -> None:
    at = CONTEXT.index("directed")
    assert to_utf16(CONTEXT, at) == at + 1  # the telescope emoji is two UTF-16 units
    assert from_utf16(CONTEXT, to_utf16(CONTEXT, at)) == at
    assert to_utf16(CONTEXT, 5) == 5 and from_utf16(CONTEXT, 5) == 5


def region(path: str | None, start: int, end: int, text: str) -> dict:
    labels = [path] if path else []
    return {"from_name": "evidence_span", "to_name": "context", "type": "labels", "id": f"r{start}",
            "value": {"start": start, "end": end, "text": text, "labels": labels}}  # fmt: skip


def test_spans_and_the_evidence_editor_become_evidence_by_path() -> None:
    js_start = to_utf16(CONTEXT, CONTEXT.index("University"))
    result = [
        region("director", 0, 14, "Ingrid Solvang"),  # as the label reads in Label Studio
        region("$.university", js_start, js_start + 18, "University of Oslo"),
    ]
    editor = json.dumps({"$.same": {"derived_from": ["$.a", "$.b"], "rule": "equal"}, "footnotes": "absent"})
    evidence, problems = parse_evidence(result, editor, CONTEXT)
    assert problems == []
    assert evidence["$.director"] == Evidence(kind="span", quote="Ingrid Solvang", start=0, end=14)
    uni = evidence["$.university"]
    assert CONTEXT[uni.start : uni.end] == "University of Oslo"  # converted from UTF-16
    assert evidence["$.same"].kind == "derived" and evidence["$.footnotes"].kind == "absent"


def test_evidence_that_cannot_be_read_is_a_problem_with_a_reason() -> None:
    result = [
        region(None, 0, 14, "Ingrid Solvang"),
        region("$.director", 0, 14, "Ingrid Solvang"),
        region("$.director", 15, 20, "x"),
        region("$.y", 90, 95, "text that is not there"),  # offsets do not hold the text: the quote is kept
    ]
    editor = json.dumps({"$.director": "Ingrid Solvang", "$.z": {"kind": "derived"}})
    evidence, problems = parse_evidence(result, editor, CONTEXT)
    codes = [p.code for p in problems]
    assert codes.count("evidence_duplicate") == 2 and "evidence_unlabelled" in codes and "evidence_unreadable" in codes
    assert evidence["$.y"].quote == "text that is not there" and evidence["$.y"].start is None
    _, problems = parse_evidence([], "{broken", CONTEXT)
    assert [p.code for p in problems] == ["malformed_json"]


def test_prefill_marks_located_spans_and_keeps_the_rest_in_the_editor() -> None:
    truth = {"director": "Ingrid Solvang", "start": 1958, "same": True, "missing": "Bergen"}
    evidence = {
        "$.director": Evidence(quote="Ingrid Solvang"),
        "$.start": Evidence(kind="normalised", quote="1958"),
        "$.same": Evidence(kind="derived", sources=["$.director"]),
        "$.missing": Evidence(quote="University of Bergen"),  # not in the context: shown, reported on submit
        "$.auto": Evidence(quote="x", auto=True),  # the toolkit's own guess is never prefilled
    }
    regions, editor = prefill(CONTEXT, truth, evidence)
    marked = {r["value"]["labels"][0]: r["value"] for r in regions}
    assert set(marked) == {"director", "start"}  # labels: paths without "$."
    start = marked["start"]
    assert start["text"] == "1958" and start["start"] == to_utf16(CONTEXT, CONTEXT.index("1958"))
    rest = json.loads(editor)
    assert rest == {"$.same": {"sources": ["$.director"], "kind": "derived"}, "$.missing": "University of Bergen"}
