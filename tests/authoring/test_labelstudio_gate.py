"""The gate's flags through a real Label Studio server (conftest.py starts it): a record the heuristic judge holds
in needs_review shows its flags above the editors, exactly as the reviewer's; the curator dismisses each with a
note, and the record goes through validation and the judge again, where the dismissed flags are not raised
again and it is accepted."""

from __future__ import annotations

import json

from authoring import labelstudio as ls
from authoring import ls_state
from core.models import RecordState, SourceItem
from core.store import Store
from judge.heuristic import HeuristicJudge
from judge.stage import run_judging
from validation.stage import run_validation

CONTEXT = (
    "Ingrid Solvang directed Marrow Creek Observatory from 1958 to 1977. She studied at the University of Oslo "
    "and later taught at the University of Bergen."
)
QUESTION = "Where did the director of Marrow Creek Observatory from 1958 to 1977 study?"
SCHEMA = {
    "type": "object",
    "properties": {
        "director": {"type": "string", "description": "who directed the observatory"},
        "first_year": {"type": "integer", "description": "the first year of the directorship"},
        "university": {"type": "string", "description": "where the director studied"},
    },
    "required": ["director", "first_year", "university"],
}
# The seed answer says Bergen (where she taught); the curator answered Oslo, which is right: the gate cannot
# settle which is, so it flags the record for a person.
ANSWER = {"director": "Ingrid Solvang", "first_year": 1958, "university": "University of Oslo"}


def text(name: str, value: str) -> dict:
    return {"from_name": name, "to_name": "context", "type": "textarea", "value": {"text": [value]}}


def result(resolutions: str = "") -> list[dict]:
    out = [
        text("question", QUESTION),
        text("json_schema", json.dumps(SCHEMA)),
        text("ground_truth", json.dumps(ANSWER)),
        {"from_name": "verdict", "to_name": "context", "type": "choices", "value": {"choices": ["accept"]}},
    ]
    if resolutions:
        out.append(text("flag_resolutions", resolutions))
    return out


def only(store: Store):
    (stored,) = list(store.records("hotpotqa"))
    return stored


def test_gate_flags_are_shown_above_the_editors_and_a_dismissal_moves_the_record_on(
    store: Store, ls_session: ls.LabelStudioSession
) -> None:
    item = SourceItem(
        source="hotpotqa", source_id="h1", context=CONTEXT, question=QUESTION, answer="University of Bergen"
    )
    store.upsert_source_items([item])
    ls.push_tasks(store, ls_session, "hotpotqa")
    project = ls_state.get_project(store, ls_session.base_url, "hotpotqa")
    (row,) = ls_state.tasks_by_id(store, ls_session.base_url, project.project_id).values()
    annotation = ls_session.client.annotations.create(id=row.task_id, result=result(), lead_time=5.0)
    assert ls.pull_annotations(store, ls_session, "hotpotqa").counts["authored"] == 1
    assert run_validation(store, "hotpotqa") == {"validated": 1}
    assert run_judging(store, "hotpotqa", HeuristicJudge(), 60) == {"needs_review": 1}
    stored = only(store)
    flags = stored.record.provenance.review.open_flags
    assert "seed_answer_mismatch" in {f.code for f in flags}

    # The flags go above the editors, as the reviewer's do; the task waits for its curator.
    assert ls.bounce_gate_flags(store, ls_session, "hotpotqa") == 1
    data = ls_session.client.tasks.get(id=row.task_id).data
    shown = data["review_flags"].splitlines()
    assert shown[: len(flags)] == [f"{f.id} [{f.code}] {f.path}: {f.reason}" for f in flags]
    assert "Sent back by the toolkit's checks" in data["feedback"]
    assert ls_state.tasks_by_id(store, ls_session.base_url, project.project_id)[row.task_id].status == (
        ls_state.NEEDS_REVISION
    )
    assert ls.bounce_gate_flags(store, ls_session, "hotpotqa") == 0  # never twice
    assert ls.awaiting_curators(store, "hotpotqa", ls_session.base_url)["needs_revision"] == 1

    # Every flag dismissed with a note: the record moves on, unchanged.
    note = "she studied at Oslo; Bergen is where she taught later"
    resolutions = "\n".join(f"{f.id} dismissed: {note}" for f in flags)
    ls_session.client.annotations.update(id=annotation.id, result=result(resolutions))
    assert ls.pull_annotations(store, ls_session, "hotpotqa").counts["authored"] == 1
    assert only(store).state == RecordState.AUTHORED
    data = ls_session.client.tasks.get(id=row.task_id).data
    assert data["review_flags"].startswith("None") and "flags are resolved" in data["feedback"]

    # Validation and the judge again: the dismissed flags are not raised again, and the record is accepted.
    assert run_validation(store, "hotpotqa") == {"validated": 1}
    assert run_judging(store, "hotpotqa", HeuristicJudge(), 60) == {"accepted": 1}
    stored = only(store)
    assert [(f.id, f.status, f.note) for f in stored.record.provenance.review.flags] == [
        (f.id, "dismissed", note) for f in flags
    ]
    assert ls.bounce_gate_flags(store, ls_session, "hotpotqa") == 0
