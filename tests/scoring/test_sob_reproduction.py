"""`python -m scoring --responses` reproduces SOB's published image evaluation, record by record."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "sob_eval"
MODELS = ("gemini-2.5-flash", "openai-gpt-4.1", "phi-4")


def _close(a, b, tol):
    if isinstance(a, float) or isinstance(b, float):
        return abs(a - b) <= tol
    return a == b


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    """The three response files scored through the CLI, as a new user would run it."""
    out = tmp_path_factory.mktemp("sob") / "evaluation"
    done = subprocess.run(
        [sys.executable, "-m", "scoring", "--responses", str(DATA / "images_responses"), "--output-root", str(out)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr
    return out, done.stdout


@pytest.mark.parametrize("model", MODELS)
def test_every_record_and_metric_matches_sob_within_1e_9(scored, model):
    out, _ = scored
    want = [json.loads(line) for line in (DATA / "evaluation/image" / model / "eval_records.jsonl").open()]
    got = [json.loads(line) for line in (out / "image" / model / "eval_records.jsonl").open()]
    assert len(got) == len(want) == 209
    for ours, theirs in zip(got, want, strict=True):
        assert list(ours) == list(theirs)  # SOB's field names, in SOB's order
        wrong = {k: (ours[k], theirs[k]) for k in theirs if not _close(ours[k], theirs[k], 1e-9)}
        assert not wrong, (theirs["record_id"], wrong)


@pytest.mark.parametrize("model", MODELS)
def test_every_mean_and_interval_matches_sob_within_1e_6(scored, model):
    out, _ = scored
    theirs = json.loads((DATA / "evaluation/image" / model / "eval_summary.json").read_text())
    ours = json.loads((out / "image" / model / "eval_summary.json").read_text())
    for key in ("num_records", "model_ids", "data_quality", "error_analysis"):
        assert ours[key] == theirs[key], key
    compared = 0
    for block in ("overall", "overall_weighted"):
        for kind in ("metrics", "category_scores"):
            assert list(ours["summary"][block][kind]) == list(theirs["summary"][block][kind])
            for name, estimate in theirs["summary"][block][kind].items():
                for field in ("mean", "ci95_low", "ci95_high"):
                    assert ours["summary"][block][kind][name][field] == pytest.approx(estimate[field], abs=1e-6), (
                        block,
                        name,
                        field,
                    )
                    compared += 1
    assert compared == 2 * 15 * 3
    assert "rejected_lines" not in ours  # SOB's layout when every line is usable


def test_a_single_file_and_other_seeds_change_the_intervals_not_the_means(tmp_path):
    response = tmp_path / "images_responses" / "response_phi-4_image.jsonl"
    response.parent.mkdir()
    shutil.copy(DATA / "images_responses" / "response_phi-4_image.jsonl", response)
    cmd = [sys.executable, "-m", "scoring", "--responses", str(response), "--output-root", str(tmp_path / "o")]
    subprocess.run([*cmd, "--seed", "7"], check=True, capture_output=True, cwd=Path(__file__).resolve().parents[2])
    ours = json.loads((tmp_path / "o/image/phi-4/eval_summary.json").read_text())["summary"]["overall"]["metrics"]
    theirs = json.loads((DATA / "evaluation/image/phi-4/eval_summary.json").read_text())["summary"]["overall"]
    assert ours["leaf_value_em"]["mean"] == pytest.approx(theirs["metrics"]["leaf_value_em"]["mean"], abs=1e-12)
    assert (ours["leaf_value_em"]["ci95_low"], ours["leaf_value_em"]["ci95_high"]) != (
        theirs["metrics"]["leaf_value_em"]["ci95_low"],
        theirs["metrics"]["leaf_value_em"]["ci95_high"],
    )


def test_the_printed_table_names_each_model_and_where_it_wrote(scored):
    out, printed = scored
    for model in MODELS:
        assert f"wrote {out / 'image' / model / 'eval_records.jsonl'}" in printed
    assert "JSON Pass Rate" in printed and "Output Contract Reliability" in printed
