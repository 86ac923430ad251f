"""`python -m scoring.leaderboard` gives the rows SOB's `scripts/build_leaderboard.py` gives on the same folder.

The folder: SOB's published text and audio summaries (tests/data/sob_repo) and image summaries
(tests/data/sob_eval), laid out as SOB's repository lays them out; SOB's own script (MIT, unchanged) runs on it in
a subprocess, and its rows are compared with the toolkit's, number for number, in order. W_u comes from the image
records' `difficulty_weight` (602, SOB's constant) and is stated in the output."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import huggingface_hub
import pytest
from huggingface_hub.utils import disable_progress_bars

from exports.hub import publish_release
from exports.hub_files import publish_files
from scoring.leaderboard.build import ROW_KEYS, build_leaderboard
from scoring.leaderboard.cli import main
from tests.exports.hub_fake import FakeHub

DATA = Path(__file__).resolve().parents[1] / "data"
REPO = "someone/sob-bench"


@pytest.fixture
def sob_checkout(tmp_path) -> Path:
    """SOB's repository layout: scripts/build_leaderboard.py and data/evaluation/{text,image,audio}/<model>/."""
    root = tmp_path / "sob"
    shutil.copytree(DATA / "sob_repo/scripts", root / "scripts")
    shutil.copytree(DATA / "sob_repo/data/evaluation", root / "data/evaluation")
    shutil.copytree(DATA / "sob_eval/evaluation/image", root / "data/evaluation/image")
    return root


def sob_rows(root: Path) -> tuple[list[dict], dict[str, dict]]:
    """SOB's script's JSON rows, and its full rows (raw Overall too) from its own compute_row."""
    out = root / "sob-leaderboard.json"
    subprocess.run(
        [sys.executable, "-B", "scripts/build_leaderboard.py", "--output", str(out)],
        cwd=root,
        check=True,
        capture_output=True,
    )
    spec = importlib.util.spec_from_file_location("sob_build_leaderboard", root / "scripts/build_leaderboard.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    full = {folder: module.compute_row(folder) for folder in module.discover_model_dirs()}
    return json.loads(out.read_text())["rows"], full


def test_rows_equal_sobs_script_on_the_same_folder(sob_checkout, tmp_path):
    expected, full = sob_rows(sob_checkout)
    assert (
        main(
            [
                str(sob_checkout / "data/evaluation"),
                "--output",
                str(tmp_path / "lb.json"),
                "--markdown",
                str(tmp_path / "lb.md"),
                "--plot",
                str(tmp_path / "lb.png"),
            ]
        )
        == 0
    )
    ours = json.loads((tmp_path / "lb.json").read_text())
    assert [row["model"] for row in ours["rows"]] == [row["model"] for row in expected]
    assert len(expected) == 4 and list(ours["rows"][0]) == list(ROW_KEYS)
    for mine, theirs in zip(ours["rows"], expected, strict=True):
        for key in ROW_KEYS:
            if isinstance(theirs[key], float):
                assert mine[key] == pytest.approx(theirs[key], abs=1e-9), (mine["model"], key)
            else:
                assert mine[key] == theirs[key], (mine["model"], key)
    for model in ours["models"]:
        sob = full[model["model_dir"]]
        assert model["overall_raw"] == pytest.approx(sob["overall_raw"], abs=1e-9)
        assert model["coverage"] == pytest.approx(sob["coverage"], abs=1e-12)
    weights = ours["weights"]
    assert {k: v["W"] for k, v in weights.items()} == {"text": 13054, "image": 602, "audio": 343}
    assert {k: v["N"] for k, v in weights.items()} == {"text": 5000, "image": 209, "audio": 115}
    assert "difficulty_weight" in weights["image"]["W_from"] and "published" in weights["text"]["W_from"]
    table = (tmp_path / "lb.md").read_text()
    assert "| 1 | Gemini-2.5-Flash |" in table and "W_u" in table
    assert (tmp_path / "lb.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_w_u_is_the_sum_of_difficulty_weights_of_the_records(sob_checkout):
    root = sob_checkout / "data/evaluation"
    records = root / "image/phi-4/eval_records.jsonl"
    lines = [json.loads(line) for line in records.read_text().splitlines()]
    for line in lines[:10]:
        line["difficulty_weight"] = 0.0  # a lighter source
    records.write_text("".join(json.dumps(line) + "\n" for line in lines))
    for other in ("gemini-2.5-flash", "openai-gpt-4.1"):
        (root / "image" / other / "eval_records.jsonl").unlink()
    board = build_leaderboard(root)
    assert board.weights["image"].weight == sum(line["difficulty_weight"] for line in lines) < 602
    overridden = build_leaderboard(root, weight_overrides={"image": 602.0})
    assert overridden.weights["image"].weight == 602.0 and overridden.weights["image"].weight_from.startswith("given")


def test_display_names_and_bad_folders(tmp_path, sob_checkout, capsys):
    root = sob_checkout / "data/evaluation"
    names = tmp_path / "names.json"
    names.write_text(json.dumps({"_comment": "x", "phi-4": "Phi Four"}))
    assert main([str(root), "--output", str(tmp_path / "a.json"), "--display-names", str(names)]) == 0
    models = [row["model"] for row in json.loads((tmp_path / "a.json").read_text())["rows"]]
    assert "Phi Four" in models and "gemini-2.5-flash" in models  # no entry: the folder's name
    (tmp_path / "empty").mkdir()
    assert main([str(tmp_path / "empty"), "--output", str(tmp_path / "b.json")]) == 2
    assert "no model folders" in capsys.readouterr().err
    (root / "text/phi-4/eval_summary.json").write_text("{not json")
    assert main([str(root), "--output", str(tmp_path / "c.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "phi-4/eval_summary.json is not JSON" in err and len(err.splitlines()) == 1


@pytest.fixture
def hub(monkeypatch):
    fake = FakeHub()
    fake.start()
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_DISABLE_XET", True)
    monkeypatch.setenv("HF_TOKEN", fake.token)
    disable_progress_bars()
    yield fake
    fake.stop()


def test_the_leaderboard_is_pushed_beside_a_release_once(hub, scored_release, sob_checkout, tmp_path):
    publish_release(scored_release.path, REPO, endpoint=hub.endpoint, echo=lambda _: None)
    release_files = hub.files(REPO)
    files = {"leaderboard/leaderboard.json": b'{"rows": []}\n', "leaderboard/leaderboard.png": b"\x89PNG fake"}
    first = publish_files(files, REPO, message="Leaderboard", endpoint=hub.endpoint, echo=lambda _: None)
    assert first.status == "published" and set(first.changed) == set(files)
    now = hub.files(REPO)
    assert {path: now[path] for path in release_files} == release_files  # the release is untouched
    assert now["leaderboard/leaderboard.json"] == files["leaderboard/leaderboard.json"]
    commits = len(hub.repo(REPO).commits)
    again = publish_files(files, REPO, message="Leaderboard", endpoint=hub.endpoint, echo=lambda _: None)
    assert again.status == "unchanged" and len(hub.repo(REPO).commits) == commits  # nothing committed twice
    # and through the command, to a folder target
    out = tmp_path / "hub-preview"
    args = [str(sob_checkout / "data/evaluation"), "--output", str(tmp_path / "lb.json"), "--push", str(out)]
    assert main(args) == 0
    pushed = json.loads((out / "leaderboard/leaderboard.json").read_text())
    assert [row["model"] for row in pushed["rows"]][0] == "Gemini-2.5-Flash" and "generated_at" not in pushed
    assert (out / "leaderboard/leaderboard.md").is_file() and (out / "leaderboard/leaderboard.png").is_file()
