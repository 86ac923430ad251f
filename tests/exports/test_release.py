"""End-to-end tests of `write_release`: data files, card, manifest, idempotence, stickiness, crashes."""

from __future__ import annotations

import hashlib
import json

import datasets
import pyarrow.parquet as pq
import pytest
import yaml

import exports.card
import exports.splits
from core.models import Reason, RecordState
from core.sources import get_source
from core.store import StateChange
from exports import (
    EmptyReleaseError,
    InvalidVersionError,
    ReleaseExistsError,
    arrow_schema,
    column_names,
    compute_split,
    write_release,
)
from exports.card import validate_card
from exports.features import release_features

datasets.disable_progress_bars()


def load(release_dir, tmp_path, **kwargs):
    return datasets.load_dataset(str(release_dir), cache_dir=str(tmp_path / "hf-datasets"), **kwargs)


def front_matter(card: str) -> dict:
    assert card.startswith("---\n")
    return yaml.safe_load(card.split("---\n", 2)[1])


def data_file(release, split):
    """The one data file of a split (its name carries its content's SHA-256)."""
    (path,) = (release / "data").glob(f"{split}-*.parquet")
    return path


def tree_bytes(folder) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_release_round_trip(store, workspace, tmp_path, factory, judge_kwargs):
    accepted = factory.add_records(store, "hotpotqa", range(60), rejected=range(60, 66))
    store.add_import_rejections(
        "hotpotqa", "batch.jsonl", [(3, "{oops", [Reason(stage="import", code="bad_json", message="x")])]
    )

    result = write_release(store, "hotpotqa", "1.0.0", workspace, **judge_kwargs)

    assert result.status == "written"
    assert result.path == workspace / "releases" / "default" / "1.0.0"
    expected = {
        s: sum(compute_split(r.record_id, "default") == s for r in accepted) for s in ("train", "validation", "test")
    }
    assert result.counts == expected and result.total == 60
    assert all(expected.values()), expected  # the fixture ids land in every split
    data_files = sorted((result.path / "data").iterdir())
    # content-addressed names: a data file is named after its content's SHA-256
    assert [(p.name.split("-")[0], p.name.split("-")[1]) for p in data_files] == [
        (split, hashlib.sha256(p.read_bytes()).hexdigest()[:16] + ".parquet")
        for split, p in zip(("test", "train", "validation"), data_files, strict=True)
    ]
    assert not list(result.path.parent.glob(".tmp-*"))

    ds = load(result.path, tmp_path)
    assert set(ds) == {"train", "validation", "test"}
    by_id = {r.record_id: r for r in accepted}
    for split, part in ds.items():
        assert part.column_names == column_names("hotpotqa")
        assert part.column_names[:9] == [
            "record_id", "context", "question", "json_schema", "ground_truth", "validated_output",
            "question_difficulty", "schema_complexity", "source_id",
        ]  # fmt: skip
        assert part.column_names[9:] == [
            "answer",
            "type",
            "level",
            "annotator",
            "draft_model",
            "judge",
            "judge_scores",
            "grounded_fraction",
        ]
        assert len(part) == expected[split]
        ids = part["record_id"]
        assert ids == sorted(ids)
        for row in part:
            record = by_id[row["record_id"]]
            assert compute_split(row["record_id"], "default") == split
            assert json.loads(row["ground_truth"]) == record.output.ground_truth
            assert json.loads(row["json_schema"]) == record.input.json_schema
            assert "Zürich" in row["ground_truth"]  # ensure_ascii=False
            assert row["validated_output"] is None
            assert json.loads(row["judge_scores"])["faithfulness"] == 90
            assert row["answer"] == record.metadata.extra["answer"]
            assert row["type"] in {"bridge", "comparison"} and row["level"] == "hard"
            assert row["schema_complexity"] in {"easy", "medium", "hard"}
            assert row["judge"] == "heuristic" and row["annotator"] == "curator-a"
            assert row["grounded_fraction"] in {0.5, 1.0}
    test_only = load(result.path, tmp_path, split="test")
    assert len(test_only) == expected["test"]

    card = (result.path / "README.md").read_text(encoding="utf-8")
    meta = front_matter(card)
    files = json.loads((result.path / "manifest.json").read_text())["files"]
    assert meta["license"] == "cc-by-sa-4.0"
    file_of = {info["split"]: name for name, info in files.items()}
    assert meta["configs"] == [
        {
            "config_name": "default",
            "data_files": [{"split": split, "path": file_of[split]} for split in ("train", "validation", "test")],
        }
    ]
    info = meta["dataset_info"]
    assert [(s["name"], s["num_examples"]) for s in info["splits"]] == list(expected.items())
    assert datasets.Features._from_yaml_list(info["features"]) == release_features("hotpotqa")
    for split_info in info["splits"]:  # num_bytes: the split's Arrow size, as `datasets` computes it
        path = str(result.path / file_of[split_info["name"]])
        plain = load("parquet", tmp_path, data_files={"x": path}, split="x")
        assert split_info["num_bytes"] == plain.info.splits["x"].num_bytes
    assert info["dataset_size"] == sum(s["num_bytes"] for s in info["splits"])
    assert info["download_size"] == sum((result.path / name).stat().st_size for name in files)
    validate_card(card)
    assert meta["pretty_name"] and "question-answering" in meta["task_categories"]
    for text in ("ground_truth_invalid", "faithfulness_below_threshold", "bad_json", "heuristic", "**60**"):
        assert text in card, text
    assert "regex word-piece approximation" in card or "all-MiniLM-L6-v2 (Hugging Face" in card
    assert "HotpotQA" in card and "CC BY-SA 4.0" in card

    manifest = json.loads((result.path / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["version"] == "1.0.0" and manifest["parent_version"] is None
    assert manifest["config"] == "default" and manifest["source"] == "hotpotqa"
    assert manifest["splits"] == expected and manifest["num_records"] == 60
    assert manifest["judge"] == {"name": "heuristic", "version": "rubric-1", "threshold": 60}
    assert manifest["toolkit_version"] == "0.1.0" and manifest["tokenizer"]
    for name, info in manifest["files"].items():
        assert hashlib.sha256((result.path / name).read_bytes()).hexdigest() == info["sha256"]
    ids = "".join(f"{rid}\n" for rid in sorted(by_id))
    assert manifest["record_ids_sha256"] == hashlib.sha256(ids.encode()).hexdigest()
    funnel = manifest["funnel"]
    assert funnel["source_items_loaded"] == 66 and funnel["records_authored"] == 66
    assert funnel["import_lines_rejected"] == 1
    assert funnel["states"] == {"accepted": 60, "rejected": 6}
    assert {(r["stage"], r["code"]): r["records"] for r in funnel["rejections"]} == {
        ("validation", "ground_truth_invalid"): 3,
        ("judge", "faithfulness_below_threshold"): 3,
        ("import", "bad_json"): 1,
    }
    stats = manifest["statistics"]
    assert stats["overall"]["records"] == 60 and stats["overall"]["with_complexity"] == 60
    assert stats["overall"]["share_medium"] == pytest.approx(1 / 3, abs=1e-3)
    assert stats["splits"]["test"]["records"] == expected["test"]
    assert store.split_assignments("default") == {rid: compute_split(rid, "default") for rid in by_id}


def test_rewrite_is_unchanged_and_deterministic(store, workspace, factory, judge_kwargs):
    factory.add_records(store, "hotpotqa", range(30))
    first = write_release(store, "hotpotqa", "1.0.0", workspace, **judge_kwargs)
    before = tree_bytes(first.path)

    again = write_release(store, "hotpotqa", "1.0.0", workspace, **judge_kwargs)
    assert again.status == "unchanged" and again.counts == first.counts and again.path == first.path
    assert tree_bytes(first.path) == before  # nothing rewritten, manifest's created_at included

    # Same records under another version: byte-identical data files, written afresh.
    other = write_release(store, "hotpotqa", "1.0.1", workspace, **judge_kwargs)
    assert other.status == "written" and other.parent == "1.0.0"
    data = {k: v for k, v in tree_bytes(other.path).items() if k.startswith("data/")}
    assert data == {k: v for k, v in before.items() if k.startswith("data/")}


def test_changed_records_under_same_version_is_refused(store, workspace, factory, judge_kwargs):
    factory.add_records(store, "hotpotqa", range(20))
    first = write_release(store, "hotpotqa", "1.0.0", workspace, **judge_kwargs)
    before = tree_bytes(first.path)
    factory.add_records(store, "hotpotqa", range(20, 25))

    with pytest.raises(ReleaseExistsError, match="choose a new version"):
        write_release(store, "hotpotqa", "1.0.0", workspace, **judge_kwargs)
    assert tree_bytes(first.path) == before
    assert not list(first.path.parent.glob(".tmp-*"))


def test_split_assignments_are_sticky(store, workspace, monkeypatch, factory, judge_kwargs):
    factory.add_records(store, "hotpotqa", range(40))
    first = write_release(store, "hotpotqa", "1.0.0", workspace, **judge_kwargs)
    test_ids = set(pq.read_table(data_file(first.path, "test"))["record_id"].to_pylist())
    assert test_ids

    # Even if the formula changes (everything to train), released records keep their split.
    monkeypatch.setattr(get_source("hotpotqa"), "splits", (("train", 100), ("validation", 0), ("test", 0)))
    new = factory.add_records(store, "hotpotqa", range(40, 60), tag="b")
    second = write_release(store, "hotpotqa", "1.1.0", workspace, **judge_kwargs)

    assert second.parent == "1.0.0" and second.new_split_assignments == 20
    test_now = set(pq.read_table(data_file(second.path, "test"))["record_id"].to_pylist())
    assert test_now == test_ids
    train_now = set(pq.read_table(data_file(second.path, "train"))["record_id"].to_pylist())
    assert {r.record_id for r in new} <= train_now
    manifest = json.loads((second.path / "manifest.json").read_text())
    assert manifest["parent_version"] == "1.0.0"


@pytest.mark.parametrize("bad", ["v1.0.0", "1.0", "1.0.0-rc1", "01.0.0", "1.0.0 ", "", "latest"])
def test_invalid_version_is_a_clear_error(store, workspace, bad, factory, judge_kwargs):
    factory.add_records(store, "hotpotqa", range(3))
    with pytest.raises(InvalidVersionError, match="MAJOR.MINOR.PATCH"):
        write_release(store, "hotpotqa", bad, workspace, **judge_kwargs)
    assert not (workspace / "releases").exists()


def test_crash_mid_write_leaves_no_release(store, workspace, monkeypatch, factory, judge_kwargs):
    factory.add_records(store, "hotpotqa", range(10))
    stale = workspace / "releases" / "default" / ".tmp-0.9.0-crashed"
    (stale / "data").mkdir(parents=True)
    (stale / "data" / ".train.parquet.partial").write_bytes(b"half")

    def boom(**kwargs):
        raise RuntimeError("disk full while rendering the card")

    monkeypatch.setattr(exports.card, "render_card", boom)
    with pytest.raises(RuntimeError, match="disk full"):
        write_release(store, "hotpotqa", "1.0.0", workspace, **judge_kwargs)
    config_dir = workspace / "releases" / "default"
    assert list(config_dir.iterdir()) == []  # no release, no temp folder, stale one cleaned
    assert store.split_assignments("default") == {}  # nothing made sticky by a failed release

    monkeypatch.undo()
    result = write_release(store, "hotpotqa", "1.0.0", workspace, **judge_kwargs)
    assert result.status == "written" and result.total == 10
    assert [p.name for p in config_dir.iterdir()] == ["1.0.0"]


def test_a_failed_parquet_write_fails_the_release(store, workspace, monkeypatch, factory, judge_kwargs):
    """Parquet is written on a background thread: its error still reaches the caller, and nothing is left."""
    factory.add_records(store, "hotpotqa", range(10))

    def boom(self, table, row_group_size=None):
        raise OSError("disk full while writing parquet")

    monkeypatch.setattr(pq.ParquetWriter, "write_table", boom)
    with pytest.raises(OSError, match="disk full while writing parquet"):
        write_release(store, "hotpotqa", "1.0.0", workspace, **judge_kwargs)
    assert list((workspace / "releases" / "default").iterdir()) == []
    assert store.split_assignments("default") == {}


def test_an_unreadable_accepted_record_is_set_aside_not_released(store, workspace, factory, judge_kwargs):
    """The release reads stored JSON without the Record model; a record the model cannot read back is still
    set aside (rejected as unreadable) and left out, as any stage reading it would."""
    records = factory.add_records(store, "hotpotqa", range(10))
    broken = records[4].record_id
    text = store.con.execute("SELECT record FROM records WHERE record_id = ?", [broken]).fetchone()[0]
    data = json.loads(text)
    data["output"]["ground_truth"] = "not an object"
    store.con.execute("UPDATE records SET record = ? WHERE record_id = ?", [json.dumps(data), broken])
    result = write_release(store, "hotpotqa", "1.0.0", workspace, **judge_kwargs)
    assert result.total == 9
    released = {
        rid for path in (result.path / "data").glob("*.parquet") for rid in pq.read_table(path)["record_id"].to_pylist()
    }
    assert broken not in released and len(released) == 9
    [(record_id, _, reasons)] = store.unreadable_records("hotpotqa")
    assert record_id == broken and reasons[0].code == "unreadable_record"


def test_empty_splits_keep_their_columns(store, workspace, tmp_path, monkeypatch, factory, judge_kwargs):
    monkeypatch.setattr(get_source("hotpotqa"), "splits", (("train", 100), ("validation", 0), ("test", 0)))
    factory.add_records(store, "hotpotqa", range(5))
    result = write_release(store, "hotpotqa", "1.0.0", workspace, **judge_kwargs)
    assert result.counts == {"train": 5, "validation": 0, "test": 0}
    empty = pq.read_table(data_file(result.path, "test"))
    assert empty.num_rows == 0 and empty.schema.equals(arrow_schema("hotpotqa"))
    assert str(empty.schema.field("grounded_fraction").type) == "double"
    # `datasets` cannot load a split without rows, so the card lists only the others and the
    # config still loads.
    card = (result.path / "README.md").read_text(encoding="utf-8")
    train = f"data/{data_file(result.path, 'train').name}"
    assert front_matter(card)["configs"][0]["data_files"] == [{"split": "train", "path": train}]
    assert [s["name"] for s in front_matter(card)["dataset_info"]["splits"]] == ["train"]
    assert "`validation`, `test` are empty in this version" in card
    ds = load(result.path, tmp_path)
    assert list(ds) == ["train"] and ds["train"].column_names == column_names("hotpotqa")
    assert ds["train"].features["grounded_fraction"].dtype == "float64"


def test_image_and_audio_configs(store, workspace, factory, judge_kwargs):
    factory.add_records(store, "olmocr", range(9))
    factory.add_records(store, "ami", range(4))
    image = write_release(store, "olmocr", "1.0.0", workspace, **judge_kwargs)
    audio = write_release(store, "ami", "1.0.0", workspace, **judge_kwargs)

    assert image.path == workspace / "releases" / "image" / "1.0.0" and image.counts == {"train": 9}
    assert audio.path == workspace / "releases" / "audio" / "1.0.0" and audio.counts == {"train": 4}
    assert [p.name for p in (image.path / "data").iterdir()] == [data_file(image.path, "train").name]

    image_table_name = data_file(image.path, "train").name
    image_table = pq.read_table(data_file(image.path, "train"))
    assert image_table.column_names == column_names("olmocr")
    assert image_table.column_names[9:11] == ["source_pdf", "source_category"]
    audio_table = pq.read_table(data_file(audio.path, "train"))
    assert audio_table.column_names[9:11] == ["meeting_id", "num_speakers"]
    assert str(audio_table.schema.field("num_speakers").type) == "int64"
    assert sorted(audio_table["num_speakers"].to_pylist()) == [3, 3, 4, 4]

    image_card = (image.path / "README.md").read_text(encoding="utf-8")
    meta = front_matter(image_card)
    assert meta["license"] == "odc-by"
    [entry] = meta["configs"]
    assert entry == {"config_name": "image", "data_files": [{"split": "train", "path": f"data/{image_table_name}"}]}
    assert [(s["name"], s["num_examples"]) for s in meta["dataset_info"]["splits"]] == [("train", 9)]
    assert "| academic | 6 |" in image_card and "| legal | 3 |" in image_card
    assert json.loads((image.path / "manifest.json").read_text())["statistics"]["source_categories"] == {
        "academic": 6,
        "legal": 3,
    }
    assert front_matter((audio.path / "README.md").read_text(encoding="utf-8"))["license"] == "cc-by-4.0"


def test_parent_defaults_to_highest_lower_version(store, workspace, factory, judge_kwargs):
    factory.add_records(store, "hotpotqa", range(5))
    write_release(store, "hotpotqa", "1.0.0", workspace, **judge_kwargs)
    write_release(store, "hotpotqa", "2.0.0", workspace, **judge_kwargs)
    assert write_release(store, "hotpotqa", "1.10.0", workspace, **judge_kwargs).parent == "1.0.0"
    assert write_release(store, "hotpotqa", "2.0.1", workspace, **judge_kwargs).parent == "2.0.0"
    assert write_release(store, "hotpotqa", "3.0.0", workspace, parent="1.0.0", **judge_kwargs).parent == "1.0.0"
    with pytest.raises(ValueError, match="lower"):
        write_release(store, "hotpotqa", "3.1.0", workspace, parent="3.1.0", **judge_kwargs)


def test_nothing_accepted_is_refused(store, workspace, factory, judge_kwargs):
    factory.add_records(store, "hotpotqa", range(0), rejected=range(3))
    with pytest.raises(EmptyReleaseError, match="no accepted"):
        write_release(store, "hotpotqa", "1.0.0", workspace, **judge_kwargs)
    assert list((workspace / "releases" / "default").iterdir()) == []


def test_only_accepted_records_are_released(store, workspace, factory, judge_kwargs):
    accepted = factory.add_records(store, "hotpotqa", range(8))
    store.apply([StateChange(accepted[0].record_id, RecordState.NEEDS_REVISION, "curator")])
    result = write_release(store, "hotpotqa", "1.0.0", workspace, **judge_kwargs)
    released = set()
    for path in (result.path / "data").iterdir():
        released |= set(pq.read_table(path)["record_id"].to_pylist())
    assert released == {r.record_id for r in accepted[1:]}


def test_small_releases_fill_every_split_and_stay_sticky(store, workspace, tmp_path, factory, judge_kwargs):
    factory.add_records(store, "hotpotqa", range(4))
    first = write_release(store, "hotpotqa", "1.0.0", workspace, **judge_kwargs)
    assert all(first.counts.values()), first.counts  # the formula alone would leave a split empty
    for split in ("train", "validation", "test"):
        assert load(first.path, tmp_path, split=split).num_rows >= 1
    before = store.split_assignments("default")
    factory.add_records(store, "hotpotqa", range(4, 30))
    write_release(store, "hotpotqa", "1.1.0", workspace, **judge_kwargs)
    after = store.split_assignments("default")
    assert {rid: after[rid] for rid in before} == before
