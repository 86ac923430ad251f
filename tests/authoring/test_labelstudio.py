"""Push, pull and the curator's round trips against a real Label Studio server (see conftest.py)."""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from annotation_ui_config import TEXT_CONTROLS, VERDICTS, label_config
from authoring import labelstudio as ls
from authoring import ls_state
from authoring.labelstudio import pull, push
from authoring.server import LabelStudioServer, LabelStudioServerError, find_label_studio_bin, free_port
from core import revisions
from core.models import Reason, RecordState, SourceItem, make_record_id
from core.sources import get_source, source_names
from core.store import StateChange, Store
from tests.ci import missing

FEEDBACK_KEYS = {"feedback", "review_flags", "evidence_paths", "state", "open_flags"}  # what feedback rewrites

LABEL_STUDIO_BACKENDS = ("sqlite", "postgresql")  # the server's core runs on both (conftest.py)

SCHEMA = {
    "type": "object",
    "properties": {
        "director": {"type": "string", "description": "who directed the observatory"},
        "university": {"type": "string", "description": "where the director studied"},
        "years": {"type": "string", "description": "the years of the directorship"},
    },
    "required": ["director", "university", "years"],
}
ANSWER = {"director": "Ingrid Solvang", "university": "University of Oslo", "years": "1958 to 1977"}


def make_items(n: int, source: str = "hotpotqa") -> list[SourceItem]:
    return [
        SourceItem(
            source=source,
            source_id=f"{source}-{i:03d}",
            context=f"Item {i}. Ingrid Solvang directed Marrow Creek Observatory from 1958 to 1977. "
            "She studied at the University of Oslo.",
            question=f"Seed question {i}?" if source == "hotpotqa" else None,
            answer="University of Oslo" if source == "hotpotqa" else None,
            metadata={"type": "bridge", "level": "medium", "supporting_facts": [["Ingrid Solvang", 1]]},
        )
        for i in range(n)
    ]


def make_draft(i: int) -> dict[str, Any]:
    return {
        "question": f"Draft question {i}?",
        "json_schema": SCHEMA,
        "ground_truth": ANSWER,
        "model_version": "gemini-2.5-flash@draft-v1",
    }


def textarea(name: str, text: str) -> dict[str, Any]:
    return {"from_name": name, "to_name": "context", "type": "textarea", "value": {"text": [text]}}


def annotate(
    session: ls.LabelStudioSession,
    task_id: int,
    *,
    question: str = "Which university did the director study at?",
    schema: Any = SCHEMA,
    answer: Any = ANSWER,
    verdict: str | None = "accept",
    notes: str | None = None,
    lead_time: float = 42.0,
    cancelled: bool = False,
) -> int:
    """A curator's submission, made through the API."""
    result = [
        textarea("question", question),
        textarea("json_schema", schema if isinstance(schema, str) else json.dumps(schema, indent=2)),
        textarea("ground_truth", answer if isinstance(answer, str) else json.dumps(answer, indent=2)),
    ]
    if verdict:
        result.append(
            {"from_name": "verdict", "to_name": "context", "type": "choices", "value": {"choices": [verdict]}}
        )
    if notes:
        result.append(textarea("notes", notes))
    annotation = session.client.annotations.create(
        id=task_id, result=result, lead_time=lead_time, was_cancelled=cancelled
    )
    return int(annotation.id)


def load(store: Store, items: list[SourceItem]) -> None:
    store.upsert_source_items(items)


def task_of(store: Store, session: ls.LabelStudioSession, source_id: str, source: str = "hotpotqa") -> int:
    project = ls_state.get_project(store, session.base_url, source)
    assert project is not None
    rows = ls_state.tasks_by_id(store, session.base_url, project.project_id)
    return next(row.task_id for row in rows.values() if row.source_id == source_id)


def server_tasks(session: ls.LabelStudioSession, project_id: int) -> list[Any]:
    return [
        task
        for page in ls.list_project_tasks(session, project_id, fields="all", omit="annotations_results")
        for task in page
    ]


def state_of(store: Store, record_id: str) -> tuple[RecordState, list[Reason]]:
    (stored,) = [s for s in store.records("hotpotqa") if s.record.record_id == record_id]
    return stored.state, stored.reasons


