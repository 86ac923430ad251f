"""`--source documents`: a curator's own text files, rows and PDFs; bad input rejected with a reason, none lost."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from build_split.cli import main
from core.models import SourceItem
from core.sources import get_source
from core.store import Store
from loaders.documents import load_documents

REPO = Path(__file__).resolve().parents[2]
SAMPLE_PDF = REPO / "loaders" / "samples" / "olmocr" / "bench_data" / "pdfs" / "tables" / "harbour_ferries.pdf"


@pytest.fixture(autouse=True)
def _offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf"))


def test_text_markdown_and_rows_become_one_item_each(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    (folder / "letters").mkdir(parents=True)
    (folder / "invoice.txt").write_text("Invoice 12: total 40.00", encoding="utf-8")
    (folder / "letters" / "note.md").write_text("# Note\nDear Sam, see you on Monday.", encoding="utf-8")
    (folder / ".hidden.txt").write_text("a hidden file is not a document", encoding="utf-8")
    rows = [{"doc_id": "c-1", "body": "Call at 9: the boiler is fixed."}, {"body": "Second call, no id."}]
    (folder / "calls.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    pq.write_table(pa.table({"doc_id": ["p-7"], "body": ["Parquet row: 3 chairs."]}), folder / "table.parquet")
    result = load_documents(folder, workspace=tmp_path / "ws", text_column="body", id_column="doc_id")
    assert result.problems == []
    by_id = {item.source_id: item for item in result.items}
    assert sorted(by_id) == [
        "calls.jsonl#c-1",
        "calls.jsonl#l2",
        "invoice.txt",
        "letters/note.md",
        "table.parquet#p-7",
    ]
    assert by_id["letters/note.md"].context.startswith("# Note")
    assert by_id["table.parquet#p-7"].metadata["file_type"] == "parquet"
    assert all(item.source == "documents" for item in result.items)


def test_bad_input_is_rejected_with_a_reason_per_file_and_row(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "good.txt").write_text("Order 17 shipped on 3 May.", encoding="utf-8")
    (folder / "blank.txt").write_text("  \n\n", encoding="utf-8")
    (folder / "latin1.txt").write_bytes("Café".encode("latin-1"))
    (folder / "broken.pdf").write_bytes(b"this is no PDF")
    (folder / "slides.pptx").write_bytes(b"PK\x03\x04")
    lines = ['{"text": "Row one."}', '{"body": "no text column"}', "not json", "[1, 2]", '{"text": 5}']
    (folder / "rows.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = load_documents(folder, workspace=tmp_path / "ws")
    codes = sorted((p.origin, p.line_no, p.code) for p in result.problems)
    assert codes == [
        ("blank.txt", 1, "empty_document"),
        ("broken.pdf", 1, "unreadable_pdf"),
        ("latin1.txt", 1, "unreadable_text"),
        ("rows.jsonl", 2, "no_text_column"),
        ("rows.jsonl", 3, "bad_json"),
        ("rows.jsonl", 4, "not_an_object"),
        ("rows.jsonl", 5, "empty_document"),
        ("slides.pptx", 1, "unknown_file_type"),
    ]
    assert all(p.message for p in result.problems)
    assert sorted(item.source_id for item in result.items) == ["good.txt", "rows.jsonl#l1"]
    # Nothing lost: every file and every row is an item or a problem.
    assert len(result.items) + len(result.problems) == 5 + len(lines)


def test_an_empty_folder_is_a_clear_error_not_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    code = main(["--source", "documents", "--input", str(tmp_path / "empty"), "--workspace", str(tmp_path / "ws")])
    err = capsys.readouterr().err
    assert code == 2 and "holds no files" in err and "Traceback" not in err
    with Store.open(tmp_path / "ws") as store:  # the rejection is kept, with its reason
        assert [row["reasons"][0]["code"] for row in store.import_rejections("documents")] == ["empty_input"]


def test_a_pdf_is_ocrd_by_the_olmocr_path_with_its_page_images(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(SAMPLE_PDF, folder / "ferries.pdf")
    result = load_documents(folder, workspace=tmp_path / "ws", ocr_server="cpu")
    assert result.problems == []
    (item,) = result.items
    assert item.source_id == "ferries.pdf" and "Ynys Bach" in item.context  # Tesseract read the page
    assert item.metadata["file_type"] == "pdf" and item.metadata["ocr_server"] == "cpu"
    (image,) = item.metadata["page_images"]
    assert (tmp_path / "ws" / image).is_file() and image.endswith(".png")
    assert get_source("documents").page_tasks  # Label Studio shows the page beside the transcript


def test_config_names_the_release(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    args = ["--source", "documents", "--sample", "--workspace", str(ws), "--release", "0.1.0", "--allow-unreviewed"]
    try:
        assert main([*args, "--config", "my-invoices"]) == 0
    finally:
        get_source("documents").configure(get_source("documents").options_model())  # back to the default
    release = ws / "releases" / "my-invoices" / "0.1.0"
    manifest = json.loads((release / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["config"] == "my-invoices" and manifest["source"] == "documents"
    assert "config_name: my-invoices" in (release / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("config", "message"), [("default", "release config of --source hotpotqa"), ("a b", "not a usable config name")]
)
def test_a_config_name_that_cannot_be_used_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], config: str, message: str
) -> None:
    code = main(["--source", "documents", "--sample", "--workspace", str(tmp_path / "ws"), "--config", config])
    assert code == 2 and message in capsys.readouterr().err
    assert get_source("documents").release_config == "documents"


def test_the_sample_release_works_offline_from_the_repository(tmp_path: Path) -> None:
    """The README's command, in a fresh process without network, from the files git tracks."""
    tracked = subprocess.run(
        ["git", "ls-files", "loaders/samples/documents"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    assert "loaders/samples/documents/authored.jsonl" in tracked and len(tracked) >= 4
    ws = tmp_path / "ws"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_DATASETS_CACHE": str(tmp_path / "hf")}
    command = ["--source", "documents", "--sample", "--release", "0.1.0", "--allow-unreviewed"]
    proc = subprocess.run(
        [sys.executable, "-m", "build_split", *command, "--workspace", str(ws)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    rows = datasets.load_dataset(str(ws / "releases" / "documents" / "0.1.0"), split="train")
    assert rows.num_rows == 5 and set(rows["file_type"]) == {"txt", "md"}
    with Store.open(ws) as store:  # the sample's deliberately wrong line is rejected with its reason
        assert store.state_counts("documents") == {"accepted": 5, "rejected": 1}
        assert "undeclared_key" in {code for _, code, _ in store.reason_counts("documents")}


def test_a_curators_correction_of_a_documents_transcript_becomes_the_context() -> None:
    """Label Studio's transcript editor works for documents as for olmOCR-bench pages (no bench tests to run)."""
    from authoring.page_tasks import apply_transcript, correction_outcomes

    item = SourceItem(source="documents", source_id="bill.pdf", context="INVOICE BW-2291\nTota1 due 240.00")
    edited = [{"from_name": "transcript", "to_name": "context", "type": "textarea",
               "value": {"text": ["INVOICE BW-2291\nTotal due 240.00"]}}]  # fmt: skip
    new_item, _, summary = apply_transcript(item, edited, {}, [])
    assert new_item.context == "INVOICE BW-2291\nTotal due 240.00"
    assert summary is not None and summary["chars_changed"] == 1 and "+Total due 240.00" in summary["diff"]
    assert correction_outcomes(summary) == ["ocr_transcript_corrected"]
