"""The OCR step for PDFs: olmocr's own pipeline, or a folder of markdown made earlier.

`run_olmocr` runs `python -m olmocr.pipeline WORKSPACE --markdown --pdfs LIST` in a subprocess:

- `server=None`: olmocr checks for a GPU, downloads olmOCR's model and starts vLLM itself;
- `server="cpu"`: the toolkit starts its Tesseract endpoint (`loaders.ocr_server`) on
  127.0.0.1 for the run and passes `--server URL`; olmocr skips its GPU check and vLLM
  whenever `--server` is given (`use_internal_server = not args.server` in olmocr/pipeline.py);
- `server=URL`: any running OpenAI-compatible endpoint (`.../v1`), passed as `--server`.

The workspace is olmocr's own and resumable: its work queue (`work_index_list.csv.zstd`,
`done_flags/`) skips PDFs already done, so a rerun only OCRs what is new. Results are read back
from olmocr's Dolma documents (`results/output_*.jsonl`): `text`, `metadata.Source-File`,
`metadata.total-fallback-pages` and `attributes.pdf_page_numbers` (`[start, end, page]` spans of
`text`), giving each PDF's markdown page by page. A PDF with no document is explained from the
run logs kept in `WORKSPACE/logs/` (blank page, unreadable, too many fallback pages).

`read_markdown_dir` reads precomputed markdown instead: `<stem>.md`, or olmOCR-bench's
`<stem>_pg<page>_repeat<n>.md` (the lowest repeat of each page is used).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.progress import progress
from loaders.image_extra import missing_image_extra

PIPELINE_MODULE = "olmocr.pipeline"
PROGRESS_POLL_S = 1.0  # how often the OCR bar reads olmocr's work queue
CPU_SERVER = "cpu"
CPU_PAGE_CACHE = "cpu-pages"  # in the OCR workspace: the pages the CPU endpoint read (loaders/ocr_page_cache.py)
VLLM_SERVER = "vllm"  # how results OCR'd by olmocr's own vLLM server are labelled


class OcrSetupError(ValueError):
    """The OCR step cannot start here; the message says what to install or pass."""


@dataclass
class PdfOcr:
    """One PDF's OCR: markdown per page, or why there is none."""

    key: str
    pages: dict[int, str] = field(default_factory=dict)
    engine: str = "olmocr"  # "olmocr" | "markdown"
    fallback_pages: list[int] = field(default_factory=list)
    fallback_count: int = 0
    error: str | None = None  # set when the PDF has no usable OCR
    error_code: str | None = None

    @property
    def markdown(self) -> str:
        """The whole document, pages joined as olmocr joins them in its Dolma text."""
        return "\n".join(self.pages[p] for p in sorted(self.pages))


@dataclass
class OcrRun:
    results: dict[str, PdfOcr]
    server: str  # "cpu", the endpoint URL, or "vllm"
    pages_submitted: int = 0  # pages of the PDFs this run sent to olmocr (0 when all were done before)
    seconds: float = 0.0
    log_path: Path | None = None


# -- tools -----------------------------------------------------------------------------------


def gpu_available() -> bool:
    """What olmocr itself checks before starting vLLM: torch sees a CUDA device."""
    try:
        import torch  # type: ignore[import-not-found]

        return bool(torch.cuda.is_available())
    except Exception:
        return False


def check_tools(server: str | None) -> None:
    """Fail early, with the fix, when a tool the chosen OCR path needs is missing."""
    try:
        import olmocr  # noqa: F401
    except ImportError as exc:
        raise missing_image_extra(exc) from exc
    if shutil.which("pdftoppm") is None:
        raise OcrSetupError("olmocr renders pages with poppler's pdftoppm: apt-get install -y poppler-utils")
    if server == CPU_SERVER:
        from loaders.ocr_server import TesseractMissingError, require_tesseract

        try:
            require_tesseract()
        except TesseractMissingError as exc:
            raise OcrSetupError(str(exc)) from exc
    elif server is None:
        if shutil.which("vllm") is None or not gpu_available():
            raise OcrSetupError(
                "no GPU with vLLM here for olmocr's own model server (it needs `pip install olmocr[gpu]` and a "
                "CUDA GPU with 15 GB or more): pass --ocr-server cpu to OCR on the CPU with Tesseract, "
                "or --ocr-server URL for a running OpenAI-compatible endpoint"
            )


def served_models(url: str, timeout: float = 10.0, api_key: str | None = None) -> list[str]:
    """The model names an OpenAI-compatible endpoint serves (`GET /models`); fails if it does not answer."""
    import httpx

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        response = httpx.get(f"{url.rstrip('/')}/models", timeout=timeout, trust_env=False, headers=headers)
    except httpx.HTTPError as exc:
        raise OcrSetupError(f"the OCR endpoint {url} does not answer ({exc}); is it running?") from exc
    if response.status_code != 200:
        raise OcrSetupError(f"the OCR endpoint {url} answered {response.status_code} on /models")
    try:
        return [str(m["id"]) for m in response.json().get("data") or [] if isinstance(m, dict) and "id" in m]
    except (ValueError, AttributeError):
        return []