# -- no server needed ------------------------------------------------------------------------
@pytest.mark.parametrize("source", source_names())
def test_every_config_keeps_the_control_contract(source: str) -> None:
    root = ET.fromstring(label_config(source))
    textareas = {el.get("name") for el in root.iter("TextArea")}
    # Page tasks: the page image and the editable OCR transcript (authoring/page_tasks.py)
    pages = get_source(source).page_tasks
    assert textareas == set(TEXT_CONTROLS) | ({"transcript"} if pages else set())
    images = [el.get("valueList") for el in root.iter("Image")]
    assert images == (["$pages"] if pages else [])
    (choices,) = [el for el in root.iter("Choices")]
    assert choices.get("name") == "verdict"
    assert tuple(el.get("value") for el in choices.iter("Choice")) == VERDICTS
    values = {el.get("value") for el in root.iter("Text")}
    assert {"$context", "$feedback"} <= values
    assert any(el.get("value") == "$metadata" for el in root.iter("Table"))
    assert any("House rules" in (el.get("value") or "") for el in root.iter("Header"))


def test_an_editor_answer_with_invisible_characters_goes_back_to_the_curator() -> None:
    answer = {**ANSWER, "director": "Ingrid So\u0301lvang\u200b"}  # a combining accent and a zero-width space
    parsed = ls.parse_annotation(
        [
            textarea("question", "Who directed it?"),
            textarea("json_schema", json.dumps(SCHEMA)),
            textarea("ground_truth", json.dumps(answer)),
            {"from_name": "verdict", "value": {"choices": ["accept"]}},
        ]
    )
    assert parsed.ground_truth["director"] == "Ingrid S\u00f3lvang\u200b"  # one normalisation (NFC)
    [problem] = parsed.problems
    assert (problem.code, problem.path) == ("invisible_character", "$.ground_truth.director")
    assert "\\u200b (ZERO WIDTH SPACE)" in problem.message


def test_parse_annotation_reports_every_problem() -> None:
    ok = ls.parse_annotation(
        [
            textarea("question", " Q? "),
            textarea("json_schema", json.dumps(SCHEMA)),
            textarea("ground_truth", json.dumps(ANSWER)),
            {"from_name": "verdict", "value": {"choices": ["accept"]}},
        ]
    )
    assert (ok.question, ok.json_schema, ok.ground_truth, ok.verdict, ok.problems) == (
        "Q?",
        SCHEMA,
        ANSWER,
        "accept",
        [],
    )
    bad = ls.parse_annotation([textarea("json_schema", '{"type": "object",'), textarea("ground_truth", "[1, 2]")])
    assert [r.code for r in bad.problems] == ["missing_question", "malformed_json", "not_an_object", "missing_verdict"]
    assert "line 1" in bad.problems[1].message
    wrong = ls.parse_annotation(
        [
            textarea("question", "Q?"),
            textarea("json_schema", json.dumps(SCHEMA)),
            textarea("ground_truth", json.dumps({"director": 3})),
            {"from_name": "verdict", "value": {"choices": ["accept"]}},
        ]
    )
    assert {r.code for r in wrong.problems} == {"ground_truth_invalid"}
    invalid_schema = ls.parse_annotation(
        [textarea("question", "Q?"), textarea("json_schema", '{"type": "objekt"}'), textarea("ground_truth", "{}")]
    )
    assert "invalid_json_schema" in [r.code for r in invalid_schema.problems]


def test_latest_non_cancelled_annotation_wins() -> None:
    annotations = [
        {"id": 1, "updated_at": "2026-01-01T00:00:00Z", "was_cancelled": False},
        {"id": 3, "updated_at": "2026-01-03T00:00:00Z", "was_cancelled": True},
        {"id": 2, "updated_at": "2026-01-02T00:00:00Z", "was_cancelled": False},
    ]
    assert ls.latest_annotation(annotations)["id"] == 2
    assert ls.latest_annotation([annotations[1]]) is None


