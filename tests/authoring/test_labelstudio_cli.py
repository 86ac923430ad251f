"""`python -m build_split` with Label Studio: one command pushes, pulls, validates and judges."""

import json
from pathlib import Path

import pytest

from authoring import ls_state
from authoring.labelstudio import LabelStudioSession, LabelStudioSettings
from build_split.cli import main
from core.store import Store

SCHEMA = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "description": "first paragraph's title"},
        "first_sentence": {"type": "string", "description": "its first sentence"},
        "facts": {"type": "array", "items": {"type": "string"}, "description": "supporting titles"},
    },
    "required": ["title", "first_sentence", "facts"],
}


def textarea(name: str, text: str) -> dict:
    return {"from_name": name, "to_name": "context", "type": "textarea", "value": {"text": [text]}}


def test_one_command_pushes_then_pulls_and_judges(
    tmp_path: Path, test_data: Path, label_studio_server, capsys: pytest.CaptureFixture[str]
) -> None:
    source = test_data / "hotpotqa" / "hotpot_dev_distractor_v1.sample.json"
    rows = {row["_id"]: row for row in json.loads(source.read_text())}
    ws = str(tmp_path / "ws")
    ls_args = ["--label-studio-url", label_studio_server.url, "--label-studio-api-key", label_studio_server.api_key]
    assert main(["--source", "hotpotqa", "--workspace", ws, "--input", str(source), "--limit", "3", *ls_args]) == 0
    out = capsys.readouterr().out
    assert "pushed 3 task(s)" in out and "3 task(s) await" in out.replace("awaiting", "await")
    assert label_studio_server.api_key not in out

    session = LabelStudioSession(LabelStudioSettings(url=label_studio_server.url, api_key=label_studio_server.api_key))
    with Store.open(ws) as store:
        project = ls_state.get_project(store, session.base_url, "hotpotqa")
        tasks = sorted(
            ls_state.tasks_by_id(store, session.base_url, project.project_id).values(), key=lambda t: t.source_id
        )
    accepted_task, rejected_task = tasks[0], tasks[1]
    row = rows[accepted_task.source_id]
    title, sentences = row["context"][0]
    truth = {"title": title, "first_sentence": sentences[0], "facts": [t for t, _ in row["supporting_facts"]]}
    session.client.annotations.create(
        id=accepted_task.task_id,
        result=[
            textarea("question", row["question"]),
            textarea("json_schema", json.dumps(SCHEMA)),
            textarea("ground_truth", json.dumps(truth)),
            {"from_name": "verdict", "to_name": "context", "type": "choices", "value": {"choices": ["accept"]}},
        ],
        lead_time=30.0,
    )
    session.client.annotations.create(
        id=rejected_task.task_id,
        result=[
            textarea("question", "x?"),
            textarea("json_schema", "{}"),
            textarea("ground_truth", "{}"),
            {"from_name": "verdict", "to_name": "context", "type": "choices", "value": {"choices": ["reject"]}},
            textarea("notes", "the paragraphs do not support a good question"),
        ],
        lead_time=5.0,
    )

    # The same command again (no new input): pull, validate, judge.
    assert main(["--source", "hotpotqa", "--workspace", ws, "--threshold", "0", *ls_args]) == 0
    out = capsys.readouterr().out
    assert "pushed 0 task(s)" in out
    with Store.open(ws) as store:
        records = {s.record.metadata.source_id: s for s in store.records("hotpotqa")}
    # The answer passes every check, but it does not give the seed answer: the gate holds it for its curator,
    # and the run shows the flag above the task's editors.
    held = records[accepted_task.source_id]
    assert str(held.state) == "needs_review" and held.record.provenance.annotator
    # (the supporting-fact titles repeat a title, which the gate also asks about)
    assert [(r.stage, r.code) for r in held.reasons][0] == ("gate", "seed_answer_mismatch")
    assert {r.code for r in held.reasons} <= {"seed_answer_mismatch", "duplicate_item"}
    assert "1 sent back to curators" in out and "1 sent back" in out.split("Label Studio:")[-1]
    data = session.client.tasks.get(id=accepted_task.task_id).data
    assert data["review_flags"].startswith("R1 [seed_answer_mismatch] $: ")
    rejected = records[rejected_task.source_id]
    assert str(rejected.state) == "rejected"
    assert "do not support" in rejected.reasons[0].message
