"""A release says how its rows were judged: heuristic-only releases are refused unless asked for, and the
judge and threshold in the card and manifest are those the rows got."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from build_split.cli import main
from core.store import Store


def _manifest(ws: Path, version: str) -> dict:
    return json.loads((ws / "releases" / "default" / version / "manifest.json").read_text())


def test_a_heuristic_only_release_is_refused_with_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    assert main(["--source", "hotpotqa", "--sample", "--workspace", str(ws), "--release", "0.1.0"]) == 2
    err = capsys.readouterr().err
    assert "release 0.1.0 refused" in err and "--allow-unreviewed" in err and "--judge gemini" in err
    assert not (ws / "releases" / "default" / "0.1.0").exists()
    with Store.open(ws) as store:  # nothing is lost: the records stay accepted for a later judge
        assert store.state_counts("hotpotqa")["accepted"] == 6


def test_an_allowed_unreviewed_release_says_so_in_card_and_manifest(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    assert (
        main(["--source", "hotpotqa", "--sample", "--workspace", str(ws), "--release", "0.1.0", "--allow-unreviewed"])
        == 0
    )
    manifest = _manifest(ws, "0.1.0")
    assert manifest["review"]["status"] == "heuristic-only"
    assert manifest["review"]["unreviewed_rows"] == manifest["num_records"] == 6
    assert manifest["judge"]["name"] == "heuristic"
    card = (ws / "releases" / "default" / "0.1.0" / "README.md").read_text()
    assert "**Review: heuristic-only.**" in card


def test_a_changed_threshold_is_applied_to_the_stored_scores(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    base = ["--source", "hotpotqa", "--sample", "--workspace", str(ws), "--allow-unreviewed"]
    assert main([*base, "--release", "0.1.0"]) == 0
    assert main([*base, "--threshold", "90", "--release", "0.2.0"]) == 0
    manifest = _manifest(ws, "0.2.0")
    assert manifest["judge"]["threshold"] == 90
    assert manifest["review"]["thresholds"] == {"90": manifest["num_records"]}
    assert manifest["num_records"] < _manifest(ws, "0.1.0")["num_records"]
    import pyarrow.parquet as pq

    for file in (ws / "releases" / "default" / "0.2.0").rglob("*.parquet"):
        for scores in pq.read_table(file).column("judge_scores").to_pylist():
            assert min(json.loads(scores).values()) >= 90
    # And back down: records rejected only for their scores are accepted again.
    assert main([*base, "--threshold", "60", "--release", "0.3.0"]) == 0
    assert _manifest(ws, "0.3.0")["num_records"] == _manifest(ws, "0.1.0")["num_records"]


def test_the_card_and_manifest_report_curation_numbers(tmp_path: Path) -> None:
    from scoring.flags import save_flags

    ws = tmp_path / "ws"
    base = ["--source", "hotpotqa", "--sample", "--workspace", str(ws), "--allow-unreviewed"]
    assert main([*base, "--release", "0.1.0"]) == 0
    with Store.open(ws) as store:
        accepted = [item.record.record_id for item in store.records("hotpotqa", ["accepted"])]
        save_flags(store.con, "suspect", "hotpotqa", {accepted[0]: {"models": ["a", "b", "c"]}, "gone": {}})
    assert main([*base, "--release", "0.2.0"]) == 0  # same rows: 0.2.0 is written with the flag counted
    manifest = _manifest(ws, "0.2.0")
    numbers = manifest["curation"]
    assert numbers["records"] == manifest["num_records"] and numbers["suspect_flags"] == 1
    assert numbers["output_budget"]["over_budget"] == 0 and numbers["output_budget"]["max_tokens"] > 0
    card = (ws / "releases" / "default" / "0.2.0" / "README.md").read_text()
    assert "## Curation numbers" in card and "1 records are suspects" in card
