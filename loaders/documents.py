"""A curator's own documents: text and Markdown files, JSONL/parquet rows with a text column, and PDFs.

One item per text file, per row and per PDF. `source_id` is the file's path relative to `--input` (a row adds
`#<id>` from its id column, or `#L<line>` / `#row<n>`). PDFs go through the same olmocr pipeline as olmOCR-bench
(`workspace/ocr`, resumable; `ocr_server="cpu"` is the Tesseract endpoint) and get their pages rendered as
images for Label Studio. Every file or row that cannot be used comes back as a problem with its reason: an
empty folder, an unreadable or empty file, a row without the text column, an unknown file type.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from core.loading import LoadProblem, LoadResult
from core.models import SourceItem

TEXT_SUFFIXES = frozenset({".txt", ".md", ".markdown"})
ROW_SUFFIXES = frozenset({".jsonl", ".parquet"})
PDF_SUFFIXES = frozenset({".pdf"})
KNOWN_SUFFIXES = TEXT_SUFFIXES | ROW_SUFFIXES | PDF_SUFFIXES
MAX_RAW = 2000  # characters of a rejected row kept with its problem


def _files(path: Path, result: LoadResult) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise FileNotFoundError(f"{path} is neither a file nor a folder")
    files = sorted(p for p in path.rglob("*") if p.is_file() and not any(part.startswith(".") for part in p.parts))
    if not files:
        result.problems.append(
            LoadProblem(str(path), 0, "empty_input", f"{path} holds no files: nothing to load", unit="file")
        )
    return files


def _relative(file: Path, root: Path) -> str:
    return file.name if root.is_file() else file.relative_to(root).as_posix()


def _problem(result: LoadResult, origin: str, n: int, code: str, message: str, raw: str = "", unit: str = "file"):
    result.problems.append(LoadProblem(origin, n, code, message, raw[:MAX_RAW], unit))


def _text_item(file: Path, key: str, result: LoadResult) -> SourceItem | None:
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        _problem(result, key, 1, "unreadable_text", f"{key} is not UTF-8 text ({exc.reason} at byte {exc.start})")
        return None
    except OSError as exc:
        _problem(result, key, 1, "unreadable_file", f"{key} cannot be read: {exc.strerror or exc}")
        return None
    if not any(ch.isalnum() for ch in text):
        _problem(result, key, 1, "empty_document", f"{key} has no text")
        return None
    file_type = file.suffix.lower().lstrip(".")
    return SourceItem(source="documents", source_id=key, context=text, metadata={"file": key, "file_type": file_type})


def _jsonl_rows(file: Path) -> Iterator[tuple[int, Any, str]]:
    with file.open(encoding="utf-8", errors="replace") as handle:
        for n, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield n, json.loads(line), line
            except json.JSONDecodeError as exc:
                yield n, exc, line


def _parquet_rows(file: Path) -> Iterator[tuple[int, Any, str]]:
    import pyarrow.parquet as pq

    n = 0
    for batch in pq.ParquetFile(file).iter_batches(batch_size=1024):
        for row in batch.to_pylist():
            n += 1
            yield n, row, ""


def _row_items(file: Path, key: str, text_column: str, id_column: str, result: LoadResult) -> list[SourceItem]:
    jsonl = file.suffix.lower() == ".jsonl"
    unit = "line" if jsonl else "row"
    try:
        rows = list(_jsonl_rows(file) if jsonl else _parquet_rows(file))
    except Exception as exc:  # pyarrow raises many kinds on a broken file: the file is the problem
        _problem(result, key, 0, "unreadable_file", f"{key} cannot be read: {type(exc).__name__}: {exc}")
        return []
    if not rows:
        _problem(result, key, 0, "empty_document", f"{key} has no rows")
    items: list[SourceItem] = []
    seen: set[str] = set()
    for n, row, raw in rows:
        result.rows_read += 1
        raw = raw or json.dumps(row, ensure_ascii=False, default=str)
        if isinstance(row, Exception):
            _problem(result, key, n, "bad_json", f"{key} {unit} {n} is not JSON: {row}", raw, unit)
            continue
        if not isinstance(row, dict):
            _problem(result, key, n, "not_an_object", f"{key} {unit} {n} is not an object", raw, unit)
            continue
        text = row.get(text_column)
        if text_column not in row:
            message = f"{key} {unit} {n} has no {text_column!r} column (give the right one with --text-column)"
            _problem(result, key, n, "no_text_column", message, raw, unit)
            continue
        if not isinstance(text, str) or not any(ch.isalnum() for ch in text):
            _problem(result, key, n, "empty_document", f"{key} {unit} {n}: {text_column!r} holds no text", raw, unit)
            continue
        row_id = row.get(id_column)
        suffix = str(row_id) if isinstance(row_id, str | int) and str(row_id).strip() else f"{unit[0]}{n}"
        source_id = f"{key}#{suffix}"
        if source_id in seen:
            message = f"{key} {unit} {n}: id {suffix!r} appears again; the first is kept"
            _problem(result, key, n, "duplicate_source_id", message, raw, unit)
            continue
        seen.add(source_id)
        metadata = {"file": key, "file_type": file.suffix.lower().lstrip("."), "row": n}
        extra = {k: v for k, v in row.items() if k not in (text_column, id_column) and isinstance(v, str | int | float)}
        if extra:
            metadata["fields"] = extra
        items.append(SourceItem(source="documents", source_id=source_id, context=text, metadata=metadata))
    return items


def _pdf_items(
    pdfs: dict[str, Path],
    workspace: Path,
    result: LoadResult,
    *,
    ocr_server: str | None,
    ocr_model: str | None,
    echo: Callable[[str], None] | None,
) -> list[SourceItem]:
    """OCR the readable PDFs with olmocr (the olmOCR-bench source's path) and render their pages for curators."""
    from loaders.ocr import run_olmocr
    from loaders.olmocr_bench import pdf_page_count
    from loaders.page_images import RenderError, render_pdf_pages

    readable: dict[str, tuple[Path, int]] = {}
    for key, path in pdfs.items():
        pages, why = pdf_page_count(path)
        if why is not None:
            _problem(result, key, 1, "unreadable_pdf", f"{key}: {why}")
        else:
            readable[key] = (path, pages)
    if not readable:
        return []
    run = run_olmocr(
        {key: path for key, (path, _) in readable.items()},
        workspace / "ocr",
        server=ocr_server,
        model=ocr_model,
        echo=echo,
    )
    items: list[SourceItem] = []
    for key, (path, pages) in readable.items():
        ocr = run.results.get(key)
        if ocr is None or ocr.error:
            why = ocr.error if ocr is not None else "olmocr returned nothing for it"
            _problem(result, key, 1, (ocr.error_code if ocr else None) or "ocr_failed", f"{key}: {why}")
            continue
        markdown = ocr.markdown
        if not any(ch.isalnum() for ch in markdown):
            _problem(result, key, 1, "ocr_empty", f"{key}: the OCR text is empty (a blank or image-only page?)")
            continue
        try:
            images = render_pdf_pages(workspace, f"documents/{key}", path, pages)
        except RenderError as exc:
            _problem(result, key, 1, "page_image_failed", f"{key}: {exc}")
            continue
        metadata = {
            "file": key,
            "file_type": "pdf",
            "pages": pages,
            "ocr_engine": ocr.engine,
            "ocr_server": run.server,
            "ocr_fallback_pages": ocr.fallback_pages,
            "page_images": [image.relative for image in images],
        }
        items.append(SourceItem(source="documents", source_id=key, context=markdown, metadata=metadata))
    return items


def load_documents(
    path: Path,
    *,
    workspace: Path,
    text_column: str = "text",
    id_column: str = "id",
    ocr_server: str | None = None,
    ocr_model: str | None = None,
    echo: Callable[[str], None] | None = None,
) -> LoadResult:
    """Every document under `path` (a file or a folder, searched recursively; hidden files are skipped)."""
    result = LoadResult()
    path = Path(path)
    pdfs: dict[str, Path] = {}
    for file in _files(path, result):
        key = _relative(file, path)
        suffix = file.suffix.lower()
        if suffix in TEXT_SUFFIXES:
            result.rows_read += 1
            item = _text_item(file, key, result)
            if item is not None:
                result.items.append(item)
        elif suffix in ROW_SUFFIXES:
            result.items.extend(_row_items(file, key, text_column, id_column, result))
        elif suffix in PDF_SUFFIXES:
            result.rows_read += 1
            pdfs[key] = file
        else:
            result.rows_read += 1
            known = ", ".join(sorted(KNOWN_SUFFIXES))
            _problem(result, key, 1, "unknown_file_type", f"{key}: {suffix or 'no'} extension is not one of {known}")
    result.items.extend(
        _pdf_items(pdfs, workspace, result, ocr_server=ocr_server, ocr_model=ocr_model, echo=echo) if pdfs else []
    )
    result.items.sort(key=lambda item: item.source_id)
    return result
