"""Held and rejected records become Label Studio tasks wherever they came from (a real server, conftest.py), here
in a fresh workspace whose first run pushes the sample's items before their file records are imported: the
records the gate holds are written into those tasks (prefill, flags, reasons, columns), `--rejections` gives each
task's URL, and a dismissal submitted there is the record's next revision."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from authoring import labelstudio as ls
from authoring.server import LabelStudioServer
from build_split.cli import main


def test_a_fresh_workspace_gives_held_file_records_their_tasks(
    label_studio_server: LabelStudioServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    title = f"held {uuid.uuid4().hex[:8]}: {{source}}"
    monkeypatch.setenv("LABEL_STUDIO_PROJECT_TITLE", title)
    for key in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    ws = str(tmp_path / "ws")
    args = ["--source", "hotpotqa", "--workspace", ws]
    args += ["--label-studio-url", label_studio_server.url, "--label-studio-api-key", label_studio_server.api_key]
    assert main([*args, "--sample"]) == 0
    out = capsys.readouterr().out
    # Every item is pushed before the file's records exist; the held ones are then written into their tasks.
    assert "pushed 7 task(s) (0 with a draft, 4 of held or rejected records)" in out, out

    settings = ls.LabelStudioSettings(url=label_studio_server.url, api_key=label_studio_server.api_key)
    session = ls.LabelStudioSession(settings)
    (project,) = list(session.client.projects.list(title=title.format(source="hotpotqa")))
    tasks = {t.data["source_id"]: t for t in session.client.tasks.list(project=project.id, fields="all")}
    longer = tasks["sob-sample-0007"]
    assert longer.data["state"] == "needs_review"
    assert longer.data["open_flags"] == "R1 seed_answer_mismatch $"
    assert longer.data["review_flags"].startswith("R1 [seed_answer_mismatch] $: ")
    assert "held in needs_review" in longer.data["feedback"] and "authored.jsonl line 10" in longer.data["feedback"]
    (prediction,) = session.client.predictions.list(task=longer.id)
    answer = next(r for r in prediction.result if r["from_name"] == "ground_truth")["value"]["text"][0]
    assert json.loads(answer)["longer"] == "Brannock Bridge"
    assert tasks["sob-sample-0002"].data["state"] == "to author"  # no record held there

    assert main([*args, "--rejections"]) == 0
    listed = capsys.readouterr().out
    url = f"{label_studio_server.url}/projects/{project.id}/data?task={longer.id}"
    held = listed[listed.index("needs_review e6b00830222c sob-sample-0007: ") :].splitlines()
    assert held[1] == f"    fix in Label Studio {url}"

    # The curator dismisses the flag there: the record's next revision, accepted by the next run.
    result = [
        {"from_name": r["from_name"], "to_name": "context", "type": "textarea", "value": r["value"]}
        for r in prediction.result
        if r["from_name"] in ("question", "json_schema", "ground_truth")
    ]
    result += [
        {"from_name": "verdict", "to_name": "context", "type": "choices", "value": {"choices": ["accept"]}},
        {
            "from_name": "flag_resolutions",
            "to_name": "context",
            "type": "textarea",
            "value": {"text": ["R1 dismissed: a test of the dismissal path"]},
        },
    ]
    session.client.annotations.create(id=longer.id, result=result, lead_time=3.0)
    assert main(args) == 0
    capsys.readouterr()
    data = session.client.tasks.get(id=longer.id).data
    assert (data["state"], data["open_flags"]) == ("accepted", "none"), data["feedback"]
    assert main([*args, "--status"]) == 0
    states = capsys.readouterr().out.split("records by state: ")[1].splitlines()[0]
    assert states == "accepted 7, needs_review 1, rejected 2"  # the telescope record still waits for its curator
