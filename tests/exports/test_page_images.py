"""`--with-page-images`: the olmOCR sample (OCR'd on the CPU path) released with its rendered pages as a
`page_image` column of `datasets` images; SOB's columns are unchanged without it, and a record whose page is
missing stops the release with the record named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest
from huggingface_hub import DatasetCard
from PIL import Image

from build_split.cli import main
from core.models import RecordState
from core.store import Store
from exports.columns import column_names
from exports.features import release_features
from tests.ci import missing as missing_part

datasets.disable_progress_bars()
BASE = ["--source", "olmocr", "--allow-unreviewed"]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    absent = [tool for tool in ("tesseract", "pdftoppm") if shutil.which(tool) is None]
    if absent:
        missing_part(f"the olmOCR sample needs {', '.join(absent)} (apt-get install -y poppler-utils tesseract-ocr)")
    ws = tmp_path_factory.mktemp("page-images") / "ws"
    assert main([*BASE, "--sample", "--workspace", str(ws), "--release", "0.1.0"]) == 0  # SOB's columns only
    assert main([*BASE, "--workspace", str(ws), "--release", "0.2.0", "--with-page-images"]) == 0
    return ws


def release(ws: Path, version: str) -> Path:
    return ws / "releases" / "image" / version


def pages_of_accepted_records(ws: Path) -> dict[str, list[bytes]]:
    """record id -> the PNG bytes of its pages, read from the workspace by the paths the store keeps."""
    with Store.open(ws) as store:
        records = [s.record for s in store.records("olmocr", [RecordState.ACCEPTED])]
    return {r.record_id: [(ws / p).read_bytes() for p in r.metadata.extra["page_images"]] for r in records}


def test_load_dataset_yields_the_rendered_pages_as_images(workspace, tmp_path):
    folder = release(workspace, "0.2.0")
    card = DatasetCard.load(folder / "README.md")
    declared = datasets.Features._from_yaml_list(card.data.dataset_info["features"])
    assert declared == release_features("olmocr", page_images=True)
    assert list(declared) == [*column_names("olmocr"), "page_image"]
    assert declared["page_image"] == datasets.List(datasets.Image())
    assert "| `page_image` | list of Image |" in card.text
    assert json.loads((folder / "manifest.json").read_text())["page_images"]["column"] == "page_image"

    rows = datasets.load_dataset(str(folder), "image", split="train", cache_dir=str(tmp_path / "cache"))
    assert rows.features == declared
    expected = pages_of_accepted_records(workspace)
    assert rows.num_rows == len(expected) > 0
    for row in rows:
        images = row["page_image"]
        assert len(images) == len(expected[row["record_id"]])
        assert all(isinstance(image, Image.Image) for image in images)
        assert max(images[0].size) == 1600  # the page as the loader rendered it for curators
    raw = rows.with_format("arrow")[:]  # the stored bytes are the workspace's PNGs, page for page
    cells = zip(raw["record_id"].to_pylist(), raw["page_image"].to_pylist(), strict=True)
    assert {rid: [page["bytes"] for page in cell] for rid, cell in cells} == expected


def test_without_the_option_the_columns_are_sobs(workspace):
    plain, with_pages = release(workspace, "0.1.0"), release(workspace, "0.2.0")
    (plain_file,) = (plain / "data").glob("*.parquet")
    (pages_file,) = (with_pages / "data").glob("*.parquet")
    assert pq.read_schema(plain_file).names == column_names("olmocr")
    assert "page_image" not in (plain / "README.md").read_text() and "page_images" not in json.loads(
        (plain / "manifest.json").read_text()
    )
    sob_columns = pq.read_table(pages_file, columns=column_names("olmocr"))
    assert sob_columns.to_pylist() == pq.read_table(plain_file).to_pylist()  # the same rows, one column more


def test_a_missing_page_image_stops_the_release_and_names_the_record(workspace, tmp_path, capsys):
    ws = tmp_path / "ws"
    shutil.copytree(workspace, ws, ignore=shutil.ignore_patterns("releases"))
    with Store.open(ws) as store:
        record = next(iter(store.records("olmocr", [RecordState.ACCEPTED]))).record
    (ws / record.metadata.extra["page_images"][0]).unlink()
    assert main([*BASE, "--workspace", str(ws), "--release", "0.3.0", "--with-page-images"]) == 2
    err = capsys.readouterr().err
    assert "no readable page image" in err and record.record_id[:12] in err and "without --with-page-images" in err
    assert not release(ws, "0.3.0").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--source", "hotpotqa", "--release", "0.1.0", "--with-page-images"], "only olmocr records have rendered"),
        (["--source", "olmocr", "--with-page-images"], "needs --release VERSION"),
    ],
)
def test_the_option_is_refused_where_it_cannot_apply(tmp_path, capsys, args, message):
    assert main([*args, "--workspace", str(tmp_path / "ws")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "ws").exists()