def request_model(url: str, model: str | None, api_key: str | None = None) -> str | None:
    """The model name olmocr must put in its requests to `url`.

    olmocr sends its `--model` as the request's model name (default `allenai/olmOCR-2-7B-1025-FP8`),
    while vLLM only answers to the names it serves (`--served-model-name`; olmocr's own launch uses
    `olmocr`). So the name is taken from the server: the one it serves when `model` is not given, and
    a given `model` must be one of them. An endpoint that lists no models keeps `model` as given.
    """
    served = served_models(url, api_key=api_key)
    if not served:
        return model
    if model is None:
        if len(served) == 1:
            return served[0]
        raise OcrSetupError(
            f"the OCR endpoint {url} serves several models ({', '.join(served)}): choose one with --ocr-model"
        )
    if model not in served:
        raise OcrSetupError(
            f"the OCR endpoint {url} serves {', '.join(served)}, not {model!r}: pass --ocr-model "
            f"{served[0]} (vLLM answers only to its --served-model-name)"
        )
    return model


# -- reading olmocr's workspace ----------------------------------------------------------------


def read_dolma_results(workspace: Path) -> dict[str, dict[str, Any]]:
    """Every Dolma document in `workspace/results/output_*.jsonl`, by `metadata.Source-File`."""
    docs: dict[str, dict[str, Any]] = {}
    for path in sorted((workspace / "results").glob("output_*.jsonl")):
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                if not line.strip():
                    continue
                doc = json.loads(line)
                docs[doc["metadata"]["Source-File"]] = doc
    return docs


def pages_of(doc: dict[str, Any]) -> dict[int, str]:
    """Split a Dolma document's text back into pages with `attributes.pdf_page_numbers`."""
    text = doc.get("text") or ""
    pages: dict[int, str] = {}
    for start, end, page in doc.get("attributes", {}).get("pdf_page_numbers") or []:
        chunk = text[start:end]
        pages[int(page)] = chunk[:-1] if chunk.endswith("\n") else chunk
    if not pages and text:
        pages[1] = text
    return pages


def done_paths(workspace: Path) -> set[str]:
    """PDF paths whose olmocr work item is marked done (so a rerun will not OCR them again)."""
    if not (workspace / "work_index_list.csv.zstd").exists():
        return set()
    from olmocr.work_queue import LocalBackend, WorkQueue

    backend = LocalBackend(str(workspace))
    groups = WorkQueue(backend)._parse_index_lines(asyncio.run(backend.load_index_lines()))
    done = asyncio.run(backend.get_completed_hashes())
    return {path for group_hash, paths in groups.items() if group_hash in done for path in paths}


_LOG_REASONS: tuple[tuple[str, str, str], ...] = (
    # (olmocr log text before the path, code, message)
    ("No document text for ", "ocr_empty", "olmocr read no text on any page (a blank page?)"),
    ("Could not count number of pages for ", "pdf_unreadable", "olmocr could not open the PDF"),
    ("Filtering out pdf ", "ocr_filtered", "olmocr's filter dropped the PDF"),
    ("Exception in process_single_pdf for ", "ocr_failed", "olmocr raised an error on the PDF"),
)
_FALLBACK_DOC = re.compile(r"Document (?P<path>.+?) has (?P<n>\d+) fallback pages out of (?P<total>\d+)")
_FALLBACK_PAGE = re.compile(r"Failed (?P<path>.+)-(?P<page>\d+) after \d+ (?:rotation retries|attempts)")


def _log_outcomes(log_dir: Path) -> tuple[dict[str, tuple[str, str]], dict[str, set[int]]]:
    """What olmocr's logs say about PDFs: (code, message) for those with no document, and
    the pages that fell back to pdftotext."""
    outcomes: dict[str, tuple[str, str]] = {}
    fallbacks: dict[str, set[int]] = {}
    for log in sorted(log_dir.glob("*.log")):
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            for marker, code, message in _LOG_REASONS:
                at = line.find(marker)
                if at >= 0:
                    path = line[at + len(marker) :].split(", aborting")[0].split(": ")[0].strip()
                    outcomes[path] = (code, message)
            if m := _FALLBACK_DOC.search(line):
                outcomes[m["path"]] = (
                    "ocr_failed",
                    f"{m['n']} of {m['total']} page(s) failed OCR and fell back to pdftotext, over olmocr's "
                    "--max_page_error_rate; the document was discarded",
                )
            if m := _FALLBACK_PAGE.search(line):
                fallbacks.setdefault(m["path"], set()).add(int(m["page"]))
    return outcomes, fallbacks