def test_settings_come_from_flags_or_environment() -> None:
    assert ls.LabelStudioSettings.from_env(environ={}) is None
    env = {"LABEL_STUDIO_URL": "http://127.0.0.1:9/", "LABEL_STUDIO_API_KEY": "k"}
    assert ls.LabelStudioSettings.from_env(environ=env).url == "http://127.0.0.1:9"
    assert ls.LabelStudioSettings.from_env(url="http://x:1", environ=env).url == "http://x:1"
    with pytest.raises(ls.LabelStudioError, match="LABEL_STUDIO_API_KEY"):
        ls.LabelStudioSettings.from_env(environ={"LABEL_STUDIO_URL": "http://127.0.0.1:9"})


def test_server_refuses_a_busy_port(tmp_path: Path) -> None:
    try:
        find_label_studio_bin()
    except LabelStudioServerError as exc:
        missing(f"label-studio not installed: {exc}")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        server = LabelStudioServer(tmp_path / "ls", port=busy.getsockname()[1])
        with pytest.raises(LabelStudioServerError, match="already in use"):
            server.start()
    assert server.process is None


def test_missing_executable_says_how_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("LABEL_STUDIO_BIN", str(tmp_path / "nope"))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr("authoring.server.REPO", tmp_path)
    with pytest.raises(LabelStudioServerError, match="install_label_studio.sh"):
        find_label_studio_bin()


# -- against the server ----------------------------------------------------------------------
def test_push_makes_one_task_per_item_with_the_draft_as_prediction(store: Store, ls_session) -> None:
    items = make_items(3)
    load(store, items)
    result = ls.push_tasks(
        store, ls_session, "hotpotqa", {"hotpotqa-000": make_draft(0), "hotpotqa-001": make_draft(1)}
    )
    assert (result.pushed, result.with_draft, result.batches) == (3, 2, 1)
    project = ls_session.client.projects.get(id=result.project_id)
    assert project.label_config.strip() == label_config("hotpotqa").strip()
    tasks = {t.data["source_id"]: t for t in server_tasks(ls_session, result.project_id)}
    assert set(tasks) == {"hotpotqa-000", "hotpotqa-001", "hotpotqa-002"}
    drafted = tasks["hotpotqa-000"]
    assert drafted.data["record_id"] == make_record_id("hotpotqa", "hotpotqa-000", "Draft question 0?")
    assert drafted.data["context"] == items[0].context and drafted.data["question"] == "Draft question 0?"
    assert drafted.data["metadata"]["seed answer"] == "University of Oslo"
    assert drafted.meta == {"source_item_key": "hotpotqa:hotpotqa-000", "draft_model": "gemini-2.5-flash@draft-v1"}
    (prediction,) = drafted.predictions
    assert prediction.model_version == "gemini-2.5-flash@draft-v1"
    editors = {r["from_name"]: r["value"]["text"][0] for r in prediction.result}
    assert json.loads(editors["json_schema"]) == SCHEMA and json.loads(editors["ground_truth"]) == ANSWER
    empty = tasks["hotpotqa-002"]
    assert not empty.predictions and empty.data["draft_model"] == ""
    assert empty.data["question"] == "Seed question 2?"  # shown as data; the editors stay empty
    assert ls.awaiting_curators(store, "hotpotqa") == {"awaiting": 3, "needs_revision": 0, "needs_discussion": 0}


def test_push_is_idempotent_and_only_sends_new_items(store: Store, ls_session) -> None:
    load(store, make_items(4))
    assert ls.push_tasks(store, ls_session, "hotpotqa").pushed == 4
    again = ls.push_tasks(store, ls_session, "hotpotqa")
    assert (again.pushed, again.already_pushed, again.adopted) == (0, 4, 0)
    load(store, make_items(6))
    assert ls.push_tasks(store, ls_session, "hotpotqa").pushed == 2
    project = ls_state.get_project(store, ls_session.base_url, "hotpotqa")
    assert len(server_tasks(ls_session, project.project_id)) == 6


