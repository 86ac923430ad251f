"""The OCR step: the CPU endpoint, olmocr's real pipeline against it, and reading results back."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import httpx
import pytest

from loaders.ocr import (
    OcrSetupError,
    check_tools,
    collect_results,
    gpu_available,
    pages_of,
    pipeline_command,
    read_dolma_results,
    read_markdown_dir,
    run_olmocr,
)
from loaders.ocr_server import Word, front_matter, serve_cpu_ocr, words_to_markdown
from tests.ci import missing as missing_part

SAMPLE_PDFS = Path(__file__).resolve().parents[2] / "loaders" / "samples" / "olmocr" / "bench_data" / "pdfs"


def require(*tools: str) -> None:
    """A missing OCR tool skips the test on a developer's machine and fails it in CI."""
    missing = [t for t in tools if shutil.which(t) is None]
    try:
        import olmocr  # noqa: F401
    except ImportError:
        missing.append("olmocr (pip install -e '.[image]')")
    if missing:
        message = f"needs {', '.join(missing)} (apt-get install -y poppler-utils tesseract-ocr chromium)"
        missing_part(message)


def page_png(pdf: Path) -> str:
    from olmocr.data.renderpdf import render_pdf_to_base64png

    return render_pdf_to_base64png(str(pdf), 1, target_longest_image_dim=1288)


# -- the CPU endpoint --------------------------------------------------------------------------


def test_cpu_endpoint_speaks_openai_and_answers_in_olmocrs_format() -> None:
    require("tesseract", "pdftoppm")
    from olmocr.prompts import PageResponse, build_no_anchoring_v4_yaml_prompt
    from olmocr.train.front_matter import FrontMatterParser

    image = page_png(SAMPLE_PDFS / "headers_footers" / "glassworkers_minutes.pdf")
    with serve_cpu_ocr(served_model="olmocr") as server:
        models = httpx.get(f"{server.url}/models", trust_env=False)
        assert models.status_code == 200 and [m["id"] for m in models.json()["data"]] == ["olmocr"]
        request = {
            "model": "olmocr",
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": build_no_anchoring_v4_yaml_prompt()},
                        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{image}"}},
                    ],
                }
            ],
            "max_tokens": 8000,
            "temperature": 0.1,
        }
        answer = httpx.post(f"{server.url}/chat/completions", json=request, timeout=60, trust_env=False)
        assert answer.status_code == 200
        body = answer.json()
        assert body["choices"][0]["finish_reason"] == "stop" and body["usage"]["total_tokens"] < 16384
        # a model name it does not serve gets vLLM's answer
        other = httpx.post(
            f"{server.url}/chat/completions", json={**request, "model": "allenai/olmOCR-2-7B-1025-FP8"}, trust_env=False
        )
        assert other.status_code == 404 and "does not exist" in other.json()["message"]
        bad = httpx.post(f"{server.url}/chat/completions", json={"model": "olmocr", "messages": []}, trust_env=False)
        assert bad.status_code == 400 and "image_url" in bad.json()["error"]["message"]
        assert httpx.get(f"{server.url}/nowhere", trust_env=False).status_code == 404
    parser = FrontMatterParser(front_matter_class=PageResponse)
    page = parser._parse_front_matter(*parser._extract_front_matter_and_text(body["choices"][0]["message"]["content"]))
    assert page.primary_language == "en" and page.is_rotation_valid and page.rotation_correction == 0
    assert "Minutes of the Spring Meeting, 12 April 2024" in page.natural_text
    # the running head and the page number sit in the margins and are left out, as olmOCR does
    assert "Glassworkers Guild of Saltmouth" not in page.natural_text and "Page 3 of 7" not in page.natural_text


def _word(block: int, line: int, left: int, top: int, text: str, width: int = 40) -> Word:
    return Word(block, 1, line, left, top, width, 20, text)


