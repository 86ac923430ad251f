"""The residual-error audit through a real Label Studio server: samples pushed once, verdicts pulled, the
error rate with Wilson intervals, and records found wrong sent back to their curator with the correction."""

from __future__ import annotations

import json
from typing import Any

from authoring import labelstudio as ls
from authoring import ls_state
from authoring.audit import run_audit
from core.models import Record, RecordState, SourceItem
from core.store import StateChange, Store
from exports.audit import audit_summary

SCHEMA = {
    "type": "object",
    "properties": {
        "director": {"type": "string", "description": "who"},
        "university": {"type": "string", "description": "where"},
        "years": {"type": "string", "description": "when"},
    },
    "required": ["director", "university", "years"],
}
ANSWER = {"director": "Ingrid Solvang", "university": "University of Bergen", "years": "1958 to 1977"}
CONTEXT = "Ingrid Solvang directed Marrow Creek Observatory from 1958 to 1977. She studied at the University of Oslo."


def text(name: str, value: str) -> dict[str, Any]:
    return {"from_name": name, "to_name": "context", "type": "textarea", "value": {"text": [value]}}


def choice(value: str) -> dict[str, Any]:
    return {"from_name": "verdict", "to_name": "context", "type": "choices", "value": {"choices": [value]}}


def accepted_records(store: Store, session: ls.LabelStudioSession) -> str:
    """Two records from a file and one authored in Label Studio, all accepted; returns the latter's id."""
    items = [SourceItem(source="hotpotqa", source_id=f"h{i}", context=CONTEXT + f" ({i})") for i in range(3)]
    store.upsert_source_items(items)
    ls.push_tasks(store, session, "hotpotqa")
    project = ls_state.get_project(store, session.base_url, "hotpotqa")
    task = next(
        r for r in ls_state.tasks_by_id(store, session.base_url, project.project_id).values() if r.source_id == "h0"
    )
    result = [text("question", "Where did she study?"), text("json_schema", json.dumps(SCHEMA))]
    result += [text("ground_truth", json.dumps(ANSWER)), choice("accept")]
    session.client.annotations.create(id=task.task_id, result=result)
    ls.pull_annotations(store, session, "hotpotqa")
    others = [Record.build(item, f"Question {item.source_id}?", SCHEMA, ANSWER) for item in items[1:]]
    store.upsert_records(others, RecordState.AUTHORED, "import")
    ids = store.record_ids("hotpotqa", [RecordState.AUTHORED])
    store.apply([StateChange(rid, RecordState.ACCEPTED, "judge") for rid in ids])
    (authored,) = [s.record.record_id for s in store.records("hotpotqa") if s.record.metadata.source_id == "h0"]
    return authored


def test_audit_round_trip(store: Store, ls_session) -> None:
    wrong = accepted_records(store, ls_session)
    first = run_audit(store, ls_session, "hotpotqa", size=3, rounds=2, seed=5)
    assert (first.drawn, first.pushed, first.verdicts_pulled, first.sent_back) == (6, 6, 0, 0)
    assert first.summary["pooled"] == {
        "sample_size": 6,
        "reviewed": 0,
        "incorrect": 0,
        "error_rate": None,
        "ci95": None,
    }
    assert audit_summary(store, "hotpotqa") is None
    again = run_audit(store, ls_session, "hotpotqa", size=3, rounds=2, seed=5)
    assert (again.drawn, again.pushed) == (0, 0)  # nothing drawn or pushed twice

    project = ls_state.get_project(store, ls_session.base_url, "audit:hotpotqa")
    tasks = [
        t
        for page in ls.list_project_tasks(ls_session, project.project_id, fields="all", omit="annotations_results")
        for t in page
    ]
    assert len(tasks) == 6 and all(t.data["question"] and "Round" in t.data["round"] for t in tasks)
    corrected = dict(ANSWER, university="University of Oslo")
    for task in tasks:
        if task.data["record_id"] == wrong:
            result = [choice("incorrect"), text("corrected_answer", json.dumps(corrected)), text("notes", "Oslo")]
        elif task.data["round"].startswith("Round 2") and task.data["record_id"] != wrong:
            result = [choice("correct")]
        else:
            continue  # round 1's other records are not reviewed yet
        ls_session.client.annotations.create(id=task.id, result=result)

    run = run_audit(store, ls_session, "hotpotqa", size=3, rounds=2, seed=5)
    assert (run.verdicts_pulled, run.sent_back) == (4, 1)
    round1, round2 = run.summary["rounds"]
    assert (round1["reviewed"], round1["incorrect"]) == (1, 1) and (round2["reviewed"], round2["incorrect"]) == (3, 1)
    pooled = run.summary["pooled"]
    assert (pooled["reviewed"], pooled["incorrect"], pooled["error_rate"]) == (4, 2, 0.5)
    low, high = pooled["ci95"]
    assert low < 0.5 < high and not run.summary["complete"]
    assert any(line.startswith("  pooled: 2/4 incorrect = 50.0% (95% CI") for line in run.lines())
    assert audit_summary(store, "hotpotqa")["pooled"] == pooled

    # The wrong record is back with its curator: state, reason with the correction, and the task's feedback.
    (stored,) = [s for s in store.records("hotpotqa") if s.record.record_id == wrong]
    assert stored.state == RecordState.NEEDS_REVISION and stored.reasons[0].code == "audit_incorrect"
    assert '"university": "University of Oslo"' in stored.reasons[0].message and ": Oslo." in stored.reasons[0].message
    authoring = ls_state.get_project(store, ls_session.base_url, "hotpotqa")
    row = next(
        r
        for r in ls_state.tasks_by_id(store, ls_session.base_url, authoring.project_id).values()
        if r.record_id == wrong
    )
    assert row.status == ls_state.NEEDS_REVISION
    feedback = ls_session.client.tasks.get(id=row.task_id).data["feedback"]
    assert "Sent back by the residual-error audit" in feedback and "University of Oslo" in feedback
    assert store.count_in_state("hotpotqa", RecordState.ACCEPTED) == 2

    # A verdict without a corrected answer still counts, and says what is missing.
    task = next(t for t in tasks if t.data["round"].startswith("Round 1") and t.data["record_id"] != wrong)
    ls_session.client.annotations.create(id=task.id, result=[choice("incorrect")])
    last = run_audit(store, ls_session, "hotpotqa", size=3, rounds=2, seed=5)
    assert last.verdicts_pulled == 1 and last.summary["rounds"][0]["incorrect"] == 2
    assert any("incorrect without a corrected answer" in p for p in last.problems)