def collect_results(workspace: Path, pdfs: Mapping[str, Path]) -> dict[str, PdfOcr]:
    """What the workspace holds for each PDF (key -> path), read from Dolma results and logs."""
    docs = read_dolma_results(workspace)
    done = done_paths(workspace)
    outcomes, fallbacks = _log_outcomes(workspace / "logs")
    results: dict[str, PdfOcr] = {}
    for key, path in pdfs.items():
        source_file = str(Path(path).resolve())
        doc = docs.get(source_file)
        result = PdfOcr(key=key, fallback_pages=sorted(fallbacks.get(source_file, set())))
        if doc is not None:
            result.pages = pages_of(doc)
            result.fallback_count = int(doc.get("metadata", {}).get("total-fallback-pages") or 0)
        elif source_file in outcomes:
            code, message = outcomes[source_file]
            if code == "ocr_empty":
                result.pages = {1: ""}
            result.error_code, result.error = code, message
        elif source_file in done:
            result.error_code = "ocr_failed"
            result.error = f"olmocr produced no document for it; see the logs in {workspace / 'logs'}"
        else:
            result.error_code = "ocr_failed"
            result.error = f"not OCR'd: the olmocr run did not reach it; see the logs in {workspace / 'logs'}"
        results[key] = result
    return results


# -- running olmocr ----------------------------------------------------------------------------


@contextmanager
def ocr_endpoint(server: str | None, page_cache: Path | None = None) -> Iterator[str | None]:
    """The `--server` URL for olmocr: the CPU endpoint started for the block (keeping the pages it reads in
    `page_cache`, so a stopped run resumes), a given URL, or None."""
    if server == CPU_SERVER:
        from loaders.ocr_page_cache import PageCache
        from loaders.ocr_server import serve_cpu_ocr

        with serve_cpu_ocr(page_cache=PageCache(page_cache) if page_cache else None) as endpoint:
            yield endpoint.url
    elif server is None:
        yield None
    else:
        yield server  # checked when its model name is asked for (request_model)


def pipeline_command(
    workspace: Path,
    pdf_list: Path,
    server_url: str | None,
    *,
    model: str | None = None,
    workers: int | None = None,
    extra_args: Sequence[str] = (),
) -> list[str]:
    """The olmocr command line (flags as olmocr/pipeline.py defines them)."""
    command = [sys.executable, "-m", PIPELINE_MODULE, str(workspace), "--markdown", "--pdfs", str(pdf_list)]
    if server_url:
        command += ["--server", server_url]
    if model:
        command += ["--model", model]
    if workers:
        command += ["--workers", str(workers)]
    return command + list(extra_args)


def _page_count(path: Path) -> int:
    from pypdf import PdfReader

    try:
        return len(PdfReader(str(path)).pages)
    except Exception:
        return 0


def run_olmocr(
    pdfs: Mapping[str, Path],
    workspace: Path,
    *,
    server: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    workers: int | None = None,
    extra_args: Sequence[str] = (),
    timeout: float | None = None,
    echo: Callable[[str], None] | None = None,
) -> OcrRun:
    """OCR `pdfs` (key -> local path) with olmocr's pipeline in `workspace` and read the results.

    PDFs the workspace has already done are not sent again. `model` and `api_key` become
    olmocr's `--model` and `--api_key` (the key is masked in the kept log).
    """
    workspace.mkdir(parents=True, exist_ok=True)
    log_dir = workspace / "logs"
    log_dir.mkdir(exist_ok=True)
    label = server if server else VLLM_SERVER
    _release_stale_locks(workspace)
    already = done_paths(workspace)
    todo = {key: path for key, path in pdfs.items() if str(Path(path).resolve()) not in already}
    run = OcrRun(results={}, server=label)
    if todo:
        check_tools(server)
        pages = sum(_page_count(Path(p)) for p in todo.values())
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        pdf_list = workspace / f"pdfs-{stamp}.txt"
        pdf_list.write_text("".join(f"{Path(p).resolve()}\n" for p in todo.values()), encoding="utf-8")
        log_path = log_dir / f"pipeline-{stamp}.log"
        args = list(extra_args) + (["--api_key", api_key] if api_key else [])
        env = {**os.environ, "NO_PROXY": _no_proxy(), "no_proxy": _no_proxy()}
        started = time.perf_counter()
        with ocr_endpoint(server, workspace / CPU_PAGE_CACHE) as url:
            sent_model = request_model(url, model, api_key) if url else model
            command = pipeline_command(workspace, pdf_list, url, model=sent_model, workers=workers, extra_args=args)
            if echo:
                echo(f"ocr:        {len(todo)} PDF(s), {pages} page(s) through olmocr ({label}); log {log_path}")
            with log_path.open("w", encoding="utf-8") as log:
                log.write("$ " + " ".join(c if c != api_key else "***" for c in command) + "\n")
                log.flush()
                proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
                _wait_with_progress(proc, workspace, todo, already, label, timeout, log_path)
        run.seconds = time.perf_counter() - started
        run.pages_submitted = pages
        run.log_path = log_path
        if proc.returncode != 0:
            tail = log_path.read_text(encoding="utf-8", errors="replace").splitlines()[-15:]
            raise OcrSetupError(
                f"olmocr's pipeline exited with {proc.returncode}; last lines of {log_path}:\n" + "\n".join(tail)
            )
    run.results = collect_results(workspace, pdfs)
    for key, result in run.results.items():
        if key in todo or result.error is None:
            continue
        result.error += " (done in an earlier run; delete the OCR workspace to try again)"
    return run


