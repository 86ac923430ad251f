"""A package outside the toolkit adds a fourth source through the entry point and builds a release with it.

tests/data/plugin_source/ holds the package (`sob_recipes_source`) and its installed metadata
(`sob_recipes_source-0.1.0.dist-info/entry_points.txt`): putting the folder on the path is what `pip install`
would do. The CLI runs in a subprocess, so the registry reads the entry points as a user's run would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import datasets
import pytest

from core.sources import reload_registry, source_names

REPO = Path(__file__).resolve().parents[2]
PLUGIN = REPO / "tests" / "data" / "plugin_source"


def run_cli(*args: str, plugin: bool = True) -> subprocess.CompletedProcess[str]:
    path = [str(PLUGIN)] if plugin else []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*path, str(REPO)])}
    return subprocess.run(
        [sys.executable, "-m", "build_split", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )


def test_the_plugin_source_builds_a_release(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    proc = run_cli(
        "--source", "recipes", "--sample", "--release", "0.1.0", "--allow-unreviewed", "--workspace", str(ws)
    )
    assert proc.returncode == 0, proc.stderr
    release = ws / "releases" / "recipes" / "0.1.0"
    rows = datasets.load_dataset(str(release), split="train", cache_dir=str(tmp_path / "hf"))
    assert rows.num_rows == 2
    assert sorted(rows["cuisine"]) == ["british", "moroccan"]  # the source's own release column
    manifest = json.loads((release / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["source"] == "recipes" and manifest["config"] == "recipes"
    card = (release / "README.md").read_text(encoding="utf-8")
    assert "Contexts are recipe cards" in card and "the recipe's cuisine" in card  # its card section and columns
    # The card's rejected row of the sample (a card without text) is kept with its reason.
    assert "no_text" in run_cli("--source", "recipes", "--workspace", str(ws), "--status").stdout


def test_the_plugin_adds_its_choice_and_its_options() -> None:
    help_text = run_cli("--help").stdout
    assert "recipes" in help_text and "--cuisine" in help_text
    proc = run_cli("--source", "hotpotqa", "--sample", "--cuisine", "british", "--workspace", "unused")
    assert proc.returncode == 2 and "--cuisine: only applies with --source recipes" in proc.stderr


def test_the_stages_ask_the_plugin_source(monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process, with the package on the path: the judge, drafts and Label Studio get what the source says."""
    from annotation_ui_config import label_config
    from authoring.drafts import draft_user_prompt
    from core.models import SourceItem
    from judge.llm_judge import reply_model
    from judge.rubric import dimensions_for

    monkeypatch.syspath_prepend(str(PLUGIN))
    reload_registry()
    try:
        assert source_names()[-1] == "recipes"  # after the built-ins
        assert "cookability" in dimensions_for("recipes")
        assert "<View" in label_config("recipes")
        item = SourceItem(source="recipes", source_id="r9", context="Toast: toast the bread for 2 minutes.")
        assert '"Toast: toast the bread for 2 minutes."' in draft_user_prompt(item)

        assert "cookability" in reply_model("recipes").model_fields
    finally:
        monkeypatch.undo()
        reload_registry()
    assert "recipes" not in source_names()


def test_without_the_package_the_source_is_unknown() -> None:
    assert "recipes" not in source_names()  # this process never put the package on its path
    proc = run_cli("--source", "recipes", "--sample", plugin=False)
    assert proc.returncode == 2 and "invalid choice: 'recipes'" in proc.stderr


def test_a_broken_source_package_is_reported_and_the_others_work(tmp_path: Path) -> None:
    info = tmp_path / "broken_source-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-source\nVersion: 0.1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[sob_curation_toolkit.sources]\nbroken = no_such_module:SOURCE\nBad-Name = json:loads\n", encoding="utf-8"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)])}
    proc = subprocess.run(
        [sys.executable, "-m", "build_split", "--help"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0 and "{hotpotqa,olmocr,ami,documents}" in proc.stdout
    assert "source 'broken' (no_such_module:SOURCE) cannot be loaded" in proc.stderr
    assert "entry point 'Bad-Name' = json:loads is not a core.sources.Source" in proc.stderr
