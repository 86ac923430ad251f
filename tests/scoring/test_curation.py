"""Curation numbers: suspect ground truths, draft agreement, output budget, array order, ambiguity."""

from __future__ import annotations

import copy
import json

import pytest

from authoring.drafts import Draft, save_drafts
from core.store import Store
from scoring.cli import main
from scoring.curation import array_order_warnings, draft_agreement, output_budget
from scoring.flags import load_flags
from scoring.inputs import load_release
from scoring.suspects import find_suspect

MODELS = ("model-a", "model-b", "model-c", "model-d")


def corrected(truth: dict) -> dict:
    """What the reference models say instead of a (planted) wrong ground truth: every leaf differs."""
    fixed = copy.deepcopy(truth)
    for key, value in fixed.items():
        if isinstance(value, str):
            fixed[key] = "Somewhere Else Entirely"
        elif isinstance(value, bool):
            fixed[key] = not value
        elif isinstance(value, int | float):
            fixed[key] = value + 1000
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            fixed[key] = [{k: f"other {k}" for k in item} for item in value]
        elif value is None:
            fixed[key] = "a sequel"
        elif isinstance(value, list):
            fixed[key] = ["an award"]
    return fixed


def reference_predictions(release, planted: set[str], split: set[str]) -> dict[str, dict[str, object]]:
    """Four models: agree on the planted records (against the truth), disagree among themselves on
    `split` records, and otherwise answer the truth, except model-d, which is wrong on a few."""
    by_model: dict[str, dict[str, object]] = {m: {} for m in MODELS}
    for n, (rid, record) in enumerate(sorted(release.records.items())):
        for k, model in enumerate(MODELS):
            truth = record.ground_truth
            if rid in planted:
                answer = corrected(truth)
            elif rid in split:
                answer = {key: f"guess {k} {key}" for key in truth}
            elif model == "model-d" and n % 4 == 0:
                answer = corrected(truth)  # one model alone disagreeing never makes a suspect
            else:
                answer = truth
            by_model[model][rid] = answer
    return by_model


def test_planted_wrong_ground_truths_are_found_and_nothing_else(release_copy, tmp_path, factory, capsys):
    release = load_release(release_copy.path)
    ids = sorted(release.records)
    planted, split = {ids[1], ids[6], ids[11], ids[17]}, {ids[2], ids[9]}
    by_model = reference_predictions(release, planted, split)
    files = [
        factory.write_jsonl(tmp_path / f"{m}.jsonl", [{"record_id": r, "response": a} for r, a in answers.items()])
        for m, answers in by_model.items()
    ]
    argv = ["--release", str(release_copy.path), "--suspects", "--json", "--bootstrap", "0"]
    argv += [arg for f in files for arg in ("--predictions", str(f))]
    assert main([*argv, "--workspace", str(release_copy.workspace)]) == 0
    report = json.loads(capsys.readouterr().out)
    found = {s["record_id"]: s for s in report["suspects"]["suspects"]}
    assert set(found) == planted
    for suspect in found.values():
        assert len(suspect["models"]) == 4 and suspect["value_accuracy"] < 0.5 and suspect["sted"] < 0.8
        assert suspect["differing_paths"]
    assert report["suspects"]["flags_saved"] == 4
    with Store.open(release_copy.workspace) as store:
        assert set(load_flags(store.con, "suspect", "hotpotqa")) == planted

    # --send-back: the suspects go back to their curators with the models' answer; the rest stay accepted.
    assert main([*argv, "--workspace", str(release_copy.workspace), "--send-back"]) == 0
    assert json.loads(capsys.readouterr().out)["suspects"]["sent_back"] == 4
    with Store.open(release_copy.workspace) as store:
        back = {item.record.record_id: item for item in store.records("hotpotqa", ["needs_revision"])}
        assert set(back) == planted
        reason = back[ids[1]].reasons[0]
        assert reason.code == "suspect_ground_truth" and "4 reference models" in reason.message
        assert "Somewhere Else Entirely" in reason.message or "1000" in reason.message
    assert main([*argv, "--workspace", str(release_copy.workspace), "--send-back"]) == 0  # nothing moves twice
    assert json.loads(capsys.readouterr().out)["suspects"]["sent_back"] == 0
    with pytest.raises(SystemExit) as refused:  # where to send them back is the workspace
        main([*argv, "--send-back"])
    assert refused.value.code == 2


def test_suspect_rules_on_small_cases():
    truth = {"city": "Paris", "year": 1900}
    wrong = {"city": "Lyon", "year": 1901}
    assert find_suspect("r", truth, {"a": wrong, "b": wrong, "c": wrong}) is not None
    assert find_suspect("r", truth, {"a": wrong, "b": wrong}) is None  # too few models
    assert find_suspect("r", truth, {"a": wrong, "b": wrong, "c": wrong, "d": truth, "e": truth, "f": truth}) is None
    assert find_suspect("r", truth, {"a": wrong, "b": wrong, "c": {"city": "Paris", "year": 1901}}) is None
    assert find_suspect("r", truth, {"a": truth, "b": truth, "c": truth}) is None
    half = {"city": "Paris", "year": 1901}  # the models half agree with the truth: not suspect enough
    assert find_suspect("r", truth, {"a": half, "b": half, "c": half}) is None
    assert find_suspect("r", truth, {"a": "not json", "b": wrong, "c": wrong}) is None  # unparsable is not a vote


