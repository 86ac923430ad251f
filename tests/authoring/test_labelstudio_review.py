"""Evidence and reviewer flags through a real Label Studio server (conftest.py starts it) and the local fake
Gemini: spans marked per JSON path become `Record.output.evidence`; the reviewer's flags and the grounding
doubts are shown above the editors; a record moves on only when every flag is fixed or dismissed with a note."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from authoring import labelstudio as ls
from authoring import ls_state
from authoring.ls_evidence import label_of, to_utf16
from core.llm.cache import LLMCache
from core.llm.client import LLMClient
from core.llm.gemini_backend import GeminiBackend, GeminiSettings
from core.llm.retry import RetryPolicy
from core.models import RecordState, SourceItem
from core.store import Store
from judge.review_stage import run_review
from judge.reviewer import LLMReviewer
from tests.llm.fakes import FakeGemini, review_answer
from validation.stage import run_validation

CONTEXT = (
    "Ingrid Solvang 🔭 directed Marrow Creek Observatory from 1958 to 1977. She studied at the University of Oslo."
)
SCHEMA = {
    "type": "object",
    "properties": {
        "director": {"type": "string", "description": "who directed the observatory"},
        "university": {"type": "string", "description": "where the director studied"},
        "first_year": {"type": "integer", "description": "the first year of the directorship"},
    },
    "required": ["director", "university", "first_year"],
}
ANSWER = {"director": "Ingrid Solvang", "university": "University of Oslo", "first_year": 1958}
QUESTION = "Where did the director of Marrow Creek Observatory study, and from when did she direct it?"


@pytest.fixture
def fake_gemini(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGemini]:
    monkeypatch.setenv("GEMINI_API_KEY", "test-key-not-real")
    server = FakeGemini()
    yield server
    server.close()


def reviewer(server: FakeGemini, store: Store) -> LLMReviewer:
    backend = GeminiBackend(GeminiSettings(base_url=server.url, timeout_s=5.0))
    retry = RetryPolicy(max_attempts=2, initial_delay=0.01, max_delay=0.05)
    return LLMReviewer(LLMClient(backend, "gemini-2.5-flash", cache=LLMCache(store.con), retry=retry))


def item() -> SourceItem:
    return SourceItem(
        source="hotpotqa", source_id="h1", context=CONTEXT, question=QUESTION, answer="University of Oslo"
    )


def span(path: str, quote: str, context: str = CONTEXT) -> dict[str, Any]:
    start = context.index(quote)
    return {
        "id": f"s{start}",
        "from_name": "evidence_span",
        "to_name": "context",
        "type": "labels",
        "value": {
            "start": to_utf16(context, start),
            "end": to_utf16(context, start + len(quote)),
            "text": quote,
            "labels": [label_of(path)],
        },
    }


def text(name: str, value: str) -> dict[str, Any]:
    return {"from_name": name, "to_name": "context", "type": "textarea", "value": {"text": [value]}}


def result(answer: dict, spans: list[dict], evidence: dict | None = None, resolutions: str = "") -> list[dict]:
    out = [
        text("question", QUESTION),
        text("json_schema", json.dumps(SCHEMA)),
        text("ground_truth", json.dumps(answer)),
        {"from_name": "verdict", "to_name": "context", "type": "choices", "value": {"choices": ["accept"]}},
        *spans,
    ]
    if evidence:
        out.append(text("evidence", json.dumps(evidence)))
    if resolutions:
        out.append(text("flag_resolutions", resolutions))
    return out


def the_task(store: Store, session: ls.LabelStudioSession) -> ls_state.TaskRow:
    project = ls_state.get_project(store, session.base_url, "hotpotqa")
    (row,) = ls_state.tasks_by_id(store, session.base_url, project.project_id).values()
    return row


def only(store: Store):
    (stored,) = list(store.records("hotpotqa"))
    return stored


def test_marked_spans_and_reviewer_flags_round_trip(
    store: Store, ls_session, fake_gemini: FakeGemini, label_studio_server
) -> None:
    store.upsert_source_items([item()])
    proposed = {"$.director": "Ingrid Solvang", "$.first_year": {"kind": "normalised", "quote": "1958"}}
    draft = {"question": QUESTION, "json_schema": SCHEMA, "ground_truth": ANSWER, "model_version": "flash@v2"}
    draft["evidence"] = proposed
    ls.push_tasks(store, ls_session, "hotpotqa", {"h1": draft})
    row = the_task(store, ls_session)
    data = ls_session.client.tasks.get(id=row.task_id).data
    assert [o["value"] for o in data["evidence_paths"]] == ["director", "university", "first_year"]
    assert data["review_flags"].startswith("None")
    (prediction,) = ls_session.client.predictions.list(task=row.task_id)
    marked = {r["value"]["labels"][0]: r["value"]["text"] for r in prediction.result if r["type"] == "labels"}
    assert marked == {"director": "Ingrid Solvang", "first_year": "1958"}

    # The curator keeps the draft's spans, marks the university too and submits.
    spans = [
        span("$.director", "Ingrid Solvang"),
        span("$.first_year", "1958"),
        span("$.university", "University of Oslo"),
    ]
    first = ls_session.client.annotations.create(id=row.task_id, result=result(ANSWER, spans), lead_time=5.0)
    assert ls.pull_annotations(store, ls_session, "hotpotqa").counts["authored"] == 1
    evidence = only(store).record.output.evidence
    assert {p: (e.kind, e.quote) for p, e in evidence.items()} == {
        "$.director": ("span", "Ingrid Solvang"),
        "$.first_year": ("span", "1958"),
        "$.university": ("span", "University of Oslo"),
    }
    uni = evidence["$.university"]
    assert CONTEXT[uni.start : uni.end] == "University of Oslo"  # offsets converted past the emoji
    assert run_validation(store, "hotpotqa") == {"validated": 1}

    # The reviewer flags the first year; the record goes back with the flag above the editors.
    fake_gemini.answer = review_answer(
        lambda rec: [{"code": "answer_not_unique", "path": "$.first_year", "reason": "1958 or 1977?"}]
    )
    assert run_review(store, "hotpotqa", reviewer(fake_gemini, store)) == {"flagged": 1, "flags": 1}
    assert ls.bounce_review_flags(store, ls_session, "hotpotqa") == 1
    data = ls_session.client.tasks.get(id=row.task_id).data
    assert data["review_flags"].startswith("R1 [answer_not_unique] $.first_year: 1958 or 1977?")
    assert (
        "Sent back by the reviewer pass" in data["feedback"] and "$.first_year: R1: 1958 or 1977?" in data["feedback"]
    )
    assert the_task(store, ls_session).status == ls_state.NEEDS_REVISION
    assert ls.bounce_review_flags(store, ls_session, "hotpotqa") == 0  # never twice

    # A dismissal without a note does not count: back again, with the reason.
    ls_session.client.annotations.update(id=first.id, result=result(ANSWER, spans, resolutions="R1 dismissed"))
    assert ls.pull_annotations(store, ls_session, "hotpotqa").counts["needs_revision"] == 1
    stored = only(store)
    assert stored.state == RecordState.NEEDS_REVISION and stored.reasons[0].code == "dismissal_without_note"
    assert (
        "R1 (answer_not_unique at $.first_year) is dismissed without a note"
        in (ls_session.client.tasks.get(id=row.task_id).data["feedback"])
    )

    # Dismissed with a note: the record moves on, and the reviewer is not asked again about it.
    note = "R1 dismissed: the question asks from when, so the first year 1958 is the one answer"
    ls_session.client.annotations.update(id=first.id, result=result(ANSWER, spans, resolutions=note))
    assert ls.pull_annotations(store, ls_session, "hotpotqa").counts["authored"] == 1
    data = ls_session.client.tasks.get(id=row.task_id).data
    assert data["review_flags"].startswith("None") and "flags are resolved" in data["feedback"]
    assert the_task(store, ls_session).status == ls_state.AUTHORED
    assert run_validation(store, "hotpotqa") == {"validated": 1}
    calls = fake_gemini.total_model_calls
    assert run_review(store, "hotpotqa", reviewer(fake_gemini, store)) == {}
    assert fake_gemini.total_model_calls == calls
    stored = only(store)
    assert stored.state == RecordState.VALIDATED
    (flag,) = stored.record.provenance.review.flags  # what the judge sees
    assert flag.status == "dismissed" and flag.note.startswith("the question asks")
    assert flag.resolved_by == label_studio_server.credentials.username


def test_a_fix_must_change_the_record_and_a_changed_record_is_reviewed_again(
    store: Store, ls_session, fake_gemini: FakeGemini
) -> None:
    store.upsert_source_items([item()])
    ls.push_tasks(store, ls_session, "hotpotqa")
    row = the_task(store, ls_session)
    wrong = dict(ANSWER, first_year=1977)
    spans = [span("$.director", "Ingrid Solvang"), span("$.university", "University of Oslo")]
    first = ls_session.client.annotations.create(id=row.task_id, result=result(wrong, spans))
    ls.pull_annotations(store, ls_session, "hotpotqa")
    run_validation(store, "hotpotqa")
    fake_gemini.answer = review_answer(
        lambda rec: (
            [{"code": "ungrounded_value", "path": "$.first_year", "reason": "she started in 1958"}]
            if rec["ground_truth"]["first_year"] == 1977
            else []
        )
    )
    assert run_review(store, "hotpotqa", reviewer(fake_gemini, store)) == {"flagged": 1, "flags": 1}
    ls.bounce_review_flags(store, ls_session, "hotpotqa")

    # "Fixed" without an edit is refused.
    ls_session.client.annotations.update(id=first.id, result=result(wrong, spans, resolutions="R1 fixed"))
    ls.pull_annotations(store, ls_session, "hotpotqa")
    assert only(store).reasons[0].code == "fixed_but_unchanged"

    # Fixed for real: the edited record is validated and reviewed again, and goes on clean.
    fixed = spans + [span("$.first_year", "1958")]
    ls_session.client.annotations.update(id=first.id, result=result(ANSWER, fixed, resolutions="R1 fixed"))
    assert ls.pull_annotations(store, ls_session, "hotpotqa").counts["authored"] == 1
    run_validation(store, "hotpotqa")
    assert run_review(store, "hotpotqa", reviewer(fake_gemini, store)) == {"clean": 1}
    stored = only(store)
    assert stored.state == RecordState.VALIDATED
    assert [(f.id, f.status) for f in stored.record.provenance.review.flags] == [("R1", "fixed")]


def test_evidence_failures_and_grounding_doubts_are_shown_above_the_editors(store: Store, ls_session) -> None:
    store.upsert_source_items([item()])
    ls.push_tasks(store, ls_session, "hotpotqa")
    row = the_task(store, ls_session)
    answer = dict(ANSWER, university="University of Bergen")
    # A quote typed in the evidence editor that the context does not hold, and a path the answer lacks.
    evidence = {"$.director": "Ingrid Solveig", "$.nowhere": "absent"}
    ls_session.client.annotations.create(
        id=row.task_id, result=result(answer, [span("$.first_year", "1958")], evidence)
    )
    ls.pull_annotations(store, ls_session, "hotpotqa")
    assert run_validation(store, "hotpotqa") == {"rejected": 1}
    assert ls.bounce_validation_failures(store, ls_session, "hotpotqa") == 1
    stored = only(store)
    codes = {(r.code, r.path) for r in stored.reasons}
    assert ("evidence_not_in_context", "$.director") in codes and ("evidence_unknown_path", "$.nowhere") in codes
    feedback = ls_session.client.tasks.get(id=row.task_id).data["feedback"]
    assert "$.director:" in feedback and "$.nowhere:" in feedback
    assert (
        "Doubts of the grounding check" in feedback and "$.university:" in feedback and "ungrounded_value" in feedback
    )
