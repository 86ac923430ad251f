"""`--source documents` against a hostile or unlucky folder (issue 35): only regular files inside `--input` are
read, every limit of the other loaders holds per file and per line, no secret reaches the store, and nothing is
dropped without a reason."""

from __future__ import annotations

import json
import os
import socket
import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from build_split.cli import main
from core.loading import LoadResult
from core.store import Store
from loaders.documents import load_documents

KEY = "AIzaSyTestKeyNotReal-0123456789abcdefXYZ"


@pytest.fixture(autouse=True)
def _offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf"))


def _codes(result: LoadResult) -> dict[str, str]:
    return {problem.origin: problem.code for problem in result.problems}


def _ids(result: LoadResult) -> list[str]:
    return sorted(item.source_id for item in result.items)


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "good.txt").write_text("Order 17 shipped on 3 May.", encoding="utf-8")
    return folder


def test_links_leading_outside_the_folder_are_rejected_never_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    folder = _folder(tmp_path)
    (tmp_path / "outside.txt").write_text("A private file beside the folder.", encoding="utf-8")
    (folder / "env.txt").symlink_to("/proc/self/environ")
    (folder / "notes.txt").symlink_to("../outside.txt")
    (folder / "away").symlink_to(tmp_path, target_is_directory=True)
    result = load_documents(folder, workspace=tmp_path / "ws")
    assert _ids(result) == ["good.txt"]
    codes = _codes(result)
    assert {codes["env.txt"], codes["notes.txt"], codes["away"]} == {"link_outside_input"}
    message = next(p.message for p in result.problems if p.origin == "notes.txt")
    assert "outside" in message and "private file" not in message


def test_links_inside_the_folder_are_read_under_their_own_name(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    (folder / "letters").mkdir()
    (folder / "letters" / "march.md").write_text("# March\nThe rent is 400.", encoding="utf-8")
    (folder / "latest.md").symlink_to("letters/march.md")
    (folder / "all-letters").symlink_to("letters", target_is_directory=True)
    (folder / "loop").symlink_to(".", target_is_directory=True)
    result = load_documents(folder, workspace=tmp_path / "ws")
    assert _ids(result) == ["good.txt", "latest.md", "letters/march.md"]
    # A link to a folder is not walked (its files are read where they are; a loop cannot run for ever).
    assert _codes(result) == {"all-letters": "linked_folder", "loop": "linked_folder"}
    # --input itself may be a link: the curator named it.
    (tmp_path / "given.md").symlink_to(folder / "letters" / "march.md")
    assert _ids(load_documents(tmp_path / "given.md", workspace=tmp_path / "ws")) == ["given.md"]


def test_special_files_and_broken_links_are_rejections_and_a_fifo_is_never_opened(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    fifo = folder / "pipe.txt"
    os.mkfifo(fifo)
    sock_path = folder / "s.txt"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock_path))
    (folder / "gone.txt").symlink_to("missing.txt")
    found: list[LoadResult] = []
    worker = threading.Thread(target=lambda: found.append(load_documents(folder, workspace=tmp_path / "ws")))
    worker.start()
    worker.join(timeout=60)
    if worker.is_alive():  # it opened the FIFO and blocks: unblock it, then fail
        with open(fifo, "w"):
            pass
        worker.join()
        pytest.fail("the loader opened a FIFO")
    server.close()
    (result,) = found
    assert _ids(result) == ["good.txt"]
    assert _codes(result) == {"pipe.txt": "special_file", "s.txt": "special_file", "gone.txt": "broken_link"}
    messages = {p.origin: p.message for p in result.problems}
    assert "FIFO" in messages["pipe.txt"] and "socket" in messages["s.txt"] and "missing.txt" in messages["gone.txt"]


