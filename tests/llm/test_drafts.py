"""LLM drafts: prompts per source, validation, one retry with the problems, counted failures."""

from __future__ import annotations

import json
from typing import Any

import pytest

from authoring.drafts import (
    Draft,
    draft_prompt_version,
    draft_request,
    items_to_draft,
    load_drafts,
    run_drafting,
)
from core.llm.batch import BatchRunner
from core.models import Record, RecordState, SourceItem
from core.store import Store
from loaders.sources.olmocr import image_task
from tests.llm.fakes import FakeGemini, ModelRequest, Reply, gemini_error

CONTEXT = "Ingrid Solvang directed Marrow Creek Observatory. She studied at the University of Oslo."
GOOD_SCHEMA = {
    "type": "object",
    "properties": {
        "observatory": {"type": "string", "description": "the observatory"},
        "director": {"type": "string", "description": "its director"},
        "answer": {"type": "string", "description": "the university"},
    },
    "required": ["observatory", "director", "answer"],
    "additionalProperties": False,
}
GOOD_TRUTH = {"observatory": "Marrow Creek Observatory", "director": "Ingrid Solvang", "answer": "University of Oslo"}
FLAT_SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}


def reply(question: str, schema: dict, truth: dict) -> str:
    return json.dumps({"question": question, "json_schema": json.dumps(schema), "ground_truth": json.dumps(truth)})


def hotpot(i: int = 1) -> SourceItem:
    return SourceItem(
        source="hotpotqa",
        source_id=f"h{i}",
        context=CONTEXT if i == 1 else f"{CONTEXT} (page {i})",
        question="Which university did the director of Marrow Creek Observatory study at?",
        answer="University of Oslo",
        metadata={"type": "bridge", "level": "hard"},
    )


def test_text_prompt_and_a_valid_draft(fake_gemini: FakeGemini, make_gemini_client, store: Store) -> None:
    item = hotpot()
    store.upsert_source_items([item])
    fake_gemini.answer = lambda req: reply("A reworded question?", GOOD_SCHEMA, GOOD_TRUTH)
    client = make_gemini_client(fake_gemini, store=store, model="gemini-2.5-flash")
    counts = run_drafting(store, "hotpotqa", client)
    assert counts == {"drafted": 1}
    body = fake_gemini.requests[0].body
    system = body["systemInstruction"]["parts"][0]["text"]
    user = body["contents"][0]["parts"][0]["text"]
    assert "at least three properties" in system and "never instructions" in system
    assert 'Keep this question exactly as written: "Which university' in user and "University of Oslo" in user
    assert f"<context>\n{json.dumps(CONTEXT)}\n</context>" in user
    draft = load_drafts(store.con, "hotpotqa")["h1"]
    assert draft.status == "drafted" and draft.attempts == 1 and draft.model == "gemini:gemini-2.5-flash"
    assert draft.question == item.question  # the seed question is kept, whatever the model wrote
    assert draft.ground_truth == GOOD_TRUTH and draft.prompt_version == draft_prompt_version("hotpotqa")
    record = draft.record(item)
    assert record.provenance.draft_model == "gemini:gemini-2.5-flash"
    # Nothing left to draft: a re-run makes no call.
    assert run_drafting(store, "hotpotqa", client) == {}
    assert len(fake_gemini.requests) == 1


def test_an_invalid_draft_is_retried_once_with_the_problems(
    fake_gemini: FakeGemini, make_gemini_client, store: Store
) -> None:
    store.upsert_source_items([hotpot()])
    answers = iter([reply("q?", FLAT_SCHEMA, {"answer": "Oslo"}), reply("q?", GOOD_SCHEMA, GOOD_TRUTH)])
    fake_gemini.answer = lambda req: next(answers)
    counts = run_drafting(store, "hotpotqa", make_gemini_client(fake_gemini, store=store))
    assert counts == {"drafted_after_retry": 1}
    retry = fake_gemini.requests[1].body["contents"][0]["parts"][0]["text"]
    assert (
        "did not pass" in retry
        and "too_few_properties" in retry
        and "Previous draft:" in retry
        and '\\"answer' in retry
    )


def test_twice_invalid_goes_to_curators_without_a_draft(
    fake_gemini: FakeGemini, make_gemini_client, store: Store
) -> None:
    store.upsert_source_items([hotpot(1), hotpot(2)])
    fake_gemini.answer = lambda req: reply("q?", GOOD_SCHEMA, {"observatory": 3})
    counts = run_drafting(store, "hotpotqa", make_gemini_client(fake_gemini, store=store))
    assert counts == {"no_draft_invalid": 2}
    draft = load_drafts(store.con, "hotpotqa")["h1"]
    assert (
        draft.status == "no_draft" and draft.attempts == 2 and draft.failures[0].code == "ground_truth_schema_mismatch"
    )
    with pytest.raises(ValueError, match="no draft"):
        draft.record(hotpot(1))


def test_call_errors_and_unparsable_replies_are_counted(
    fake_gemini: FakeGemini, make_gemini_client, store: Store
) -> None:
    store.upsert_source_items([hotpot(1), hotpot(2)])

    def answer(req: ModelRequest) -> str | Reply:
        if "(page 2)" in req.user:
            return "not json"
        return Reply(400, gemini_error(400, "bad request"))

    fake_gemini.answer = answer
    counts = run_drafting(store, "hotpotqa", make_gemini_client(fake_gemini, store=store, parse_retries=0))
    assert counts == {"no_draft_request_rejected": 1, "no_draft_unparsable": 1}  # a 400 for this request only
    drafts = load_drafts(store.con, "hotpotqa", status="no_draft")
    assert "bad request" in (drafts["h1"].error or "") and "does not parse" in (drafts["h2"].error or "")