def test_layout_tables_become_markdown_and_margins_are_dropped() -> None:
    words = [_word(1, 1, 100, 10, "Running"), _word(1, 1, 150, 10, "head")]  # top margin
    words += [_word(2, 1, 100, 200, "Some"), _word(2, 1, 145, 200, "text"), _word(2, 2, 100, 230, "wraps-")]
    words += [_word(2, 3, 100, 260, "here.")]
    for n, (a, b) in enumerate([("Code", "Fare"), ("F2", "6.20"), ("F3", "11.00")], start=1):
        words += [_word(3, n, 100, 300 + 30 * n, a), _word(3, n, 400, 300 + 30 * n, b)]
    words += [_word(4, 1, 500, 990, "7")]  # page number in the bottom margin
    text, is_table = words_to_markdown(words, 1000)
    assert is_table
    # a word hyphenated at a line end is joined again; a paragraph is one line of markdown
    assert text.split("\n\n") == [
        "Some text wrapshere.",
        "| Code | Fare |\n|---|---|\n| F2 | 6.20 |\n| F3 | 11.00 |",
    ]
    assert "Running" not in text and "\n7" not in text
    empty = front_matter("", False)
    assert empty.startswith("---\nprimary_language: null\n") and empty.endswith("---\n")


# -- reading olmocr's results -------------------------------------------------------------------


def test_dolma_results_split_into_pages_and_logs_explain_missing_documents(tmp_path: Path) -> None:
    ws = tmp_path / "ocr"
    (ws / "results").mkdir(parents=True)
    (ws / "logs").mkdir()
    two_pages = tmp_path / "two.pdf"
    blank = tmp_path / "blank.pdf"
    never = tmp_path / "never.pdf"
    for p in (two_pages, blank, never):
        p.write_bytes(b"%PDF-1.4\n")
    doc = {  # the shape olmocr's build_dolma_document writes
        "id": "x",
        "text": "Page one text\nPage two text",
        "source": "olmocr",
        "metadata": {"Source-File": str(two_pages.resolve()), "pdf-total-pages": 2, "total-fallback-pages": 1},
        "attributes": {"pdf_page_numbers": [[0, 14, 1], [14, 27, 2]]},
    }
    (ws / "results" / "output_abc.jsonl").write_text(json.dumps(doc) + "\n")
    (ws / "logs" / "pipeline-1.log").write_text(
        f"2026 - __main__ - INFO - No document text for {blank.resolve()}\n"
        f"2026 - __main__ - ERROR - Failed {two_pages.resolve()}-2 after 8 attempts\n"
    )
    assert list(read_dolma_results(ws)) == [str(two_pages.resolve())]
    assert pages_of(doc) == {1: "Page one text", 2: "Page two text"}
    results = collect_results(ws, {"two.pdf": two_pages, "blank.pdf": blank, "never.pdf": never})
    assert results["two.pdf"].markdown == "Page one text\nPage two text"
    assert results["two.pdf"].fallback_pages == [2] and results["two.pdf"].fallback_count == 1
    assert results["blank.pdf"].error_code == "ocr_empty" and results["blank.pdf"].pages == {1: ""}
    assert results["never.pdf"].error_code == "ocr_failed" and "did not reach it" in results["never.pdf"].error


def test_precomputed_markdown_by_stem_or_bench_repeat_names(tmp_path: Path) -> None:
    md = tmp_path / "md"
    (md / "tables").mkdir(parents=True)
    (md / "tables" / "abc_pg1_repeat2.md").write_text("second repeat")
    (md / "tables" / "abc_pg1_repeat1.md").write_text("first repeat")
    (md / "tables" / "abc_pg2_repeat1.md").write_text("page two")
    (md / "abcd_pg1_repeat1.md").write_text("another pdf whose name starts the same")
    (md / "plain.md").write_text("one file for the whole PDF")
    results = read_markdown_dir(
        md, {"tables/abc.pdf": Path("x"), "old_scans/plain.pdf": Path("y"), "tables/none.pdf": Path("z")}
    )
    assert results["tables/abc.pdf"].pages == {1: "first repeat", 2: "page two"}
    assert results["tables/abc.pdf"].markdown == "first repeat\npage two"
    assert results["old_scans/plain.pdf"].pages == {1: "one file for the whole PDF"}
    assert results["tables/none.pdf"].error_code == "markdown_missing"
    with pytest.raises(FileNotFoundError):
        read_markdown_dir(tmp_path / "missing", {})


