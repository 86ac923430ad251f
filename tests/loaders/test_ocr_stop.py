"""A PDF's OCR stopped in the middle (issue 35): one line, no traceback per page in flight, and the pages
read before the stop are kept, so the next run only OCRs the rest."""

from __future__ import annotations

import os
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from loaders.ocr_page_cache import PageCache
from loaders.ocr_server import serve_cpu_ocr
from tests.loaders.test_ocr import SAMPLE_PDFS, page_png, require

REPO = Path(__file__).resolve().parents[2]
PDFS = [
    SAMPLE_PDFS / "headers_footers" / "glassworkers_minutes.pdf",
    SAMPLE_PDFS / "tables" / "harbour_ferries.pdf",
    SAMPLE_PDFS / "multi_column" / "wend_valley_news.pdf",
]


def _request(image: str) -> dict[str, object]:
    content = [
        {"type": "text", "text": "Read this page."},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{image}"}},
    ]
    return {"model": "tesseract-cpu", "messages": [{"role": "user", "content": content}], "max_tokens": 8000}


def _wait_for(condition: Callable[[], bool], what: str, timeout: float = 120.0) -> None:
    """Wait for an event (polled), failing after a generous deadline."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting: {what}")
        time.sleep(0.05)


def test_a_client_gone_before_its_answer_is_no_traceback(capfd: pytest.CaptureFixture[str]) -> None:
    require("tesseract", "pdftoppm")
    import json

    body = json.dumps(_request(page_png(PDFS[0]))).encode()
    with serve_cpu_ocr() as server:
        host, port = server.server_address[:2]
        client = socket.create_connection((host, port))
        head = f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n\r\n"
        client.sendall(head.encode() + body)
        _wait_for(lambda: len(server.requests) == 1, "the endpoint took the request")
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()  # a reset, as when olmocr is killed: the answer has nowhere to go
        _wait_for(lambda: server.clients_gone == 1, "the endpoint noticed the client had gone")
    assert "Traceback" not in capfd.readouterr().err


def test_pages_read_once_are_answered_from_the_cache_by_the_next_server(tmp_path: Path) -> None:
    require("tesseract", "pdftoppm")
    request = _request(page_png(PDFS[1]))
    cache = PageCache(tmp_path / "pages")
    answers = []
    with serve_cpu_ocr(page_cache=cache) as server:
        for _ in range(2):
            answers.append(httpx.post(f"{server.url}/chat/completions", json=request, timeout=120, trust_env=False))
        assert (server.pages_served, server.pages_from_cache) == (1, 1)
    with serve_cpu_ocr(page_cache=cache) as server:  # the next run's endpoint
        answers.append(httpx.post(f"{server.url}/chat/completions", json=request, timeout=120, trust_env=False))
        assert (server.pages_served, server.pages_from_cache) == (0, 1)
    texts = {answer.json()["choices"][0]["message"]["content"] for answer in answers}
    assert len(texts) == 1 and "Brannock Point" in texts.pop() and len(cache) == 1


def test_sigterm_during_a_pdfs_ocr_prints_one_line_and_the_next_run_resumes(tmp_path: Path) -> None:
    require("tesseract", "pdftoppm")
    from pypdf import PdfWriter

    folder = tmp_path / "in"
    folder.mkdir()
    writer = PdfWriter()
    for pdf in PDFS:
        writer.append(str(pdf))
    with open(folder / "three-pages.pdf", "wb") as handle:
        writer.write(handle)
    ws = tmp_path / "ws"
    command = [sys.executable, "-m", "build_split", "--source", "documents", "--input", str(folder)]
    command += ["--workspace", str(ws), "--ocr-server", "cpu"]
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_DATASETS_CACHE": str(tmp_path / "hf")}
    pages = ws / "ocr" / "cpu-pages"
    proc = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(lambda: proc.poll() is not None or len(PageCache(pages)) >= 1, "a first page OCR'd", 300)
        assert proc.poll() is None, proc.communicate()[1]
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("note: ")]
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert lines == ["stopped by SIGTERM: work committed so far is kept"], err
    kept = {path: path.stat().st_mtime_ns for path in pages.glob("*/*.md")}
    assert 1 <= len(kept) <= 3
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert len(PageCache(pages)) == 3
    assert {path: path.stat().st_mtime_ns for path in kept} == kept  # not OCR'd again
