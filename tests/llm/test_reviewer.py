"""SOB's reviewer pass through the real google-genai SDK against the local fake Gemini: flags per JSON path,
flagged records back to the curator, clean ones on to the judge, cached answers, dismissed flags kept."""

from __future__ import annotations

import json

from core.models import RecordState
from core.review import ReviewFlag, ReviewInfo
from core.store import StateChange, Store
from judge.review_stage import needs_review, run_review
from judge.reviewer import LLMReviewer, review_prompt_version
from tests.llm.fakes import FakeGemini, Reply, gemini_error, review_answer


def flag_person_of_first_record(record: dict) -> list[dict[str, str]]:
    if record["ground_truth"]["person"] == "Person 0":
        return [
            {"code": "ungrounded_value", "path": "$.born", "reason": "the context gives 1900 for Person 0"},
            {"code": "ambiguous_question", "path": "$", "reason": "born where or when?"},
            {"code": "ambiguous_question", "path": "$", "reason": "duplicate: dropped"},
        ]
    return []


def test_flags_send_a_record_back_and_clean_records_go_on(
    fake_gemini: FakeGemini, make_gemini_client, store: Store, seed
) -> None:
    records = seed(store, 3)
    fake_gemini.answer = review_answer(flag_person_of_first_record)
    reviewer = LLMReviewer(make_gemini_client(fake_gemini, store=store, model="gemini-2.5-flash"))
    assert reviewer.name == "gemini:gemini-2.5-flash" and reviewer.version == review_prompt_version()

    counts = run_review(store, "hotpotqa", reviewer)
    assert counts == {"flagged": 1, "flags": 2, "clean": 2}
    by_id = {s.record.record_id: s for s in store.records("hotpotqa")}
    flagged = by_id[records[0].record_id]
    assert flagged.state == RecordState.NEEDS_REVISION
    assert [(r.stage, r.code, r.path) for r in flagged.reasons] == [
        ("review", "ungrounded_value", "$.born"),
        ("review", "ambiguous_question", "$"),
    ]
    assert flagged.reasons[0].message == "R1: the context gives 1900 for Person 0"
    review = flagged.record.provenance.review
    assert review is not None and [f.id for f in review.open_flags] == ["R1", "R2"]
    clean = by_id[records[1].record_id]
    assert clean.state == RecordState.VALIDATED and clean.record.provenance.review.flags == []

    # The prompt quotes the record as data, with its schema and answer, and the flag codes.
    request = fake_gemini.requests[0].body
    system = request["systemInstruction"]["parts"][0]["text"]
    assert "answer_not_unique" in system and "never instructions" in system
    user = request["contents"][0]["parts"][0]["text"]
    assert "<record>" in user and '"ground_truth"' in user

    # Nothing left to review: a second run makes no call; the same record reviewed again is a cache hit.
    calls = fake_gemini.total_model_calls
    assert run_review(store, "hotpotqa", reviewer) == {}
    fresh = LLMReviewer(make_gemini_client(fake_gemini, store=store, model="gemini-2.5-flash"))
    assert fresh.flags_from_result(fresh.client.complete(fresh.request_for(records[0])))[0].code == "ungrounded_value"
    assert fake_gemini.total_model_calls == calls


def test_a_dismissed_flag_is_not_raised_again_and_a_new_one_is_numbered_on(
    fake_gemini: FakeGemini, make_gemini_client, store: Store, seed
) -> None:
    (record,) = seed(store, 1)
    earlier = ReviewInfo(
        reviewer="gemini:gemini-2.5-flash",
        version="review/prompt-0.0",
        reviewed_at="2026-01-01T00:00:00Z",
        subject_hash="old",
        flags=[
            ReviewFlag(id="R1", code="ungrounded_value", path="$.born", reason="r", status="dismissed", note="1900 is"),
            ReviewFlag(id="R2", code="type_mismatch", path="$.answer", reason="r", status="fixed"),
        ],
    )
    edited = record.model_copy(update={"provenance": record.provenance.model_copy(update={"review": earlier})})
    store.apply([StateChange(record.record_id, RecordState.VALIDATED, "test", record=edited)])
    fake_gemini.answer = review_answer(
        lambda r: [
            {"code": "ungrounded_value", "path": "$.born", "reason": "again"},
            {"code": "answer_not_unique", "path": "answer", "reason": "two readings"},
        ]
    )
    reviewer = LLMReviewer(make_gemini_client(fake_gemini, store=store, model="gemini-2.5-flash"))
    assert needs_review(edited, reviewer)
    assert run_review(store, "hotpotqa", reviewer) == {"flagged": 1, "flags": 1}
    (stored,) = store.records("hotpotqa")
    flags = stored.record.provenance.review.flags
    assert [(f.id, f.code, f.path, f.status) for f in flags] == [
        ("R1", "ungrounded_value", "$.born", "dismissed"),
        ("R2", "type_mismatch", "$.answer", "fixed"),
        ("R3", "answer_not_unique", "$.answer", "open"),
    ]
    assert [r.code for r in stored.reasons] == ["answer_not_unique"]


def test_a_reviewer_failure_sends_the_record_back_to_validation_not_to_the_judge(
    fake_gemini: FakeGemini, make_gemini_client, store: Store, seed
) -> None:
    records = seed(store, 2)

    def answer(req):
        if "Person 1" in req.user:
            return Reply(400, gemini_error(400, "bad request"))
        return json.dumps({"flags": [{"code": "no_such_code", "path": "$", "reason": "x"}]})

    fake_gemini.answer = answer
    reviewer = LLMReviewer(make_gemini_client(fake_gemini, store=store, parse_retries=0))
    counts = run_review(store, "hotpotqa", reviewer)
    assert counts == {"review_error": 2}  # a 400, and a reply with an unknown flag code
    for stored in store.records("hotpotqa"):
        assert stored.state == RecordState.AUTHORED and stored.reasons[0].stage == "review"
    assert {s.record.record_id for s in store.records("hotpotqa")} == {r.record_id for r in records}
