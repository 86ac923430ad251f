"""A release folder loads as itself: two workspaces each with their own `releases/default/1.0.0` (different
rows) never return each other's rows, through `datasets.load_dataset` and through `exports.load`."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from types import SimpleNamespace

import datasets
import pytest
import yaml
from huggingface_hub import DatasetCard

from core.store import Store
from exports.features import release_features
from exports.load import load_release
from exports.release import ReleaseError, write_release


def two_releases_of_one_version(tmp_path: Path, factory: SimpleNamespace, judge_kwargs: dict) -> list[Path]:
    folders = []
    for name, accepted in (("a", range(0, 12)), ("b", range(100, 103))):
        workspace = tmp_path / name / "ws"
        with Store.open(workspace) as store:
            factory.add_records(store, "hotpotqa", accepted, tag=name)
            folders.append(write_release(store, "hotpotqa", "1.0.0", workspace, **judge_kwargs).path)
    return folders


def manifest_splits(folder: Path) -> dict[str, int]:
    return {k: v for k, v in json.loads((folder / "manifest.json").read_text())["splits"].items() if v}


def test_two_releases_with_one_version_name_load_as_themselves(
    tmp_path: Path, factory: SimpleNamespace, judge_kwargs: dict
) -> None:
    first, second = two_releases_of_one_version(tmp_path, factory, judge_kwargs)
    assert manifest_splits(first) != manifest_splits(second)
    cache = str(tmp_path / "one-shared-cache")
    for folder in (first, second, first):
        loaded = datasets.load_dataset(str(folder), cache_dir=cache)
        assert {k: v.num_rows for k, v in loaded.items()} == manifest_splits(folder)
        assert all(row["source_id"].startswith(f"hotpotqa-{folder.parents[3].name}") for row in loaded["train"])
        for part in loaded.values():  # exactly the declared features, nothing inferred
            assert part.features == release_features("hotpotqa")
            assert part.features == datasets.Features._from_yaml_list(front_of(folder)["dataset_info"]["features"])
    front = front_of(second)
    assert {s["name"]: s["num_examples"] for s in front["dataset_info"]["splits"]} == manifest_splits(second)
    # the cache is kept apart by the data files' content-addressed names, not by a key of our own
    assert [set(c) for c in front["configs"]] == [{"config_name", "data_files"}]
    assert front_of(first)["configs"][0]["data_files"] != front["configs"][0]["data_files"]
    for folder in (first, second):
        assert {k: v.num_rows for k, v in load_release(folder, cache_dir=cache).items()} == manifest_splits(folder)
    test = load_release(second, split="test", cache_dir=cache)
    assert test.num_rows == manifest_splits(second)["test"]


def front_of(folder: Path) -> dict:
    return DatasetCard.load(folder / "README.md").data.to_dict()


def strip_to_an_old_card(folder: Path) -> None:
    """A release written before cards carried their sizes and data files were content-addressed (its
    manifest updated to match): `data/<split>-00000-of-00001.parquet`, found by a glob."""
    card, manifest_path = folder / "README.md", folder / "manifest.json"
    loaded = DatasetCard(card.read_text())
    front, body = loaded.data.to_dict(), loaded.text
    front.pop("dataset_info")
    for entry in front["configs"][0]["data_files"]:
        entry["path"] = f"data/{entry['split']}-*.parquet"
    text = "---\n" + yaml.safe_dump(front, sort_keys=False, allow_unicode=True) + "---\n" + body
    manifest = json.loads(manifest_path.read_text())
    manifest["card_sha256"] = hashlib.sha256(text.encode()).hexdigest()
    renamed = {}
    for name, info in manifest["files"].items():
        old = f"data/{info['split']}-00000-of-00001.parquet"
        (folder / name).rename(folder / old)
        renamed[old] = info
    manifest["files"] = renamed
    for path in (card, manifest_path):
        path.chmod(0o644)
    card.write_text(text)
    manifest_path.write_text(json.dumps(manifest, indent=2))


def test_the_loader_helper_never_returns_a_stale_cache(
    tmp_path: Path, factory: SimpleNamespace, judge_kwargs: dict
) -> None:
    first, second = two_releases_of_one_version(tmp_path, factory, judge_kwargs)
    for folder in (first, second):
        strip_to_an_old_card(folder)
    cache = str(tmp_path / "one-shared-cache")
    datasets.load_dataset(str(first), cache_dir=cache)
    stale = datasets.load_dataset(str(second), cache_dir=cache)  # what the issue saw with old cards
    assert {k: v.num_rows for k, v in stale.items()} == manifest_splits(first)
    loaded = load_release(second, cache_dir=cache)
    assert {k: v.num_rows for k, v in loaded.items()} == manifest_splits(second)


def test_the_loader_helper_refuses_a_modified_release(
    tmp_path: Path, factory: SimpleNamespace, judge_kwargs: dict
) -> None:
    first, second = two_releases_of_one_version(tmp_path, factory, judge_kwargs)
    (data,) = (first / "data").glob("test-*.parquet")
    data.chmod(0o644)
    data.write_bytes(data.read_bytes() + b"\0")
    with pytest.raises(ReleaseError, match="modified after it was written"):
        load_release(first, cache_dir=str(tmp_path / "cache"))
    with pytest.raises(ReleaseError, match="is not a release folder"):
        load_release(first.parent / "missing")
    with pytest.raises(ReleaseError, match="no rows in split 'dev'"):
        load_release(second, split="dev")