def _release_stale_locks(workspace: Path) -> None:
    """Drop the work-item locks a stopped run left behind. olmocr skips a locked item for 30 minutes, so the
    next run would not resume the PDF a SIGTERM stopped; the toolkit's workspace admits one run at a time
    (core/store.py), so no lock in its OCR workspace belongs to a live run."""
    for lock in (workspace / "worker_locks").glob("worker_*.lock"):
        lock.unlink(missing_ok=True)


def _wait_with_progress(
    proc: subprocess.Popen[bytes],
    workspace: Path,
    todo: Mapping[str, Path],
    already: set[str],
    label: str,
    timeout: float | None,
    log_path: Path,
) -> None:
    """Wait for olmocr's pipeline, with a bar of the PDFs its work queue has marked done (olmocr logs to a file,
    so this is the only sign of progress); kill it past `timeout`."""
    deadline = None if timeout is None else time.monotonic() + timeout
    with contextlib.ExitStack() as stack:
        stack.callback(_end, proc)  # on any way out (Ctrl-C included) no olmocr process is left behind
        bar = stack.enter_context(progress(len(todo), f"ocr ({label})", unit="pdf"))
        while True:
            try:
                proc.wait(timeout=PROGRESS_POLL_S)
                break
            except subprocess.TimeoutExpired:
                if deadline is not None and time.monotonic() > deadline:
                    raise OcrSetupError(f"olmocr did not finish within {timeout:.0f} s; see {log_path}") from None
                if not bar.disable:
                    with contextlib.suppress(Exception):  # the queue files may be mid-write: next poll
                        bar.n = min(len(todo), len(done_paths(workspace) - already))
                        bar.refresh()


def _end(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def _no_proxy() -> str:
    current = os.environ.get("NO_PROXY") or os.environ.get("no_proxy") or ""
    return ",".join(p for p in [current, "127.0.0.1", "localhost"] if p)


# -- precomputed markdown ----------------------------------------------------------------------

_REPEAT_MD = re.compile(r"_pg(?P<page>\d+)_repeat(?P<repeat>\d+)\.md$")


def read_markdown_dir(markdown_dir: Path, pdfs: Mapping[str, Path]) -> dict[str, PdfOcr]:
    """Markdown made earlier for each PDF key (`tables/abc.pdf`): `<stem>.md` or
    `<stem>_pg<page>_repeat<n>.md`, looked up under the key's folder, then by file name alone."""
    if not markdown_dir.is_dir():
        raise FileNotFoundError(f"markdown folder {markdown_dir} does not exist")
    results: dict[str, PdfOcr] = {}
    for key in pdfs:
        stem = key[:-4] if key.lower().endswith(".pdf") else key
        result = PdfOcr(key=key, engine="markdown")
        for candidate in dict.fromkeys([stem, Path(stem).name]):
            pages = _repeat_pages(markdown_dir, candidate)
            if not pages and (markdown_dir / f"{candidate}.md").is_file():
                pages = {1: (markdown_dir / f"{candidate}.md").read_text(encoding="utf-8")}
            if pages:
                result.pages = pages
                break
        else:
            result.error_code = "markdown_missing"
            result.error = f"no markdown in {markdown_dir} (expected {stem}.md or {stem}_pg1_repeat1.md)"
        results[key] = result
    return results


def _repeat_pages(markdown_dir: Path, stem: str) -> dict[int, str]:
    folder = (markdown_dir / stem).parent
    prefix = Path(stem).name + "_pg"
    if not folder.is_dir():
        return {}
    best: dict[int, tuple[int, Path]] = {}
    for path in folder.iterdir():
        if not path.name.startswith(prefix):
            continue
        m = _REPEAT_MD.search(path.name)
        if not m or path.name[: m.start()] != Path(stem).name:
            continue
        page, repeat = int(m["page"]), int(m["repeat"])
        if page not in best or repeat < best[page][0]:
            best[page] = (repeat, path)
    return {page: path.read_text(encoding="utf-8") for page, (_, path) in sorted(best.items())}
