"""Two curators per record against a real Label Studio: Label Studio's overlap, the agreement figures (`--status`,
the card), adjudication tasks for planted disagreements, the adjudicated answer as the ground truth with both
originals in its history, and `--blind-second` keeping the draft's answer from the second curator."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path

import pytest

from authoring import curator_answers, ls_state
from authoring.labelstudio import LabelStudioSession
from authoring.labelstudio.adjudication import key as adjudication_key
from authoring.labelstudio.overlap import blind_key
from authoring.labelstudio.runs import sync
from build_split.options import RunOptions
from build_split.pipeline import RunSummary, print_history, print_status, run_once
from build_split.sources import sample_authored
from core.models import RecordState, make_record_id
from core.store import Store
from scoring.curator_agreement import compare_answers
from scoring.paths import flatten
from scoring.sted import sted

LABEL_STUDIO_BACKENDS = ("sqlite", "postgresql")  # the server's core runs on both (conftest.py)

SAMPLE = sample_authored("hotpotqa")
SAMPLE_ITEMS = SAMPLE.parent / "sample.json"


def sample_line(index: int) -> dict:
    return json.loads(SAMPLE.read_text(encoding="utf-8").splitlines()[index])


def textarea(name: str, text: str) -> dict:
    return {"from_name": name, "to_name": "context", "type": "textarea", "value": {"text": [text]}}


def result(line: dict, verdict: str = "accept") -> list[dict]:
    return [
        textarea("question", line["question"]),
        textarea("json_schema", json.dumps(line["json_schema"])),
        textarea("ground_truth", json.dumps(line["ground_truth"])),
        {"from_name": "verdict", "to_name": "context", "type": "choices", "value": {"choices": [verdict]}},
    ]


def annotate(session: LabelStudioSession, task_id: int, line: dict, user_id: int | None = None) -> int:
    kwargs = {"completed_by": user_id} if user_id is not None else {}
    return int(session.client.annotations.create(id=task_id, result=result(line), **kwargs).id)


def tasks_of(store: Store, session: LabelStudioSession, key: str) -> dict[str, ls_state.TaskRow]:
    project = ls_state.get_project(store, session.base_url, key)
    assert project is not None, f"no project {key}"
    return {t.source_id: t for t in ls_state.tasks_by_id(store, session.base_url, project.project_id).values()}


def quiet(_line: str) -> None:
    return None


def test_overlap_two_agreement_adjudication_and_history(tmp_path: Path, ls_settings, two_curators) -> None:
    (ada_id, ada), (bo_id, bo) = two_curators
    session = LabelStudioSession(replace(ls_settings, overlap=2))
    ws = tmp_path / "ws"
    options = RunOptions(source="hotpotqa", workspace=ws, judge="heuristic", input=SAMPLE_ITEMS, overlap=2)
    run_once(options, RunSummary(), session, quiet, quiet=True)
    options = options.model_copy(update={"input": None})
    with Store.open(ws) as store:
        project = ls_state.get_project(store, session.base_url, "hotpotqa")
        tasks = tasks_of(store, session, "hotpotqa")
    server_project = session.client.projects.get(id=project.project_id)
    assert server_project.maximum_annotations == 2  # Label Studio's own overlap: two annotators per task

    # Planted: one agreement, two disagreements (one field each), one record with a single answer so far.
    agreed, nationality, arches, single = (sample_line(i) for i in range(4))
    other_nationality = copy.deepcopy(nationality)
    other_nationality["ground_truth"]["books"][1]["nationality"] = "English"
    other_arches = copy.deepcopy(arches)
    other_arches["ground_truth"]["bridge"]["arches"] = "eight"
    for first, second in ((agreed, agreed), (nationality, other_nationality), (arches, other_arches)):
        annotate(session, tasks[first["source_id"]].task_id, first, ada_id)
        annotate(session, tasks[first["source_id"]].task_id, second, bo_id)
    annotate(session, tasks[single["source_id"]].task_id, single, ada_id)
    # Bad input: a second answer whose JSON does not parse goes back to its curator; the pair waits, nothing is lost.
    broken = sample_line(4)
    annotate(session, tasks[broken["source_id"]].task_id, broken, ada_id)
    broken_result = result(broken)
    broken_result[2] = textarea("ground_truth", '{"unclosed": ')
    broken_id = session.client.annotations.create(
        id=tasks[broken["source_id"]].task_id, result=broken_result, completed_by=bo_id
    ).id

    summary = RunSummary()
    run_once(options, summary, session, quiet, quiet=True)
    counts = summary.label_studio.pull.counts
    assert counts["agreed"] == 1 and counts["to adjudicate"] == 2 and counts["awaiting second curator"] == 1, counts
    sent_back = session.client.tasks.get(id=tasks[broken["source_id"]].task_id).data["feedback"]
    assert f"(annotation {broken_id} by {bo})" in sent_back and "$.ground_truth: ground_truth is" in sent_back, (
        sent_back
    )

    with Store.open(ws) as store:
        rows = {r.source_id: r for r in curator_answers.agreement_rows(store, "hotpotqa")}
        assert set(rows) == {agreed["source_id"], nationality["source_id"], arches["source_id"]}  # not `broken`
        kept = curator_answers.answers(store, "hotpotqa", broken["source_id"])[broken["source_id"]]
        assert kept[1].usable and not kept[2].usable and kept[2].annotation_id == broken_id  # both kept
        assert rows[nationality["source_id"]].comparison["differing_fields"] == ["books[1].nationality"]
        assert (rows[arches["source_id"]].first_annotator, rows[arches["source_id"]].second_annotator) == (ada, bo)
        # Only the agreed record exists; the other two wait for their adjudicator.
        stored = {s.record.metadata.source_id: s for s in store.records("hotpotqa")}
        assert set(stored) == {agreed["source_id"]}
        assert stored[agreed["source_id"]].record.provenance.annotator == ada
        adjudication = tasks_of(store, session, adjudication_key("hotpotqa"))
        assert set(adjudication) == {nationality["source_id"], arches["source_id"]}
        status: list[str] = []
        print_status(store, "hotpotqa", status.append)

    # The figures: value accuracy over the union of leaves, STED, both from scoring/.
    leaves = [len(flatten(line["ground_truth"])) for line in (agreed, nationality, arches)]
    accuracy = (1 + (leaves[1] - 1) / leaves[1] + (leaves[2] - 1) / leaves[2]) / 3
    mean_sted = (
        1.0
        + sted(nationality["ground_truth"], other_nationality["ground_truth"])
        + sted(arches["ground_truth"], other_arches["ground_truth"])
    ) / 3
    text = "\n".join(status)
    assert "curator agreement: 3 record(s) with two answers, 2 disagree (95% CI " in text, text
    assert f"value accuracy {100 * accuracy:.1f}% (95% CI " in text, text
    assert f"mean STED {mean_sted:.3f} (95% CI " in text, text
    assert "2 record(s) wait for an adjudicator" in text
    print("\n".join(status))  # the figures, for the report (-s)

    # The adjudication task: both answers side by side, the differing field marked, editors from the first answer.
    task_id = adjudication[nationality["source_id"]].task_id
    data = session.client.tasks.get(id=task_id).data
    assert '<div class="differs"><b>books[1].nationality</b>: &quot;Scottish&quot;</div>' in data["first_answer"]
    assert '<div class="differs"><b>books[1].nationality</b>: &quot;English&quot;</div>' in data["second_answer"]
    assert "<div><b>books[0].nationality</b>: &quot;Welsh&quot;</div>" in data["first_answer"]  # agreeing: unmarked
    assert "$.ground_truth.books[1].nationality" in data["differences"]
    predictions = session.client.predictions.list(task=task_id)
    prefilled = {r["from_name"]: r["value"]["text"][0] for r in predictions[0].result}
    assert json.loads(prefilled["ground_truth"]) == nationality["ground_truth"] and "verdict" not in prefilled

    # The adjudicator (the server's own user) settles it with the first answer: that is the ground truth.
    annotate(session, task_id, nationality)
    summary = RunSummary()
    run_once(options, summary, session, quiet, quiet=True)
    record_id = make_record_id("hotpotqa", nationality["source_id"], nationality["question"])
    with Store.open(ws) as store:
        (record,) = [s for s in store.records("hotpotqa") if s.record.record_id == record_id]
        assert record.record.output.ground_truth == nationality["ground_truth"]
        assert record.record.provenance.annotator == session.client.users.whoami().email  # the adjudicator
        assert record.state in (RecordState.ACCEPTED, RecordState.NEEDS_REVIEW, RecordState.REJECTED)
        row = {r.source_id: r for r in curator_answers.agreement_rows(store, "hotpotqa")}[nationality["source_id"]]
        assert row.status == "adjudicated" and row.record_id == record_id
        history: list[str] = []
        print_history(store, "hotpotqa", record_id[:16], history.append)
    revs = [line for line in history if line.startswith("rev ")]
    assert len(revs) == 3, history
    assert revs[0].startswith("rev 1 (first curator's answer, kept) by " + ada)
    assert revs[1].startswith("rev 2 (second curator's answer, kept) by " + bo)
    assert revs[2].startswith("rev 3 (applied) by " + record.record.provenance.annotator)
    assert "Label Studio project" in revs[2] and f"task {task_id}" in revs[2]

    # The release card: a short "Curator agreement" section with the intervals, over the released records.
    summary = RunSummary()
    run_once(options.model_copy(update={"release": "0.1.0", "allow_unreviewed": True}), summary, session, quiet)
    card = (summary.release_path / "README.md").read_text(encoding="utf-8")
    section = card.split("## Curator agreement", 1)[1]
    released = json.loads((summary.release_path / "manifest.json").read_text())["curation"]["curator_agreement"]
    n = released["records_with_two_answers"]
    assert f"{n} released records were authored independently by two curators" in section
    assert "95% CI" in section and "Wilson" in section and "bootstrap" in section
    print("## Curator agreement" + section)


def test_blind_second_curator_never_sees_the_drafts_answer(tmp_path: Path, ls_settings, two_curators) -> None:
    from loaders.hotpotqa import load_hotpotqa

    (ada_id, ada), (bo_id, bo) = two_curators
    session = LabelStudioSession(replace(ls_settings, overlap=2, blind_second=True))
    line = sample_line(0)
    draft = {
        "question": line["question"],
        "json_schema": line["json_schema"],
        "ground_truth": line["ground_truth"],
        "model_version": "gemini-2.5-flash@draft-v1",
    }
    with Store.open(tmp_path / "ws") as store:
        store.upsert_source_items(load_hotpotqa(SAMPLE_ITEMS).items)
        sync(store, session, "hotpotqa", {line["source_id"]: draft}, compare=compare_answers)
        main = tasks_of(store, session, "hotpotqa")[line["source_id"]]
        second = tasks_of(store, session, blind_key("hotpotqa"))[line["source_id"]]
        main_project = ls_state.get_project(store, session.base_url, "hotpotqa")
    assert session.client.projects.get(id=main_project.project_id).maximum_annotations == 1  # the other is blind

    def prefilled(task_id: int) -> dict[str, str]:
        predictions = session.client.predictions.list(task=task_id)
        return {r["from_name"]: r["value"]["text"][0] for p in predictions for r in p.result if r["type"] == "textarea"}

    assert json.loads(prefilled(main.task_id)["ground_truth"]) == line["ground_truth"]  # the first sees the draft
    blind = prefilled(second.task_id)
    assert set(blind) == {"question", "json_schema"}  # the second: the same question and schema, no answer
    assert blind["question"] == line["question"] and json.loads(blind["json_schema"]) == line["json_schema"]

    # The same curator on both sides does not count; another curator's answer does.
    annotate(session, main.task_id, line, ada_id)
    annotate(session, second.task_id, line, ada_id)
    with Store.open(tmp_path / "ws") as store:
        counts = sync(store, session, "hotpotqa", {}, compare=compare_answers).pull.counts
        assert counts["same curator twice"] == 1 and not counts["agreed"], counts
        assert list(store.records("hotpotqa")) == []
    assert "must come from another curator" in session.client.tasks.get(id=second.task_id).data["feedback"]
    annotate(session, second.task_id, line, bo_id)
    with Store.open(tmp_path / "ws") as store:
        counts = sync(store, session, "hotpotqa", {}, compare=compare_answers).pull.counts
        assert counts["agreed"] == 1, counts
        (stored,) = list(store.records("hotpotqa"))
        assert stored.record.provenance.annotator == ada and stored.state == RecordState.AUTHORED
        history: list[str] = []
        print_history(store, "hotpotqa", stored.record.record_id, history.append)
    revs = [h for h in history if h.startswith("rev ")]
    assert revs[0].startswith(f"rev 1 (applied) by {ada}") and revs[1].startswith(
        f"rev 2 (second curator's answer, kept) by {bo}"
    )


def test_blind_second_needs_overlap_two() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="needs --overlap 2"):
        RunOptions(source="hotpotqa", blind_second=True)