def test_command_line_uses_olmocrs_flags(tmp_path: Path) -> None:
    command = pipeline_command(tmp_path, tmp_path / "list.txt", "http://127.0.0.1:9/v1", model="olmocr", workers=2)
    assert command[1:5] == ["-m", "olmocr.pipeline", str(tmp_path), "--markdown"]
    assert command[5:] == [
        "--pdfs",
        str(tmp_path / "list.txt"),
        "--server",
        "http://127.0.0.1:9/v1",
        "--model",
        "olmocr",
        "--workers",
        "2",
    ]
    assert "--server" not in pipeline_command(tmp_path, tmp_path / "list.txt", None)


def test_no_gpu_and_no_server_says_what_to_pass() -> None:
    if gpu_available() and shutil.which("vllm"):
        pytest.skip("this machine has a GPU with vLLM")
    with pytest.raises(OcrSetupError, match="--ocr-server cpu"):
        check_tools(None)


def test_an_endpoint_that_does_not_answer_is_a_clear_error(tmp_path: Path) -> None:
    require("pdftoppm")
    with pytest.raises(OcrSetupError, match="does not answer"):
        run_olmocr({"a.pdf": SAMPLE_PDFS / "tables" / "harbour_ferries.pdf"}, tmp_path, server="http://127.0.0.1:9/v1")


# -- the real pipeline on the CPU ---------------------------------------------------------------


def test_olmocr_pipeline_runs_on_the_cpu_endpoint_and_resumes(
    test_data: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    require("tesseract", "pdftoppm")
    monkeypatch.setenv("SOB_PROGRESS", "1")  # stderr is captured, not a terminal: force the OCR bar on
    pdfs_dir = test_data / "olmocr_bench" / "pdfs"
    pdfs = {
        "multi_column_miss.pdf": pdfs_dir / "multi_column_miss.pdf",
        "blank_book_pg1.pdf": pdfs_dir / "blank_book_pg1.pdf",
    }
    ws = tmp_path / "ocr"
    run = run_olmocr(pdfs, ws, server="cpu")
    assert run.server == "cpu" and run.pages_submitted == 2 and run.log_path and run.log_path.is_file()
    text = run.results["multi_column_miss.pdf"]
    assert text.error is None and text.engine == "olmocr"
    assert "Corporate social responsibility and the tobacco industry" in text.markdown
    assert run.results["blank_book_pg1.pdf"].error_code == "ocr_empty"
    assert list((ws / "results").glob("output_*.jsonl")) and (ws / "markdown").is_dir()
    assert "ocr (cpu)" in capsys.readouterr().err  # olmocr logs to a file: the bar is the run's progress
    # the workspace is resumable: a second run OCRs nothing and reads the same results back
    again = run_olmocr(pdfs, ws, server="cpu")
    assert again.pages_submitted == 0 and again.log_path is None
    assert again.results["multi_column_miss.pdf"].markdown == text.markdown
    assert len(list((ws / "logs").glob("*.log"))) == 1


def test_olmocr_pipeline_against_a_running_endpoint_url(tmp_path: Path) -> None:
    """`--ocr-server URL`: any OpenAI-compatible endpoint already running (here the CPU one)."""
    require("tesseract", "pdftoppm")
    with serve_cpu_ocr() as server:
        run = run_olmocr(
            {"tables/harbour_ferries.pdf": SAMPLE_PDFS / "tables" / "harbour_ferries.pdf"}, tmp_path, server=server.url
        )
        assert server.pages_served == 1
    result = run.results["tables/harbour_ferries.pdf"]
    assert run.server == server.url and result.error is None
    assert "| F2 | Brannock Point | 08:00 | 18:30 | 6.20 |" in result.markdown
    assert f"--server {server.url}" in run.log_path.read_text().splitlines()[0]


def test_an_ocr_run_past_its_timeout_is_killed_and_named(tmp_path: Path) -> None:
    import subprocess
    import sys

    from loaders.ocr import OcrSetupError, _wait_with_progress

    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    with pytest.raises(OcrSetupError, match="did not finish within 1 s"):
        _wait_with_progress(proc, tmp_path, {"a.pdf": tmp_path / "a.pdf"}, set(), "cpu", 1.0, tmp_path / "x.log")
    assert proc.poll() is not None  # no olmocr process is left behind
