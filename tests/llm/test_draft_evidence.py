"""Drafts propose evidence per JSON path: parsed, checked like a curator's, stored with the draft and
prefilled in Label Studio; broken evidence is sent back to the model once with the reason."""

from __future__ import annotations

from authoring.drafts import load_drafts, run_drafting
from authoring.labelstudio import build_task
from core.models import SourceItem
from core.store import Store
from tests.llm.fakes import FakeGemini, draft_reply

CONTEXT = "Ingrid Solvang directed Marrow Creek Observatory. She studied at the University of Oslo in 1,949 days."
SCHEMA = {
    "type": "object",
    "properties": {
        "observatory": {"type": "string", "description": "the observatory"},
        "director": {"type": "string", "description": "its director"},
        "answer": {"type": "string", "description": "the university"},
        "same_person": {"type": "boolean", "description": "is the director the student"},
    },
    "required": ["observatory", "director", "answer", "same_person"],
    "additionalProperties": False,
}
TRUTH = {
    "observatory": "Marrow Creek Observatory",
    "director": "Ingrid Solvang",
    "answer": "University of Oslo",
    "same_person": True,
}
EVIDENCE = {
    "$.observatory": "Marrow Creek Observatory",
    "director": "Ingrid Solvang",  # a path without "$." is what people type
    "$.answer": {"kind": "span", "quote": "University of Oslo"},
    "$.same_person": {"derived_from": ["$.director"], "note": "'She' refers back to the director"},
}


def item() -> SourceItem:
    return SourceItem(
        source="hotpotqa",
        source_id="h1",
        context=CONTEXT,
        question="Which university did the director of Marrow Creek Observatory study at?",
        answer="University of Oslo",
        metadata={"type": "bridge", "level": "hard"},
    )


def test_the_draft_asks_for_evidence_and_keeps_it(fake_gemini: FakeGemini, make_gemini_client, store: Store) -> None:
    store.upsert_source_items([item()])
    fake_gemini.answer = lambda req: draft_reply("q?", SCHEMA, TRUTH, EVIDENCE)
    assert run_drafting(store, "hotpotqa", make_gemini_client(fake_gemini, store=store)) == {"drafted": 1}
    system = fake_gemini.requests[0].body["systemInstruction"]["parts"][0]["text"]
    assert '"evidence": "<the evidence as JSON text>"' in system and '"kind": "derived"' in system
    schema = fake_gemini.requests[0].body["generationConfig"]["responseJsonSchema"]
    assert "evidence" in schema["properties"]

    draft = load_drafts(store.con, "hotpotqa")["h1"]
    assert set(draft.evidence) == {"$.observatory", "$.director", "$.answer", "$.same_person"}
    assert draft.evidence["$.director"].kind == "span" and draft.evidence["$.director"].quote == "Ingrid Solvang"
    assert draft.evidence["$.same_person"].kind == "derived"
    assert draft.record(item()).output.evidence == draft.evidence

    # Label Studio: a label per path, the spans marked on the context, the derivation in the evidence editor.
    task = build_task(item(), draft.model_dump(mode="json"))
    # Labels are the paths without "$." (Label Studio would read "$name" as a task-data variable).
    assert [o["value"] for o in task["data"]["evidence_paths"]] == ["observatory", "director", "answer", "same_person"]
    regions = {r["value"]["labels"][0]: r["value"] for r in task["predictions"][0]["result"] if r["type"] == "labels"}
    assert regions["director"] == {"start": 0, "end": 14, "text": "Ingrid Solvang", "labels": ["director"]}
    assert CONTEXT[regions["answer"]["start"] : regions["answer"]["end"]] == "University of Oslo"
    (editor,) = [r for r in task["predictions"][0]["result"] if r["from_name"] == "evidence"]
    assert '"derived"' in editor["value"]["text"][0] and "$.director" in editor["value"]["text"][0]


def test_evidence_that_does_not_hold_is_sent_back_to_the_model_once(
    fake_gemini: FakeGemini, make_gemini_client, store: Store
) -> None:
    store.upsert_source_items([item()])
    wrong = dict(EVIDENCE, **{"$.answer": "University of Bergen", "$.nowhere": "absent"})
    answers = iter([draft_reply("q?", SCHEMA, TRUTH, wrong), draft_reply("q?", SCHEMA, TRUTH, EVIDENCE)])
    fake_gemini.answer = lambda req: next(answers)
    counts = run_drafting(store, "hotpotqa", make_gemini_client(fake_gemini, store=store))
    assert counts == {"drafted_after_retry": 1}
    retry = fake_gemini.requests[1].body["contents"][0]["parts"][0]["text"]
    assert "$.answer" in retry and "evidence_not_in_context" in retry
    assert "$.nowhere" in retry and "evidence_unknown_path" in retry


def test_unreadable_evidence_is_a_problem_with_its_path_never_a_crash(
    fake_gemini: FakeGemini, make_gemini_client, store: Store
) -> None:
    store.upsert_source_items([item()])
    bad = [
        draft_reply("q?", SCHEMA, TRUTH, "{not json"),
        draft_reply("q?", SCHEMA, TRUTH, {"$.answer": {"kind": "derived"}}),
    ]
    answers = iter(bad)
    fake_gemini.answer = lambda req: next(answers)
    assert run_drafting(store, "hotpotqa", make_gemini_client(fake_gemini, store=store)) == {"no_draft_invalid": 1}
    draft = load_drafts(store.con, "hotpotqa")["h1"]
    assert [(f.code, f.path) for f in draft.failures] == [("evidence_unreadable", "$.answer")]
    assert "sources" in draft.failures[0].message
    retry = fake_gemini.requests[1].body["contents"][0]["parts"][0]["text"]
    assert "evidence_unreadable" in retry and "not JSON" in retry