def test_array_order_warnings():
    context = "First came Alice, then Bob, and last Carol, born 1990."
    assert array_order_warnings("r", {"names": ["Alice", "Bob", "Carol"]}, context) == []
    assert array_order_warnings("r", {"people": [{"name": "alice"}, {"name": "Carol"}]}, context) == []
    (w,) = array_order_warnings("r", {"names": ["Bob", "Alice"]}, context)
    assert w.path == "names" and "different order" in w.reason
    (w,) = array_order_warnings("r", {"x": {"names": ["Alice", "Dave"]}}, context)
    assert w.path == "x.names" and "'Dave'" in w.reason
    assert array_order_warnings("r", {"names": ["Alice"]}, context) == []  # one item has no order
    (w,) = array_order_warnings("r", {"flags": [True, False]}, context)
    assert "no text" in w.reason


def test_output_budget_counts_the_released_json():
    small, big = {"a": "word"}, {"a": " ".join(["word"] * 3000)}
    checks, tokenizer = output_budget([("s", small), ("b", big)])
    assert tokenizer
    assert [c.over_budget for c in checks] == [False, True]
    assert checks[1].tokens > 3000 and checks[0].tokens < 20


def test_draft_agreement_numbers():
    final = {"name": "Ada", "years": [1815, 1852]}
    same = draft_agreement("r", final, copy.deepcopy(final), True)
    assert (same.value_accuracy, same.sted) == (1.0, 1.0)
    edited = draft_agreement("r", final, {"name": "Ada", "years": [1852, 1815]}, False)
    assert edited.value_accuracy == pytest.approx(1 / 3) and edited.sted == 1.0  # reordered: SOB index vs STED
    assert draft_agreement("r", final, {"title": "x"}, True).value_accuracy == 0.0


def test_curation_cli_reports_budget_order_and_draft_agreement(release_copy, capsys):
    release = load_release(release_copy.path)
    records = sorted(release.records.values(), key=lambda r: r.source_id)
    drafts = []
    for n, record in enumerate(records[:6]):
        truth = copy.deepcopy(record.ground_truth)
        if n % 2:
            truth[next(iter(truth))] = "changed by the curator"
        drafts.append(
            Draft(
                source="hotpotqa",
                source_id=record.source_id,
                status="drafted",
                question=record.question,
                json_schema=record.json_schema,
                ground_truth=truth,
                model="draft-llm",
                prompt_version="v1",
            )
        )
    with Store.open(release_copy.workspace) as store:
        save_drafts(store.con, drafts)
    argv = ["--release", str(release_copy.path), "--curation", "--workspace", str(release_copy.workspace)]
    assert main([*argv, "--budget", "30", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)["curation"]
    assert report["array_order_warnings"] == []  # every array of the release follows its context
    over = report["output_budget"]["over_budget"]
    assert over and all(c["tokens"] > 30 for c in over)
    agreement = report["draft_agreement"]
    assert agreement["records_with_draft"] == 6 and agreement["records_without_draft"] == 18
    assert agreement["unchanged"] == 3 and agreement["question_kept"] == 6
    assert 0.5 < agreement["mean_value_accuracy"] < 1.0
    assert main(argv) == 0
    assert "draft-to-final agreement over 6 drafted records" in capsys.readouterr().out


def test_ambiguity_flags_from_repeated_drafts(tmp_path, factory, capsys):
    workspace = tmp_path / "ws"
    rows = [
        {"source_id": "clear", "ground_truth": {"a": "Paris", "b": [1, 2]}, "temperature": 0.7},
        {"source_id": "clear", "ground_truth": {"b": [2, 1], "a": "paris"}, "temperature": 0.7},
        {"source_id": "vague", "ground_truth": {"a": "Paris"}, "temperature": 0.7},
        {"source_id": "vague", "ground_truth": {"a": "the river Seine"}, "temperature": 0.7},
        {"source_id": "single", "ground_truth": {"a": 1}},
        {"source_id": "cold", "ground_truth": {"a": 1}, "temperature": 0},
        {"ground_truth": {"a": 1}},
    ]
    samples = factory.write_jsonl(tmp_path / "samples.jsonl", rows)
    argv = ["--ambiguity", "--workspace", str(workspace), "--source", "hotpotqa"]
    assert main([*argv, "--draft-samples", str(samples), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)["ambiguity"]
    assert result["samples_added"] == 5
    assert [r["line"] for r in result["rejected_lines"]] == [6, 7]
    assert set(result["flagged"]) == {"vague"} and result["scored"] == 2
    assert result["too_few_samples"] == ["single"]
    with Store.open(workspace) as store:
        assert set(load_flags(store.con, "ambiguous", "hotpotqa")) == {"vague"}
    # a third draft of "single" later makes it scorable; samples accumulate across runs
    more = factory.write_jsonl(tmp_path / "more.jsonl", [{"source_id": "single", "ground_truth": {"a": 2}}])
    assert main([*argv, "--draft-samples", str(more)]) == 0
    assert "single: consistency 0.000" in capsys.readouterr().out
