"""Releases are ordinary Hugging Face datasets: every card loads with `huggingface_hub.DatasetCard.load`, its
`dataset_info` declares the features that `load_dataset` yields (nothing inferred) and the sizes the Hub means,
the data files carry the `huggingface` features metadata `datasets` writes, and a card the Hub or `datasets`
would misread is refused with a reason."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest
from huggingface_hub import DatasetCard

from exports.card import CardError, validate_card
from exports.columns import arrow_schema
from exports.features import release_features
from exports.hub import ConfigRelease, build_readme, release_dataset_info
from exports.release import write_release

datasets.disable_progress_bars()
SOURCES = {"default": "hotpotqa", "image": "olmocr", "audio": "ami"}


@pytest.fixture(scope="module")
def one_release_per_config(tmp_path_factory) -> dict[str, Path]:
    from core.store import Store
    from tests.exports.conftest import JUDGE, add_records

    workspace = tmp_path_factory.mktemp("configs") / "ws"
    with Store.open(workspace) as store:
        paths = {}
        for config, source in SOURCES.items():
            add_records(store, source, range(8), rejected=range(8, 10))
            paths[config] = write_release(store, source, "1.0.0", workspace, **JUDGE).path
    return paths


def manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("config", list(SOURCES))
def test_every_card_loads_and_declares_what_load_dataset_yields(one_release_per_config, tmp_path, config):
    folder = one_release_per_config[config]
    card = DatasetCard.load(folder / "README.md")  # parses and checks the YAML the way the Hub does
    validate_card(card.content)
    assert str(card) == (folder / "README.md").read_text(encoding="utf-8")  # written by huggingface_hub, as is
    [info] = [card.data.dataset_info] if isinstance(card.data.dataset_info, dict) else card.data.dataset_info
    declared = datasets.Features._from_yaml_list(info["features"])
    assert declared == release_features(SOURCES[config])
    assert list(declared) == arrow_schema(SOURCES[config]).names  # the public column order, unchanged

    loaded = datasets.load_dataset(str(folder), config, cache_dir=str(tmp_path / "cache"))
    splits = {name: n for name, n in manifest(folder)["splits"].items() if n}
    assert {name: part.num_rows for name, part in loaded.items()} == splits
    for part in loaded.values():
        assert part.features == declared  # exactly the declared features
    assert loaded[next(iter(splits))].info.config_name == config


@pytest.mark.parametrize("config", list(SOURCES))
def test_data_files_carry_the_features_metadata_datasets_writes(one_release_per_config, config):
    folder = one_release_per_config[config]
    for name in manifest(folder)["files"]:
        schema = pq.read_schema(folder / name)
        assert b"huggingface" in schema.metadata
        assert datasets.Features.from_arrow_schema(schema) == release_features(SOURCES[config])
        assert json.loads(schema.metadata[b"huggingface"]) == json.loads(
            release_features(SOURCES[config]).arrow_schema.metadata[b"huggingface"]
        )


def test_sizes_have_the_hubs_meaning(one_release_per_config, tmp_path):
    folder = one_release_per_config["default"]
    files = manifest(folder)["files"]
    info = DatasetCard.load(folder / "README.md").data.dataset_info
    by_split = {f["split"]: (name, f) for name, f in files.items()}
    for split in info["splits"]:
        name, file = by_split[split["name"]]
        computed = datasets.load_dataset(
            "parquet", data_files={"x": str(folder / name)}, split="x", cache_dir=str(tmp_path / "c")
        )
        assert split["num_bytes"] == computed.info.splits["x"].num_bytes == file["num_bytes"]  # the Arrow size
        assert split["num_examples"] == file["rows"]
    listed = [by_split[s["name"]][0] for s in info["splits"]]
    assert info["download_size"] == sum((folder / name).stat().st_size for name in listed)  # the Parquet files
    assert info["dataset_size"] == sum(s["num_bytes"] for s in info["splits"])
    assert info["dataset_size"] != info["download_size"]


def test_the_merged_readme_keeps_every_configs_dataset_info(one_release_per_config, tmp_path):
    readme, published = None, {}
    for config in ("image", "default", "audio"):  # published in any order
        folder = one_release_per_config[config]
        published[config] = ConfigRelease.of(folder, manifest(folder))
        readme = build_readme(readme, published)
        (tmp_path / "README.md").write_text(readme, encoding="utf-8")
        card = DatasetCard.load(tmp_path / "README.md")  # every intermediate README is a valid card
        validate_card(card.content)
        assert str(card) == readme
    infos = {i["config_name"]: i for i in card.data.dataset_info}
    assert list(infos) == ["default", "image", "audio"]
    for config, folder in one_release_per_config.items():
        assert infos[config] == release_dataset_info(folder)
        entry = next(c for c in card.data.configs if c["config_name"] == config)
        names = {Path(name).name for name in manifest(folder)["files"]}
        assert {Path(f["path"]).name for f in entry["data_files"]} <= names  # content-addressed, no glob
        assert all(f["path"].startswith(f"data/{config}/") for f in entry["data_files"])


def test_a_legacy_single_dataset_info_is_kept_for_its_config(one_release_per_config):
    folder = one_release_per_config["image"]
    legacy = (
        "---\nconfigs:\n- config_name: default\n  data_files:\n  - split: train\n"
        "    path: data/default/train-*.parquet\n"
        "dataset_info:\n  features:\n  - name: record_id\n    dtype: string\n  splits:\n  - name: train\n"
        "    num_bytes: 10\n    num_examples: 1\nannotations_creators:\n- expert-generated\n---\n\nhand-written text\n"
    )
    readme = build_readme(legacy, {"image": ConfigRelease.of(folder, manifest(folder))})
    card = DatasetCard(readme)
    infos = {i["config_name"]: i for i in card.data.dataset_info}
    assert infos["default"]["splits"] == [{"name": "train", "num_bytes": 10, "num_examples": 1}]
    assert infos["image"] == release_dataset_info(folder)
    assert [c["config_name"] for c in card.data.configs] == ["default", "image"]
    assert card.data.annotations_creators == ["expert-generated"]  # a key added by hand is kept
    assert "hand-written text" not in readme  # the text is the toolkit's, written anew


@pytest.mark.parametrize(
    ("yaml_text", "reason"),
    [
        ("configs: [oops\n", "does not parse"),
        ("configs:\n- data_files: data/x.parquet\n", "does not parse"),
        (
            "configs:\n- config_name: default\n  data_files:\n  - split: train\n    path: data/t.parquet\n"
            "dataset_info:\n- config_name: other\n  features:\n  - name: a\n    dtype: string\n",
            "which its `configs` do not list",
        ),
        (
            "configs:\n- config_name: default\n  data_files:\n  - split: train\n    path: data/t.parquet\n"
            "dataset_info:\n- config_name: default\n  splits:\n  - name: train\n    num_examples: 1\n",
            "declares no features",
        ),
        (
            "configs:\n- config_name: default\n  data_files:\n  - split: train\n    path: data/t.parquet\n"
            "dataset_info:\n- config_name: default\n  features:\n  - name: a\n    dtype: string\n"
            "  splits:\n  - name: test\n    num_examples: 1\n",
            "differ from its data files",
        ),
    ],
)
def test_a_card_the_hub_or_datasets_would_misread_is_refused(yaml_text, reason):
    with pytest.raises(CardError, match=reason):
        validate_card(f"---\n{yaml_text}---\n\nbody\n")
