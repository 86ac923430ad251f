"""Versions: the changelog between a release and its parent (manifest, card, `--diff`), sticky splits
across versions, and immutable release folders."""

from __future__ import annotations

import json
import shutil

import pyarrow.parquet as pq
import pytest

from build_split.cli import main
from exports.changelog import diff_releases, format_changelog
from exports.release import ReleaseError, verify_release, write_release


def manifest(path) -> dict:
    return json.loads((path / "manifest.json").read_text(encoding="utf-8"))


def ids_by_split(path) -> dict[str, set[str]]:
    return {
        p.name.split("-")[0]: set(pq.read_table(p, columns=["record_id"])["record_id"].to_pylist())
        for p in sorted((path / "data").glob("*.parquet"))
    }


def test_changelog_in_manifest_and_card(release_history):
    h = release_history
    first = manifest(h.paths["default-1.0.0"])["changelog"]
    assert first["first_release"] and first["totals"] == {"added": 30, "removed": 0, "changed": 0, "unchanged": 0}

    log = manifest(h.paths["default-1.1.0"])["changelog"]
    assert log["parent_version"] == "1.0.0" and not log["first_release"] and log["moved"] == []
    assert log["totals"] == {"added": 5, "removed": 1, "changed": 1, "unchanged": 28}
    for split, figures in log["splits"].items():
        assert set(figures["added_ids"]) == {rid for rid in h.added if h.splits[rid] == split}
        assert figures["added"] == len(figures["added_ids"])
        assert figures["removed_ids"] == ([h.withdrawn] if h.splits[h.withdrawn] == split else [])
        assert figures["changed_ids"] == ([h.edited] if h.splits[h.edited] == split else [])

    card = (h.paths["default-1.1.0"] / "README.md").read_text(encoding="utf-8")
    assert "## Changes in this version" in card and "Compared with release 1.0.0" in card
    assert "| **all** | 5 | 1 | 1 | 28 |" in card
    assert f"`{h.edited}`" in card and f"`{h.withdrawn}`" in card
    assert f"changed (1): `{h.edited}`" in card
    assert "First release: all 30 records are new." in (h.paths["default-1.0.0"] / "README.md").read_text()


def test_diff_of_any_two_local_releases(release_history):
    h = release_history
    config_dir = h.workspace / "releases" / "default"
    forward = diff_releases(config_dir, "hotpotqa", "1.0.0", "1.1.0")
    recorded = manifest(h.paths["default-1.1.0"])["changelog"]
    assert {k: v for k, v in forward.items() if k != "version"} == recorded

    back = diff_releases(config_dir, "hotpotqa", "1.1.0", "1.0.0")
    assert back["totals"] == {"added": 1, "removed": 5, "changed": 1, "unchanged": 28}
    for split in forward["splits"]:
        assert back["splits"][split]["added_ids"] == forward["splits"][split]["removed_ids"]
        assert sorted(back["splits"][split]["removed_ids"]) == sorted(forward["splits"][split]["added_ids"])
    text = format_changelog(forward)
    assert text.startswith("changes from 1.0.0 to 1.1.0") and f"~ {h.edited}" in text and f"- {h.withdrawn}" in text

    with pytest.raises(FileNotFoundError, match=r"no local release 9\.9\.9.*1\.0\.0, 1\.1\.0"):
        diff_releases(config_dir, "hotpotqa", "1.0.0", "9.9.9")


def test_cli_diff(release_history, capsys):
    h = release_history
    ws = str(h.workspace)
    assert main(["--source", "hotpotqa", "--workspace", ws, "--diff", "1.0.0", "1.1.0"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("default (hotpotqa): changes from 1.0.0 to 1.1.0")
    assert "total: 5 added, 1 removed, 1 changed, 28 unchanged" in out
    for rid in h.added:
        assert f"+ {rid}" in out
    assert f"- {h.withdrawn}" in out and f"~ {h.edited}" in out
    assert main(["--source", "hotpotqa", "--workspace", ws, "--diff", "1.0.0", "2.0.0"]) == 2
    assert "no local release 2.0.0" in capsys.readouterr().err
    assert main(["--source", "hotpotqa", "--workspace", ws, "--diff", "1.0", "1.1.0"]) == 2
    assert "MAJOR.MINOR.PATCH" in capsys.readouterr().err


def test_split_assignment_is_sticky_across_versions(release_history):
    old = ids_by_split(release_history.paths["default-1.0.0"])
    new = ids_by_split(release_history.paths["default-1.1.0"])
    for split, ids in old.items():
        for other, their_ids in new.items():
            if other != split:
                assert not ids & their_ids, f"records moved from {split} to {other}"
    assert old["test"] - {release_history.withdrawn} <= new["test"]


def test_releases_are_immutable(release_history, tmp_path):
    path = release_history.paths["default-1.1.0"]
    files = [p for p in path.rglob("*") if p.is_file()]
    assert {p.relative_to(path).as_posix() for p in files} >= {"README.md", "manifest.json", "plots/funnel.png"}
    assert all(not p.stat().st_mode & 0o222 for p in files)
    recorded = manifest(path)
    assert set(recorded["assets"]) == {
        "plots/funnel.png",
        "plots/judge_scores.png",
        "plots/schema_complexity.png",
        "plots/flags.png",
    }
    assert verify_release(path)["version"] == "1.1.0"

    copy = tmp_path / "1.1.0"
    shutil.copytree(path, copy)
    plot = copy / "plots" / "funnel.png"
    plot.chmod(0o644)
    plot.write_bytes(b"not a plot")
    with pytest.raises(ReleaseError, match="plots/funnel.png differs"):
        verify_release(copy)


def test_parent_not_in_the_workspace(store, workspace, factory, judge_kwargs):
    factory.add_records(store, "hotpotqa", range(6))
    result = write_release(store, "hotpotqa", "2.0.0", workspace, parent="1.5.0", **judge_kwargs)
    log = manifest(result.path)["changelog"]
    assert log["parent_version"] == "1.5.0" and not log["first_release"] and "not in this workspace" in log["note"]
    assert "Compared with release 1.5.0 (release 1.5.0 is not in this workspace" in (
        result.path / "README.md"
    ).read_text(encoding="utf-8")