def test_a_crash_after_the_import_request_pushes_nothing_twice(
    store: Store, ls_session, monkeypatch: pytest.MonkeyPatch
) -> None:
    load(store, make_items(5))
    ls_session.settings = dataclasses.replace(ls_session.settings, batch_size=2)
    real = ls_state.record_pushed
    calls = {"n": 0}

    def crash_on_second_batch(*args: Any, **kwargs: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt("killed between the request and the store update")
        real(*args, **kwargs)

    monkeypatch.setattr(ls_state, "record_pushed", crash_on_second_batch)
    drafts = {f"hotpotqa-{i:03d}": make_draft(i) for i in range(5)}
    with pytest.raises(KeyboardInterrupt):
        ls.push_tasks(store, ls_session, "hotpotqa", drafts)
    monkeypatch.setattr(ls_state, "record_pushed", real)
    project = ls_state.get_project(store, ls_session.base_url, "hotpotqa")
    assert ls_state.outbox_size(store, ls_session.base_url, project.project_id) == 2
    result = ls.push_tasks(store, ls_session, "hotpotqa", drafts)
    assert (result.adopted, result.pushed) == (2, 1)
    rows = ls_state.tasks_by_id(store, ls_session.base_url, project.project_id).values()
    assert {row.draft_model for row in rows} == {"gemini-2.5-flash@draft-v1"}
    keys = [t.meta["source_item_key"] for t in server_tasks(ls_session, project.project_id)]
    assert sorted(keys) == [f"hotpotqa:hotpotqa-{i:03d}" for i in range(5)]
    assert ls_state.outbox_size(store, ls_session.base_url, project.project_id) == 0


def test_pull_turns_an_accepted_annotation_into_an_authored_record(store: Store, ls_session) -> None:
    load(store, make_items(2))
    ls.push_tasks(store, ls_session, "hotpotqa", {"hotpotqa-000": make_draft(0)})
    annotate(ls_session, task_of(store, ls_session, "hotpotqa-000"), question="Where did she study?")
    pulled = ls.pull_annotations(store, ls_session, "hotpotqa")
    assert pulled.counts["authored"] == 1
    (stored,) = list(store.records("hotpotqa"))
    record = stored.record
    assert stored.state == RecordState.AUTHORED
    assert record.record_id == make_record_id("hotpotqa", "hotpotqa-000", "Where did she study?")
    assert record.input.json_schema == SCHEMA and record.output.ground_truth == ANSWER
    assert record.input.context == make_items(1)[0].context  # from the store, not the task
    provenance = record.provenance
    assert provenance.annotator == ls_session.user_emails()[1] and provenance.time_spent_s == 42.0
    assert provenance.draft_model == "gemini-2.5-flash@draft-v1"
    assert provenance.authored_via.startswith("label_studio:")
    events = len(store.events(source="hotpotqa"))
    again = ls.pull_annotations(store, ls_session, "hotpotqa")
    assert again.counts["authored"] == 0 and len(store.events(source="hotpotqa")) == events
    assert ls.awaiting_curators(store, "hotpotqa")["awaiting"] == 1
    assert "1 task(s) await curators" in ls.awaiting_line(store, ls_session, "hotpotqa")
    # An item that has a record is not pushed again.
    assert ls.push_tasks(store, ls_session, "hotpotqa").pushed == 0


def test_malformed_json_goes_back_to_the_curator_until_a_new_annotation(store: Store, ls_session) -> None:
    load(store, make_items(1))
    ls.push_tasks(store, ls_session, "hotpotqa")
    task_id = task_of(store, ls_session, "hotpotqa-000")
    annotate(ls_session, task_id, schema='{"type": "object", "properties": {', answer="{}")
    pulled = ls.pull_annotations(store, ls_session, "hotpotqa")
    assert pulled.counts["needs_revision"] == 1 and pulled.feedback_written == 1
    rid = make_record_id("hotpotqa", "hotpotqa-000", "Which university did the director study at?")
    state, reasons = state_of(store, rid)
    assert state == RecordState.NEEDS_REVISION
    assert [r.code for r in reasons] == ["malformed_json"]
    feedback = ls_session.client.tasks.get(id=task_id).data["feedback"]
    assert "json_schema is not valid JSON" in feedback and "Sent back by the toolkit" in feedback
    assert ls.awaiting_curators(store, "hotpotqa")["needs_revision"] == 1
    # Nothing new: it stays where it is.
    ls.pull_annotations(store, ls_session, "hotpotqa")
    assert state_of(store, rid)[0] == RecordState.NEEDS_REVISION
    # The curator fixes it.
    annotate(ls_session, task_id)
    assert ls.pull_annotations(store, ls_session, "hotpotqa").counts["authored"] == 1
    state, _ = state_of(store, rid)
    assert state == RecordState.AUTHORED
    kinds = [(e["kind"], e["to_state"]) for e in store.events(record_id=rid)]
    assert ("authored", "needs_revision") in kinds and ("authored_edit", "authored") in kinds
    # Both annotations are revisions of the record: the store's revisions are Label Studio's annotations.
    annotations = [a.id for a in ls_session.client.annotations.list(id=task_id)]
    assert sorted(r.origin_detail["annotation_id"] for r in revisions.history(store.con, rid)) == sorted(annotations)


def test_a_reject_verdict_rejects_the_record_with_the_note(store: Store, ls_session) -> None:
    load(store, make_items(1))
    ls.push_tasks(store, ls_session, "hotpotqa")
    annotate(ls_session, task_of(store, ls_session, "hotpotqa-000"), verdict="reject", notes="Context too thin.")
    assert ls.pull_annotations(store, ls_session, "hotpotqa").counts["rejected"] == 1
    (stored,) = list(store.records("hotpotqa"))
    assert stored.state == RecordState.REJECTED
    assert [(r.stage, r.code, r.message) for r in stored.reasons] == [
        ("curator", "curator_reject", "Context too thin.")
    ]
    assert [r.status for r in revisions.history(store.con, stored.record.record_id)] == ["applied"]
    assert ls.awaiting_curators(store, "hotpotqa") == {"awaiting": 0, "needs_revision": 0, "needs_discussion": 0}


def test_needs_discussion_and_cancelled_annotations(store: Store, ls_session) -> None:
    load(store, make_items(2))
    ls.push_tasks(store, ls_session, "hotpotqa")
    annotate(ls_session, task_of(store, ls_session, "hotpotqa-000"), verdict="needs_discussion", notes="Ambiguous.")
    annotate(ls_session, task_of(store, ls_session, "hotpotqa-001"), cancelled=True)
    pulled = ls.pull_annotations(store, ls_session, "hotpotqa")
    assert pulled.counts["needs_discussion"] == 1 and pulled.counts["authored"] == 0
    (stored,) = list(store.records("hotpotqa"))
    assert stored.state == RecordState.NEEDS_REVISION and stored.reasons[0].code == "needs_discussion"
    assert ls.awaiting_curators(store, "hotpotqa") == {"awaiting": 1, "needs_revision": 0, "needs_discussion": 1}


def test_a_later_annotation_replaces_the_earlier_one(store: Store, ls_session) -> None:
    load(store, make_items(1))
    ls.push_tasks(store, ls_session, "hotpotqa")
    task_id = task_of(store, ls_session, "hotpotqa-000")
    annotate(ls_session, task_id, question="First question?")
    ls.pull_annotations(store, ls_session, "hotpotqa")
    first = make_record_id("hotpotqa", "hotpotqa-000", "First question?")
    # Same question, another answer: the same record is edited.
    annotate(ls_session, task_id, question="First question?", answer={**ANSWER, "years": "1958-1977"})
    ls.pull_annotations(store, ls_session, "hotpotqa")
    assert state_of(store, first)[0] == RecordState.AUTHORED
    (stored,) = list(store.records("hotpotqa"))
    assert stored.record.output.ground_truth["years"] == "1958-1977"
    # Another question: a new record replaces the first, which is kept as superseded.
    annotate(ls_session, task_id, question="Second question?")
    assert ls.pull_annotations(store, ls_session, "hotpotqa").counts["superseded"] == 1
    second = make_record_id("hotpotqa", "hotpotqa-000", "Second question?")
    assert state_of(store, second)[0] == RecordState.AUTHORED
    state, reasons = state_of(store, first)
    assert state == RecordState.REJECTED and reasons[0].code == "superseded"
    kinds = [e["kind"] for e in store.events(record_id=first)]
    assert kinds.count("authored") == 1 and kinds.count("authored_edit") == 1


def test_validation_failures_are_bounced_with_feedback(store: Store, ls_session) -> None:
    load(store, make_items(1))
    ls.push_tasks(store, ls_session, "hotpotqa")
    task_id = task_of(store, ls_session, "hotpotqa-000")
    annotate(ls_session, task_id)
    ls.pull_annotations(store, ls_session, "hotpotqa")
    (stored,) = list(store.records("hotpotqa"))
    reason = Reason(
        stage="validation", code="value_not_in_context", message="years: '1958 to 1977' is not in the context"
    )
    store.apply([StateChange(stored.record.record_id, RecordState.REJECTED, "validation", reasons=[reason])])
    assert ls.bounce_validation_failures(store, ls_session, "hotpotqa") == 1
    state, reasons = state_of(store, stored.record.record_id)
    assert state == RecordState.NEEDS_REVISION and reasons[0].code == "value_not_in_context"
    assert "is not in the context" in ls_session.client.tasks.get(id=task_id).data["feedback"]
    assert ls.bounce_validation_failures(store, ls_session, "hotpotqa") == 0


def test_feedback_to_many_tasks_lands_in_each_and_a_deleted_task_keeps_its_own_queued(store: Store, ls_session) -> None:
    """The writes of one flush go to Label Studio several at a time: every task gets its own text, each write is
    counted once, and the one task deleted meanwhile (404) neither stops the others nor loses its feedback."""
    load(store, make_items(6))
    ls.push_tasks(store, ls_session, "hotpotqa")
    task_ids = {f"hotpotqa-{i:03d}": task_of(store, ls_session, f"hotpotqa-{i:03d}") for i in range(6)}
    for task_id in task_ids.values():
        annotate(ls_session, task_id)
    ls.pull_annotations(store, ls_session, "hotpotqa")
    changes = []
    for stored in store.records("hotpotqa"):
        why = f"years: not in the context of {stored.record.metadata.source_id}"
        reason = Reason(stage="validation", code="value_not_in_context", message=why)
        changes.append(StateChange(stored.record.record_id, RecordState.REJECTED, "validation", reasons=[reason]))
    store.apply(changes)
    ls_session.client.tasks.delete(id=task_ids["hotpotqa-003"])
    ls_session.forget_task_data()
    before = ls_session.requests.copy()
    assert ls.bounce_validation_failures(store, ls_session, "hotpotqa") == 6
    made = ls_session.requests - before
    assert made["reading task"] == 6 and made["writing feedback into task"] == 5, made
    for source_id, task_id in task_ids.items():
        if source_id != "hotpotqa-003":
            assert f"not in the context of {source_id}" in ls_session.client.tasks.get(id=task_id).data["feedback"]
    project = ls_state.get_project(store, ls_session.base_url, "hotpotqa")
    pending = ls_state.pending_feedback(store, ls_session.base_url, project.project_id)
    assert [(source_id, task_id) for source_id, task_id, _ in pending] == [("hotpotqa-003", task_ids["hotpotqa-003"])]
    assert "hotpotqa-003" in pending[0][2]


def test_a_webhook_cycle_reads_each_task_once_and_keeps_what_another_process_wrote(
    store: Store, ls_session, ls_settings
) -> None:
    """Writing feedback replaces a task's whole data: a cycle reuses the data its pull read (one read per task,
    not one per write), and the next cycle reads again, so data another process wrote in between is kept."""
    load(store, make_items(1))
    ls.push_tasks(store, ls_session, "hotpotqa")
    task_id = task_of(store, ls_session, "hotpotqa-000")
    pushed = ls_session.client.tasks.get(id=task_id).data
    annotate(ls_session, task_id)
    before = ls_session.requests.copy()
    ls.sync(store, ls_session, "hotpotqa", task_ids=[task_id])
    (stored,) = list(store.records("hotpotqa"))
    reason = Reason(stage="validation", code="value_not_in_context", message="years: '1958' is not in the context")
    store.apply([StateChange(stored.record.record_id, RecordState.REJECTED, "validation", reasons=[reason])])
    assert ls.bounce_validation_failures(store, ls_session, "hotpotqa") == 1
    made = ls_session.requests - before
    # One listing reads the webhook's tasks with their data; feedback writes reuse it.
    assert made["reading tasks"] == 1 and made["reading task"] == 0 and made["writing feedback into task"] >= 1, made
    data = ls_session.client.tasks.get(id=task_id).data
    assert "is not in the context" in data["feedback"]
    assert {k: v for k, v in data.items() if k in pushed and k not in FEEDBACK_KEYS} == {
        k: v for k, v in pushed.items() if k not in FEEDBACK_KEYS
    }
    # Another process writes the task between two cycles; the next cycle's write keeps its part.
    other = ls.LabelStudioSession(ls_settings)
    other.client.tasks.update(id=task_id, data=data | {"note_from_elsewhere": "kept"})
    annotate(ls_session, task_id)
    ls.sync(store, ls_session, "hotpotqa", task_ids=[task_id])
    assert ls_session.client.tasks.get(id=task_id).data.get("note_from_elsewhere") == "kept"


def test_sync_pushes_and_pulls_in_one_run(store: Store, ls_session, capsys, monkeypatch) -> None:
    monkeypatch.setenv("SOB_PROGRESS", "1")  # stderr is captured, not a terminal: force the bars on
    load(store, make_items(2, source="ami"))
    first = ls.sync(store, ls_session, "ami")
    err = capsys.readouterr().err
    assert "label studio push (ami)" in err and "label studio pull (ami)" in err
    assert first.push.pushed == 2 and first.pull.tasks_seen == 0 and first.url.endswith("/data")
    annotate(ls_session, task_of(store, ls_session, "ami-001", source="ami"), question="Who directed it?")
    load(store, make_items(3, source="ami"))
    second = ls.sync(store, ls_session, "ami")
    assert second.push.pushed == 1 and second.pull.counts["authored"] == 1
    (stored,) = list(store.records("ami"))
    assert stored.record.record_id == make_record_id("ami", "ami-001", "Who directed it?")


def test_server_killed_mid_pull_is_a_clear_error_and_the_next_run_loses_nothing(
    store: Store, ls_session, label_studio_server: LabelStudioServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    load(store, make_items(7))
    ls.push_tasks(store, ls_session, "hotpotqa")
    annotate(ls_session, task_of(store, ls_session, "hotpotqa-000"), question="Question 0?")
    ls.pull_annotations(store, ls_session, "hotpotqa")  # the first pull exports; later ones page
    assert ls_state.get_project(store, ls_session.base_url, "hotpotqa").pull_checkpoint
    for i in range(1, 7):
        annotate(ls_session, task_of(store, ls_session, f"hotpotqa-{i:03d}"), question=f"Question {i}?")
    ls_session.settings = dataclasses.replace(ls_session.settings, page_size=2)
    real_take = pull._take_page
    pages = {"n": 0}

    def take_then_kill(*args: Any, **kwargs: Any) -> None:
        real_take(*args, **kwargs)
        pages["n"] += 1
        if pages["n"] == 1:
            label_studio_server.kill()

    monkeypatch.setattr(pull, "_take_page", take_then_kill)
    try:
        with pytest.raises(ls.LabelStudioUnavailable, match="did not answer while reading annotations") as err:
            ls.pull_annotations(store, ls_session, "hotpotqa")
        assert "run the command again" in str(err.value)
        kept = store.count_in_state("hotpotqa", RecordState.AUTHORED) - 1
        assert 1 <= kept < 6  # what was read before the kill is stored
    finally:
        monkeypatch.setattr(pull, "_take_page", real_take)
        label_studio_server.start()  # same data dir and port: the curators' work is still there
    resumed = ls.pull_annotations(store, ls_session, "hotpotqa")
    assert resumed.counts["authored"] == 6 - kept
    questions = sorted(s.record.input.question for s in store.records("hotpotqa"))
    assert questions == [f"Question {i}?" for i in range(7)]
    assert ls.pull_annotations(store, ls_session, "hotpotqa").counts["authored"] == 0
    assert ls.push_tasks(store, ls_session, "hotpotqa").pushed == 0


def test_a_restarted_server_keeps_its_user_and_port(label_studio_server: LabelStudioServer, ls_settings) -> None:
    creds, port, url = label_studio_server.credentials, label_studio_server.port, label_studio_server.url
    assert label_studio_server.running and port != free_port()
    assert json.loads((label_studio_server.data_dir / "credentials.json").read_text())["token"] == creds.token
    assert (label_studio_server.data_dir / "credentials.json").stat().st_mode & 0o777 == 0o600
    before = ls.LabelStudioSession(ls_settings)
    project = before.client.projects.create(title="made before the restart")

    label_studio_server.stop()
    assert not label_studio_server.running and not label_studio_server._healthy()
    label_studio_server.credentials = None  # the next run knows only what is on disk
    label_studio_server.start()

    assert label_studio_server.running and (label_studio_server.port, label_studio_server.url) == (port, url)
    assert label_studio_server.credentials == creds
    after = ls.LabelStudioSession(ls_settings)  # the old token still opens the same user's projects
    assert after.client.projects.get(id=project.id).title == "made before the restart"


def test_a_run_without_label_studio_gets_no_session(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    monkeypatch.delenv("LABEL_STUDIO_API_KEY", raising=False)
    with ls.label_studio_for_run(tmp_path) as session:
        assert session is None
    # A server given by URL that is not there: one line naming the URL before the run relies on it.
    with (
        pytest.raises(ls.LabelStudioUnavailable, match=r"Label Studio at http://127.0.0.1:9 did not answer within"),
        ls.label_studio_for_run(tmp_path, url="http://127.0.0.1:9", api_key="k"),
    ):
        pytest.fail("the run went on without its server")
    down = ls.LabelStudioSession(ls.LabelStudioSettings(url="http://127.0.0.1:9", api_key="k"))
    with pytest.raises(ls.LabelStudioUnavailable, match="did not answer while reading the project"):
        down.call("reading the project", down.client.projects.get, id=1)


def test_a_draft_model_from_the_drafting_stage_becomes_the_prediction() -> None:
    from authoring.drafts import Draft

    item = make_items(1, source="ami")[0]
    drafted = Draft(
        source="ami",
        source_id=item.source_id,
        status="drafted",
        question="Who?",
        json_schema=SCHEMA,
        ground_truth=ANSWER,
        model="gemini-2.5-flash",
        prompt_version="draft_audio@3",
    )
    task = ls.build_task(item, push._as_draft(drafted))
    (prediction,) = task["predictions"]
    assert prediction["model_version"] == task["data"]["draft_model"] == "gemini-2.5-flash@draft_audio@3"
    assert task["data"]["record_id"] == make_record_id("ami", item.source_id, "Who?")
    failed = Draft(source="ami", source_id=item.source_id, status="no_draft", model="m", prompt_version="p")
    assert "predictions" not in ls.build_task(item, push._as_draft(failed))


def test_the_password_and_token_are_in_no_command_line_and_the_data_is_private(
    label_studio_server: LabelStudioServer,
) -> None:
    """`ps` shows every user each process's command line: the secrets travel in the environment only, and
    the server's database (which holds the token) is readable by this user alone."""
    creds = label_studio_server.credentials
    assert creds is not None and label_studio_server.process is not None
    group = os.getpgid(label_studio_server.process.pid)
    command_lines = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and os.getpgid(int(entry.name)) == group:
                command_lines.append((entry / "cmdline").read_bytes().decode(errors="replace"))
        except (ProcessLookupError, FileNotFoundError, PermissionError):
            continue
    assert command_lines, "no process of the server was found"
    secrets = [creds.password, creds.token]
    if label_studio_server.database is not None:  # PostgreSQL's password travels in the environment too
        secrets.append(label_studio_server.database.password)
    assert not [line for line in command_lines if any(secret in line for secret in secrets)]
    assert label_studio_server.data_dir.stat().st_mode & 0o777 == 0o700
    database = label_studio_server.data_dir / "label_studio.sqlite3"
    if label_studio_server.database is not None:  # its data is in PostgreSQL: no SQLite file at all
        assert not database.exists()
        assert label_studio_server.database.password not in label_studio_server.log_path.read_text()
    else:
        assert database.is_file() and database.stat().st_mode & 0o077 == 0
