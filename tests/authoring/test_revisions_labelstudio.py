"""No silent overwrite between Label Studio and files, against a real Label Studio server (see conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from authoring import ls_state
from authoring.labelstudio import sync
from build_split import exit_codes
from build_split.cli import main
from build_split.sources import sample_authored
from core import revisions
from core.store import Store

LABEL_STUDIO_BACKENDS = ("sqlite", "postgresql")  # the server's core runs on both (conftest.py)

SOURCE_ID = "sob-sample-0001"
SAMPLE_AUTHORED = sample_authored("hotpotqa")


def sample_line(index: int = 0) -> dict:
    return json.loads(sample_authored("hotpotqa").read_text(encoding="utf-8").splitlines()[index])


def textarea(name: str, text: str) -> dict:
    return {"from_name": name, "to_name": "context", "type": "textarea", "value": {"text": [text]}}


def annotation_of(line: dict) -> list[dict]:
    return [
        textarea("question", line["question"]),
        textarea("json_schema", json.dumps(line["json_schema"])),
        textarea("ground_truth", json.dumps(line["ground_truth"])),
        {"from_name": "verdict", "to_name": "context", "type": "choices", "value": {"choices": ["accept"]}},
    ]


def with_town(town: str, annotator: str = "bob") -> dict:
    line = sample_line()
    line["ground_truth"]["observatory"]["town"] = town
    line["annotator"] = annotator
    return line


def cli(ws: Path, *args: str) -> int:
    return main(["--source", "hotpotqa", "--workspace", str(ws), "--judge", "heuristic", *args])


def town_of(ws: Path) -> str:
    question = sample_line()["question"]
    with Store.open(ws) as store:
        [stored] = [s for s in store.records("hotpotqa") if s.record.input.question == question]
    return stored.record.output.ground_truth["observatory"]["town"]


def task_of(store: Store, session, source_id: str) -> ls_state.TaskRow:
    project = ls_state.get_project(store, session.base_url, "hotpotqa")
    return next(
        t
        for t in ls_state.tasks_by_id(store, session.base_url, project.project_id).values()
        if t.source_id == source_id
    )


def tasks_then_the_sample_file(ws: Path, session) -> ls_state.TaskRow:
    """The sample's items pushed as tasks, then its curators' file imported: the record's first revision."""
    assert cli(ws, "--input", str(SAMPLE_AUTHORED.parent / "sample.json")) == 0
    with Store.open(ws) as store:
        sync(store, session, "hotpotqa")
        task = task_of(store, session, SOURCE_ID)
    assert cli(ws, "--authored", str(SAMPLE_AUTHORED)) == 0
    return task


def test_a_label_studio_fix_is_never_undone_by_an_older_file(
    tmp_path: Path, ls_session, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    task = tasks_then_the_sample_file(ws, ls_session)
    # The curator fixes the answer in Label Studio: newer than the file's revision, so it is applied.
    annotation = ls_session.client.annotations.create(id=task.task_id, result=annotation_of(with_town("Elsford Hill")))
    with Store.open(ws) as store:
        sync(store, ls_session, "hotpotqa")
    assert town_of(ws) == "Elsford Hill"

    # The curators' file again: older than the fix, it is not re-imposed.
    capsys.readouterr()
    assert cli(ws, "--authored", str(SAMPLE_AUTHORED)) == 0
    assert "not re-applied (changed since) 1" in capsys.readouterr().out
    assert town_of(ws) == "Elsford Hill"

    # Another file with another answer: a conflict, listed with both versions.
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps(with_town("Oslo")) + "\n", encoding="utf-8")
    assert cli(ws, "--authored", str(other)) == exit_codes.CONFLICTS_NOT_APPLIED  # exit 6 says so
    assert town_of(ws) == "Elsford Hill"
    capsys.readouterr()
    assert cli(ws, "--rejections") == 0
    listed = capsys.readouterr().out
    current = next(line for line in listed.splitlines() if "current:" in line)
    assert (
        current.startswith("    current:  rev 2 by ") and f"task {task.task_id} annotation {annotation.id}" in current
    )
    assert f"incoming: rev 3 by bob from file {other.resolve()} line 1" in listed
    assert '/ground_truth/observatory/town: "Elsford Hill" -> "Oslo"' in listed

    # Settled in Label Studio: the curator submits again (updated after the conflict), and it is applied.
    ls_session.client.annotations.update(id=annotation.id, result=annotation_of(with_town("Elsford Vale")))
    with Store.open(ws) as store:
        sync(store, ls_session, "hotpotqa")
        assert revisions.count_open_conflicts(store.con, "hotpotqa") == 0
    assert town_of(ws) == "Elsford Vale"


def test_an_annotation_older_than_the_current_revision_is_a_conflict_sent_back(
    tmp_path: Path, ls_session, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    task = tasks_then_the_sample_file(ws, ls_session)
    # Made in Label Studio, but not pulled before another curator's file replaced the record.
    ls_session.client.annotations.create(id=task.task_id, result=annotation_of(with_town("Elsford Hill")))
    newer = tmp_path / "newer.jsonl"
    newer.write_text(json.dumps(with_town("Oslo", "ana")) + "\n", encoding="utf-8")
    assert cli(ws, "--authored", str(newer), "--overwrite") == 0
    with Store.open(ws) as store:
        result = sync(store, ls_session, "hotpotqa")
        assert result.pull.counts["conflict"] == 1
        assert revisions.count_open_conflicts(store.con, "hotpotqa") == 1
        row = task_of(store, ls_session, SOURCE_ID)
    assert town_of(ws) == "Oslo"
    assert row.status == ls_state.NEEDS_REVISION
    feedback = ls_session.client.tasks.get(id=task.task_id).data["feedback"]
    assert feedback.startswith("Not applied (annotation ") and f"by file {newer.resolve()}" in feedback