def test_a_thousand_nested_folders_stop_at_the_depth_limit_with_a_rejection(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    levels = [folder]
    for _ in range(1000):  # one level at a time: mkdir(parents=True) itself recurses
        levels.append(levels[-1] / "d")
        levels[-1].mkdir()
    bottom = levels[-1] / "bottom.txt"
    bottom.write_text("Too far down.", encoding="utf-8")
    (folder / "e" / "f").mkdir(parents=True)
    (folder / "e" / "f" / "near.txt").write_text("Two folders down.", encoding="utf-8")
    try:
        result = load_documents(folder, workspace=tmp_path / "ws")
    finally:  # removed bottom up: pytest's own clean-up of old temporary folders recurses and would fail
        bottom.unlink()
        for level in reversed(levels[1:]):
            level.rmdir()
    assert _ids(result) == ["e/f/near.txt", "good.txt"]
    (problem,) = result.problems
    assert problem.code == "folder_too_deep" and "levels" in problem.message


def test_an_input_below_a_hidden_folder_or_given_with_dots_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / ".cache" / "docs"
    folder.mkdir(parents=True)
    (folder / "a.txt").write_text("Invoice 3: paid.", encoding="utf-8")
    (folder / ".secret.txt").write_text("hidden below --input: skipped", encoding="utf-8")
    assert _ids(load_documents(folder, workspace=tmp_path / "ws")) == ["a.txt"]
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    assert _ids(load_documents(Path("../.cache/docs"), workspace=tmp_path / "ws")) == ["a.txt"]


def test_huge_files_rows_and_texts_are_rejected_one_by_one_without_reading_them_whole(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    with open(folder / "huge.txt", "wb") as handle:  # 200 MB, sparse: nothing has to be written
        handle.truncate(200 * 1024 * 1024)
    (folder / "long.md").write_text("word " * 30_000, encoding="utf-8")  # 150,000 characters
    rows = [{"id": "big", "text": "x" * 300_000}, {"id": "ok", "text": "A short row."}]
    pq.write_table(pa.Table.from_pylist(rows), folder / "table.parquet")
    lines = [json.dumps({"text": "y" * 9_000_000}), json.dumps({"text": "z" * 150_000}), json.dumps({"text": "Fine."})]
    (folder / "rows.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = load_documents(folder, workspace=tmp_path / "ws")
    assert _ids(result) == ["good.txt", "rows.jsonl#l3", "table.parquet#ok"]
    found = sorted((p.origin, p.line_no, p.code) for p in result.problems)
    assert found == [
        ("huge.txt", 1, "file_too_large"),
        ("long.md", 1, "text_too_long"),
        ("rows.jsonl", 1, "line_too_large"),
        ("rows.jsonl", 2, "value_too_long"),
        ("table.parquet", 1, "value_too_long"),
    ]
    assert all(len(p.raw) <= 2000 for p in result.problems)


def test_jsonl_lines_beyond_the_limits_are_rejected_one_by_one(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    lines = [
        b'{"id": "a", "text": "The first good row."}',
        b'{"text": "caf\xe9 au lait"}',
        b'{"text": "\\ud800 a lone surrogate"}',
        b'{"text": "deep", "x": ' + b'{"n": ' * 100_000 + b"1" + b"}" * 100_000 + b"}",
        b'{"text": "a number nobody reads", "unused": ' + b"9" * 5_000 + b"}",
        b'{"text": "the first text", "text": "the second text"}',
        b'{"id": "b", "text": "The last good row."}',
    ]
    (folder / "rows.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    result = load_documents(folder, workspace=tmp_path / "ws")
    assert _ids(result) == ["rows.jsonl#a", "rows.jsonl#b"]
    found = [(p.origin, p.line_no, p.code, p.unit) for p in result.problems]
    assert found == [
        ("rows.jsonl", 2, "invalid_utf8", "line"),
        ("rows.jsonl", 3, "lone_surrogate", "line"),
        ("rows.jsonl", 4, "too_deep", "line"),
        ("rows.jsonl", 5, "number_too_long", "line"),
        ("rows.jsonl", 6, "duplicate_key", "line"),
    ]
    assert all(p.message.startswith("rows.jsonl: ") for p in result.problems)


def test_a_row_id_and_a_file_name_never_make_the_same_source_id(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "rows.jsonl").write_text(json.dumps({"id": "memo.txt", "text": "The row."}) + "\n", encoding="utf-8")
    (folder / "rows.jsonl#memo.txt").write_text("The file.", encoding="utf-8")
    (folder / "100%.txt").write_text("A file with a percent sign.", encoding="utf-8")
    result = load_documents(folder, workspace=tmp_path / "ws")
    assert result.problems == []
    by_id = {item.source_id: item for item in result.items}
    assert sorted(by_id) == ["100%25.txt", "rows.jsonl#memo.txt", "rows.jsonl%23memo.txt"]
    assert by_id["rows.jsonl#memo.txt"].context == "The row."
    assert by_id["rows.jsonl%23memo.txt"].context == "The file."
    assert by_id["rows.jsonl%23memo.txt"].metadata["file"] == "rows.jsonl#memo.txt"  # the name as it is


def test_known_secrets_in_documents_are_masked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "notes.txt").write_text(f"Deploy notes. The key is {KEY} for now.", encoding="utf-8")
    row = {"id": "r1", "text": f"Call log: customer read out {KEY.upper()}.", "owner": f"ops {KEY}"}
    (folder / "calls.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    result = load_documents(folder, workspace=tmp_path / "ws")
    dumped = json.dumps([item.model_dump(mode="json") for item in result.items])
    assert len(result.items) == 2 and "[REDACTED]" in dumped
    assert KEY not in dumped and KEY.upper() not in dumped and KEY[:20] not in dumped


def test_a_pdf_over_the_page_cap_is_rejected_before_any_ocr(tmp_path: Path) -> None:
    from pypdf import PdfWriter

    folder = tmp_path / "in"
    folder.mkdir()
    writer = PdfWriter()
    for _ in range(3000):
        writer.add_blank_page(width=200, height=200)
    with open(folder / "tome.pdf", "wb") as handle:
        writer.write(handle)
    # No OCR server is named: were the PDF sent to OCR, olmocr would look for a GPU and fail differently.
    result = load_documents(folder, workspace=tmp_path / "ws")
    (problem,) = result.problems
    assert (problem.origin, problem.code) == ("tome.pdf", "too_many_pages")
    assert "3,000 pages" in problem.message and "--max-pdf-pages" in problem.message
    assert not (tmp_path / "ws" / "ocr").exists()


def test_max_pdf_pages_is_an_option_of_the_documents_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pypdf import PdfWriter

    folder = _folder(tmp_path)
    writer = PdfWriter()
    for _ in range(2):
        writer.add_blank_page(width=200, height=200)
    with open(folder / "two.pdf", "wb") as handle:
        writer.write(handle)
    ws = tmp_path / "ws"
    command = ["--source", "documents", "--input", str(folder), "--workspace", str(ws)]
    assert main([*command, "--max-pdf-pages", "0"]) == 2
    assert "--max-pdf-pages: Input should be greater than or equal to 1" in capsys.readouterr().err
    assert main([*command, "--max-pdf-pages", "1"]) == 0
    with Store.open(ws) as store:
        (rejected,) = store.import_rejections("documents")
    assert rejected["origin"] == "load:two.pdf" and rejected["reasons"][0]["code"] == "too_many_pages"


def test_the_cli_keeps_the_environment_out_of_the_store_and_lists_the_rejections(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    folder = _folder(tmp_path)
    (folder / "env.txt").symlink_to("/proc/self/environ")
    (folder / "key.md").write_text(f"The key: {KEY}", encoding="utf-8")
    os.mkfifo(folder / "pipe.jsonl")
    ws = tmp_path / "ws"
    assert main(["--source", "documents", "--input", str(folder), "--workspace", str(ws)]) == 0
    capsys.readouterr()
    assert main(["--source", "documents", "--workspace", str(ws), "--rejections"]) == 0
    listing = capsys.readouterr().out
    assert "link_outside_input" in listing and "env.txt" in listing and "special_file" in listing
    with Store.open(ws) as store:
        items = store.source_items("documents")
        stored = json.dumps([item.model_dump(mode="json") for item in items.values()])
        stored += json.dumps(store.import_rejections("documents"), default=str)
    assert sorted(items) == ["good.txt", "key.md"]
    assert KEY not in stored and "GEMINI_API_KEY" not in stored and "[REDACTED]" in stored
