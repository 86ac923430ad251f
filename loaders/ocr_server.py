"""A small OpenAI-compatible OCR endpoint that runs on the CPU with Tesseract.

olmocr's pipeline sends every page as a PNG inside a chat-completions request and expects
olmOCR's answer: YAML front matter (`primary_language`, `is_rotation_valid`,
`rotation_correction`, `is_table`, `is_diagram`) followed by the page text. This server gives
that answer with Debian's `tesseract-ocr` doing the reading, so the real olmocr pipeline runs end
to end on machines without a GPU (and in tests). It serves:

- `GET /v1/models`: the one model it serves (olmocr waits on this before sending pages);
- `POST /v1/chat/completions`: OCR of the first image in the last user message. A request for
  another model gets vLLM's 404 answer, and every request is captured (`server.requests`: model,
  prompt, image size), so tests can check what olmocr sends an olmOCR model served by vLLM.

Layout is kept simple: Tesseract's own block order; blocks wholly inside the top or bottom
margin band of the page that hold one short line (running heads, page numbers) are left out,
as olmOCR leaves out headers and footers; runs of lines whose words fall into the same
columns become a Markdown table. Start it alone with
`python -m loaders.ocr_server --port 8001`, or inside a run with `--ocr-server cpu`.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from loaders.ocr_page_cache import PageCache

MODEL_NAME = "tesseract-cpu"
MAX_CAPTURED = 1000  # requests kept for inspection (tests, benchmarks), newest last
MARGIN_BAND = 0.06  # fraction of the page height treated as header/footer margin
MAX_MARGIN_WORDS = 12  # a margin block longer than this is body text, and is kept


class TesseractMissingError(RuntimeError):
    """Tesseract is not installed (Debian: apt-get install tesseract-ocr)."""


def tesseract_path() -> str | None:
    return shutil.which("tesseract")


def require_tesseract() -> str:
    path = tesseract_path()
    if path is None:
        raise TesseractMissingError(
            "tesseract is not installed: the CPU OCR endpoint needs Debian's tesseract-ocr "
            "(apt-get install -y tesseract-ocr)"
        )
    return path


@dataclass
class Word:
    block: int
    par: int
    line: int
    left: int
    top: int
    width: int
    height: int
    text: str

    @property
    def right(self) -> int:
        return self.left + self.width


def run_tesseract(png: bytes, lang: str = "eng", timeout: float = 120.0) -> tuple[list[Word], int, int]:
    """Words with their boxes (Tesseract TSV) and the page size in pixels."""
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}  # one thread per page: pages run side by side
    proc = subprocess.run(
        [require_tesseract(), "stdin", "stdout", "-l", lang, "--psm", "3", "tsv"],
        input=png,
        capture_output=True,
        timeout=timeout,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"tesseract failed: {proc.stderr.decode('utf-8', 'replace')[-500:]}")
    words: list[Word] = []
    page_w = page_h = 0
    for row in proc.stdout.decode("utf-8", "replace").splitlines()[1:]:
        cols = row.split("\t")
        if len(cols) < 12:
            continue
        level = int(cols[0])
        if level == 1:
            page_w, page_h = int(cols[8]), int(cols[9])
        if level != 5 or not cols[11].strip():
            continue
        words.append(Word(int(cols[2]), int(cols[3]), int(cols[4]), *(int(c) for c in cols[6:10]), cols[11].strip()))
    return words, page_w, page_h


def _lines(words: list[Word]) -> list[list[Word]]:
    lines: dict[tuple[int, int, int], list[Word]] = {}
    for word in words:
        lines.setdefault((word.block, word.par, word.line), []).append(word)
    return list(lines.values())


def _cells(line: list[Word]) -> list[tuple[int, int, str]]:
    """Split a line where the gap between words is wider than about two letters' height."""
    height = sorted(w.height for w in line)[len(line) // 2] or 1
    cells: list[list[Word]] = [[line[0]]]
    for prev, word in zip(line, line[1:], strict=False):
        if word.left - prev.right > 1.5 * height:
            cells.append([word])
        else:
            cells[-1].append(word)
    return [(c[0].left, c[-1].right, " ".join(w.text for w in c)) for c in cells]


def _same_columns(a: list[tuple[int, int, str]], b: list[tuple[int, int, str]]) -> bool:
    if len(a) != len(b) or len(a) < 2:
        return False
    return all(ca[0] <= cb[1] and cb[0] <= ca[1] for ca, cb in zip(a, b, strict=True))


def _table(rows: list[list[tuple[int, int, str]]]) -> str:
    def esc(text: str) -> str:
        return text.replace("|", "\\|")

    out = ["| " + " | ".join(esc(c[2]) for c in rows[0]) + " |", "|" + "---|" * len(rows[0])]
    out += ["| " + " | ".join(esc(c[2]) for c in row) + " |" for row in rows[1:]]
    return "\n".join(out)


def words_to_markdown(words: list[Word], page_height: int) -> tuple[str, bool]:
    """Page text in Tesseract's block order: a paragraph per line of output, blank lines
    between paragraphs, and runs of three or more lines that share their columns as a table."""
    blocks: dict[int, list[Word]] = {}
    for word in words:
        blocks.setdefault(word.block, []).append(word)
    parts: list[str] = []
    is_table = False
    for block_words in blocks.values():
        top = min(w.top for w in block_words)
        bottom = max(w.top + w.height for w in block_words)
        in_margin = page_height and (bottom < page_height * MARGIN_BAND or top > page_height * (1 - MARGIN_BAND))
        if in_margin and len(block_words) <= MAX_MARGIN_WORDS:
            continue  # a running head, a footer or a page number
        paragraphs: dict[int, list[Word]] = {}
        for word in block_words:
            paragraphs.setdefault(word.par, []).append(word)
        for par_words in paragraphs.values():
            lines = [sorted(line, key=lambda w: w.left) for line in _lines(par_words)]
            rows = [_cells(line) for line in lines]
            text_lines: list[str] = []
            i = 0
            while i < len(lines):
                j = i
                while j + 1 < len(lines) and _same_columns(rows[j], rows[j + 1]):
                    j += 1
                if j - i + 1 >= 3:
                    if text_lines:
                        parts.append(_join_lines(text_lines))
                        text_lines = []
                    parts.append(_table(rows[i : j + 1]))
                    is_table = True
                    i = j + 1
                    continue
                text_lines.append(" ".join(w.text for w in lines[i]))
                i += 1
            if text_lines:
                parts.append(_join_lines(text_lines))
    return "\n\n".join(p for p in parts if p).strip(), is_table


def _join_lines(lines: list[str]) -> str:
    """One paragraph on one line, as olmOCR writes it; words hyphenated at a line end are rejoined."""
    text = "\n".join(lines)
    text = re.sub(r"(\w)-\n(\w)", r"\1\2", text)
    return text.replace("\n", " ").strip()


def front_matter(text: str, is_table: bool) -> str:
    language = "en" if re.search(r"[A-Za-z]{2}", text) else "null"
    head = (
        f"---\nprimary_language: {language}\nis_rotation_valid: True\nrotation_correction: 0\n"
        f"is_table: {is_table}\nis_diagram: False\n---\n"
    )
    return head + text


def ocr_page_png(png: bytes) -> str:
    words, _, height = run_tesseract(png)
    text, is_table = words_to_markdown(words, height)
    return front_matter(text, is_table)


@dataclass(frozen=True)
class CapturedRequest:
    """What one chat-completions request asked for: what a vLLM server running olmOCR must accept."""

    model: str
    prompt: str  # the text parts of the last user message
    image_width: int
    image_height: int
    max_tokens: int | None
    temperature: float | None


def _prompt_text(payload: dict[str, Any]) -> str:
    for message in reversed(payload.get("messages") or []):
        content = message.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "\n".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


def _first_image(payload: dict[str, Any]) -> bytes:
    for message in reversed(payload.get("messages") or []):
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for part in content:
            if isinstance(part, dict) and part.get("type") == "image_url":
                url = (part.get("image_url") or {}).get("url", "")
                if url.startswith("data:") and "," in url:
                    return base64.b64decode(url.split(",", 1)[1])
    raise ValueError("the request has no image_url part with a data: URL")


class _Handler(BaseHTTPRequestHandler):
    server: OcrHTTPServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        if self.server.verbose:
            super().log_message(format, *args)

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            model = {"id": self.server.served_model, "object": "model", "owned_by": "sob"}
            self._send(200, {"object": "list", "data": [model]})
        else:
            self._send(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
            payload = json.loads(self.rfile.read(length))
        except (ValueError, json.JSONDecodeError) as exc:
            self._send(400, {"error": {"message": str(exc)}})
            return
        model = str(payload.get("model") or "") if isinstance(payload, dict) else ""
        if model != self.server.served_model:
            # what vLLM answers for a model name it does not serve (its --served-model-name)
            error = {"message": f"The model `{model}` does not exist.", "type": "NotFoundError", "param": None}
            self._send(404, {"object": "error", **error, "code": 404})
            return
        try:
            png = _first_image(payload)
        except ValueError as exc:
            self._send(400, {"error": {"message": str(exc)}})
            return
        try:
            from loaders.page_images import png_size

            width, height = png_size(png)
        except ValueError:
            self._send(400, {"error": {"message": "the image_url part is not a PNG"}})
            return
        self.server.capture(
            CapturedRequest(
                model, _prompt_text(payload), width, height, payload.get("max_tokens"), payload.get("temperature")
            )
        )
        cache = self.server.page_cache
        content = cache.get(png) if cache is not None else None
        if content is not None:  # read by an earlier (perhaps stopped) run
            self.server.pages_from_cache += 1
        else:
            try:
                with self.server.slots:
                    content = ocr_page_png(png)
            except Exception as exc:  # the pipeline retries and then falls back; say why
                self._send(500, {"error": {"message": f"{type(exc).__name__}: {exc}"}})
                return
            if cache is not None:
                cache.put(png, content)
            self.server.pages_served += 1
        completion_tokens = max(1, len(content) // 4)
        prompt_tokens = 1000
        self._send(
            200,
            {
                "id": f"chatcmpl-{uuid.uuid4().hex}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                ],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                },
            },
        )


class OcrHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # olmocr opens a connection per page, all at once

    def __init__(
        self,
        host: str,
        port: int,
        workers: int,
        verbose: bool = False,
        served_model: str = MODEL_NAME,
        page_cache: PageCache | None = None,
    ) -> None:
        super().__init__((host, port), _Handler)
        self.slots = threading.BoundedSemaphore(max(1, workers))
        self.verbose = verbose
        self.served_model = served_model
        self.page_cache = page_cache
        self.pages_served = 0  # pages OCR'd by Tesseract
        self.pages_from_cache = 0  # pages answered from the page cache
        self.clients_gone = 0  # answers the client did not wait for (olmocr stopped)
        self.requests: deque[CapturedRequest] = deque(maxlen=MAX_CAPTURED)
        self._lock = threading.Lock()

    def capture(self, request: CapturedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away before its answer (olmocr stopped, the run got SIGTERM) is no error: the
        stdlib would print a BrokenPipeError traceback per page in flight."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            with self._lock:
                self.clients_gone += 1
            return
        super().handle_error(request, client_address)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/v1"


@contextmanager
def serve_cpu_ocr(
    host: str = "127.0.0.1",
    port: int = 0,
    workers: int | None = None,
    served_model: str = MODEL_NAME,
    page_cache: PageCache | None = None,
) -> Iterator[OcrHTTPServer]:
    """Run the endpoint in a background thread for the duration of the block.

    `served_model` is the one model name it answers to, like vLLM's `--served-model-name`; `page_cache` keeps
    every page it reads, and answers a page read before (by a stopped run) without OCR."""
    require_tesseract()
    cpus = workers or os.cpu_count() or 1
    server = OcrHTTPServer(host, port, cpus, served_model=served_model, page_cache=page_cache)
    thread = threading.Thread(target=server.serve_forever, name="cpu-ocr-endpoint", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m loaders.ocr_server",
        description="OpenAI-compatible OCR endpoint on the CPU (Tesseract), answering in olmOCR's format. "
        "Point olmocr at it with --server http://HOST:PORT/v1, or the toolkit with --ocr-server URL.",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="pages OCR'd at once")
    parser.add_argument("--verbose", action="store_true", help="log every request")
    parser.add_argument(
        "--served-model-name",
        default=MODEL_NAME,
        help=f"the model name it answers to, as vLLM's option of that name (default {MODEL_NAME})",
    )
    args = parser.parse_args(argv)
    try:
        require_tesseract()
    except TesseractMissingError as exc:
        print(f"error: {exc}")
        return 2
    server = OcrHTTPServer(args.host, args.port, args.workers, args.verbose, served_model=args.served_model_name)
    print(f"CPU OCR endpoint on {server.url} (tesseract, {args.workers} page(s) at once); Ctrl-C stops it")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