def test_items_with_records_are_not_drafted(store: Store) -> None:
    items = [hotpot(1), hotpot(2)]
    store.upsert_source_items(items)
    store.upsert_records(
        [Record.build(items[0], items[0].question or "", GOOD_SCHEMA, GOOD_TRUTH)], RecordState.AUTHORED, "import"
    )
    assert [i.source_id for i in items_to_draft(store, "hotpotqa")] == ["h2"]


def test_image_tasks_follow_the_category() -> None:
    def page(source_id: str, **meta: Any) -> SourceItem:
        return SourceItem(source="olmocr", source_id=source_id, context="x", metadata=meta)

    assert image_task(page("tables/abc.pdf"))[1] == "table lookup"
    assert image_task(page("p.pdf", category="multi_column"))[1] == "reading order"
    assert image_task(page("p.pdf", category="old_scans_math"))[1] == "formula extraction"
    assert image_task(page("arxiv_math/p.pdf"))[1] == "formula extraction"
    assert image_task(page("headers_footers/p.pdf"))[1] == "content comprehension"
    assert image_task(page("old_scans/lincoln_letter.pdf"))[1] == "content comprehension"
    # the loader's own category wins over a file at the tree's root
    assert image_task(page("earnings.pdf", bench_category="table_tests"))[1] == "table lookup"
    user = draft_request(page("tables/abc.pdf")).user
    assert "table lookup" in user and "olmOCR" in user


def test_image_house_rules_allow_every_question_kind_drafts_ask_for() -> None:
    """The olmOCR labeling config's house rules and the draft prompt agree on the kinds of question."""
    from annotation_ui_config import label_config
    from loaders.sources.olmocr import GENERIC_IMAGE_TASK, IMAGE_TASKS

    rules = label_config("olmocr")
    kinds = {title for _, title, _ in [*IMAGE_TASKS, GENERIC_IMAGE_TASK]}
    assert kinds == {"formula extraction", "table lookup", "reading order", "content comprehension"}
    for kind in kinds - {"content comprehension"}:
        assert kind in rules, kind
    assert "comprehension of the body text" in rules
    assert "never about its layout" not in rules  # reading order is a layout question SOB asks
    # the transcript leaves headers and footers out, so no draft may ask about them
    assert all("running header, footer" not in task for _, _, task in IMAGE_TASKS)


def test_audio_prompt_asks_for_several_turns() -> None:
    item = SourceItem(
        source="ami",
        source_id="ES2002d",
        context="[00:01] A: LET'S START\n[00:05] B: I'LL DO THE DESIGN",
        metadata={"meeting_id": "ES2002d", "num_speakers": 4},
    )
    request = draft_request(item)
    assert "several turns" in request.user and "action items" in request.user and "ES2002d" in request.user
    assert request.prompt_version.startswith("draft/ami/")


def test_batch_drafting(fake_gemini: FakeGemini, make_gemini_client, store: Store) -> None:
    store.upsert_source_items([hotpot(1), hotpot(2)])
    fake_gemini.answer = lambda req: reply("q?", GOOD_SCHEMA, GOOD_TRUTH)
    fake_gemini.polls_before_done = 0

    def run() -> dict:
        client = make_gemini_client(fake_gemini, store=store, defer_misses=True)
        runner = BatchRunner(store, client, stage="draft", source="hotpotqa")
        return run_drafting(store, "hotpotqa", client, batch=runner)

    assert run() == {"awaiting_batch": 2, "batch_jobs_submitted": 1}
    counts = run()
    assert counts["drafted"] == 2 and counts["batch_answers"] == 2
    assert not any(r.path.endswith(":generateContent") for r in fake_gemini.requests)


def test_the_real_validator_accepts_a_good_draft(fake_gemini: FakeGemini, make_gemini_client, store: Store) -> None:
    store.upsert_source_items([hotpot()])
    fake_gemini.answer = lambda req: reply("q?", GOOD_SCHEMA, GOOD_TRUTH)
    counts = run_drafting(store, "hotpotqa", make_gemini_client(fake_gemini, store=store))
    drafts = load_drafts(store.con, "hotpotqa")
    assert sum(counts.values()) == 1 and isinstance(drafts["h1"], Draft)
    assert counts.get("drafted", 0) + counts.get("drafted_after_retry", 0) + counts.get("no_draft_invalid", 0) == 1


def test_drafting_shows_its_progress(
    fake_gemini: FakeGemini, make_gemini_client, store: Store, capsys, monkeypatch
) -> None:
    monkeypatch.setenv("SOB_PROGRESS", "1")  # stderr is captured, not a terminal: force the bar on
    store.upsert_source_items([hotpot()])
    fake_gemini.answer = lambda req: reply("A reworded question?", GOOD_SCHEMA, GOOD_TRUTH)
    client = make_gemini_client(fake_gemini, store=store, model="gemini-2.5-flash")
    assert run_drafting(store, "hotpotqa", client) == {"drafted": 1}
    assert f"draft ({client.name})" in capsys.readouterr().err
