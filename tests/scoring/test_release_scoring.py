"""Scoring a real release folder through the library and `python -m scoring`."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest

from scoring.cli import main
from scoring.evaluate import build_references, evaluate
from scoring.inputs import ScoringInputError, load_predictions, load_release
from scoring.sob import METRICS, OPTION_FLAGS, ScoringOptions, score_response

TOOLKIT = ScoringOptions(**dict.fromkeys(OPTION_FLAGS, True))  # every refinement on


def sob_line(record_id, model, response, truth=None):
    return {
        "metadata": {"record_id": record_id, "model_id": model, "schema_complexity": "easy"},
        "input": {"question": "q"},
        "output": {"candidate_response": response, "ground_truth": truth},
    }


def test_ground_truth_scores_one_on_every_metric_for_every_record(scored_release):
    release = load_release(scored_release.path)
    assert len(release.records) == 24 and release.modality == "text"
    references = build_references(release, TOOLKIT)
    for rid, record in release.records.items():
        for response in (record.ground_truth, json.dumps(record.ground_truth)):
            metrics = score_response(references[rid], response, release.modality).metrics
            assert all(v == 1.0 for v in metrics.values()), (rid, metrics)


@pytest.mark.parametrize("fmt", ["sob", "plain"])
def test_cli_scores_the_ground_truth_as_perfect(scored_release, tmp_path, factory, capsys, fmt):
    release = load_release(scored_release.path)
    rows = [
        sob_line(rid, "oracle", r.ground_truth, r.ground_truth)
        if fmt == "sob"
        else {"record_id": rid, "response": r.ground_truth}
        for rid, r in release.records.items()
    ]
    preds = factory.write_jsonl(tmp_path / "oracle.jsonl", rows)
    out = tmp_path / "report.json"
    assert (
        main(
            [
                "--release",
                str(scored_release.path),
                "--predictions",
                str(preds),
                "--output",
                str(out),
                "--bootstrap",
                "100",
                *OPTION_FLAGS.values(),
            ]
        )
        == 0
    )
    report = json.loads(out.read_text())
    (model,) = report["models"]
    assert model["model"] == "oracle" and model["n"] == 24 and model["missing_predictions"] == 0
    for name in METRICS:
        assert model["overall"][name]["mean"] == 1.0 and model["weighted"][name]["mean"] == 1.0
        assert model["weighted"][name]["ci95_low"] == 1.0
    printed = capsys.readouterr().out
    assert "Value Accuracy" in printed and "Output Contract Reliability" in printed


def test_wrong_missing_unknown_and_rejected_predictions_are_all_counted(scored_release, tmp_path, factory):
    release = load_release(scored_release.path)
    ids = sorted(release.records)
    rows = []
    for n, rid in enumerate(ids[:20]):  # 4 records get no prediction
        truth = copy.deepcopy(release.records[rid].ground_truth)
        if n < 10:
            truth = json.dumps(truth)  # raw text responses parse too
        else:
            first = next(iter(truth))
            truth[first] = "WRONG" if not isinstance(truth[first], str) else truth[first] + " wrong"
        rows.append({"record_id": rid, "response": truth, "model_id": "m1"})
    preds = factory.write_jsonl(tmp_path / "m1.jsonl", rows)
    with preds.open("a") as fh:
        fh.write("not json\n")
        fh.write(json.dumps({"record_id": "no-such-record", "response": {}, "model_id": "m1"}) + "\n")
        fh.write(json.dumps({"record_id": ids[0], "model_id": "m1"}) + "\n")  # no response
        fh.write(json.dumps({"record_id": ids[0], "response": {}, "model_id": "m1"}) + "\n")  # duplicate
        fh.write(json.dumps([1, 2]) + "\n")
    predictions = load_predictions(preds)
    assert predictions.lines == 25
    reasons = {r.line: r.reason for r in predictions.rejections}
    assert set(reasons) == {21, 23, 24, 25}
    assert reasons[21].startswith("not JSON") and "response" in reasons[23] and "duplicate" in reasons[24]
    report = evaluate(release, predictions, samples=50, options=TOOLKIT)
    (model,) = report["models"]
    assert model["missing_predictions"] == 4 and model["unknown_records"] == 1
    assert model["unknown_record_examples"] == ["no-such-record"]
    assert model["overall"]["json_parse_success"]["mean"] == pytest.approx(20 / 24)
    assert model["overall"]["perfect_response"]["mean"] == pytest.approx(10 / 24)
    assert 0 < model["overall"]["value_accuracy"]["mean"] < 20 / 24
    assert len(report["rejected_lines"]) == 4


def test_bad_inputs_give_clear_errors(tmp_path, scored_release, capsys):
    assert main(["--release", str(tmp_path / "nowhere"), "--predictions", str(tmp_path / "p.jsonl")]) == 2
    assert "does not exist" in capsys.readouterr().err
    (tmp_path / "p.jsonl").write_text("")
    assert main(["--release", str(tmp_path), "--predictions", str(tmp_path / "p.jsonl")]) == 2
    assert "not a release folder" in capsys.readouterr().err
    with pytest.raises(ScoringInputError, match="no \\['nope'\\]"):
        load_release(scored_release.path, ["nope"])
    with pytest.raises(SystemExit):
        main(["--release", str(scored_release.path)])  # nothing to do
    assert "give --predictions" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--ambiguity"])
    assert "--ambiguity needs --workspace and --source" in capsys.readouterr().err


def test_a_modified_release_is_refused(release_copy, tmp_path, factory, capsys):
    data = next((release_copy.path / "data").glob("train-*.parquet"))
    data.chmod(0o644)
    data.write_bytes(data.read_bytes() + b"x")
    preds = factory.write_jsonl(tmp_path / "p.jsonl", [])
    assert main(["--release", str(release_copy.path), "--predictions", str(preds)]) == 2
    assert "modified after it was written" in capsys.readouterr().err


def test_help_runs_as_a_module():
    done = subprocess.run([sys.executable, "-m", "scoring", "--help"], capture_output=True, text=True, check=True)
    for option in ("--release", "--predictions", "--suspects", "--curation", "--ambiguity", "--bootstrap"):
        assert option in done.stdout
