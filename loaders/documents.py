"""A curator's own documents: text and Markdown files, JSONL/parquet rows with a text column, and PDFs.

One item per text file, per row and per PDF. `source_id` is the file's path relative to `--input` (`%` and
`#` escaped as `%25`, `%23`; a row adds `#<id>` from its id column, or `#l<line>` / `#r<row>`). Only regular
files inside `--input` are read (loaders/document_input.py); rows are held to the input limits one by one
(loaders/document_rows.py). PDFs go through the same olmocr pipeline as olmOCR-bench (`workspace/ocr`,
resumable; `ocr_server="cpu"` is the Tesseract endpoint), at most `max_pdf_pages` pages each, and get their
pages rendered as images for Label Studio. Every file or row that cannot be used comes back as a problem with
its reason: an empty folder, a link leading outside, a special file, an unreadable, empty or too large file, a
row beyond the limits or without the text column, an unknown file type.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from core.limits import MAX_LINE_BYTES, MAX_STRING_CHARS
from core.loading import LoadResult
from core.models import SourceItem
from loaders.document_input import FoundFile, document_item, find_files, open_regular, reject
from loaders.document_rows import row_items

TEXT_SUFFIXES = frozenset({".txt", ".md", ".markdown"})
ROW_SUFFIXES = frozenset({".jsonl", ".parquet"})
PDF_SUFFIXES = frozenset({".pdf"})
KNOWN_SUFFIXES = TEXT_SUFFIXES | ROW_SUFFIXES | PDF_SUFFIXES
MAX_DOCUMENT_BYTES = MAX_LINE_BYTES  # one text file, as one line of any other loader's input
DEFAULT_MAX_PDF_PAGES = 50  # about what 100,000 characters of OCR text fill; --max-pdf-pages changes it


def _too_long(name: str, size: int, what: str) -> str:
    return f"{name} has {size:,} characters (at most {MAX_STRING_CHARS:,} per document): {what}"


def _text_item(file: FoundFile, result: LoadResult) -> SourceItem | None:
    name = file.name
    try:
        with open_regular(file.path) as handle:
            size = os.fstat(handle.fileno()).st_size
            data = handle.read(MAX_DOCUMENT_BYTES + 1) if size <= MAX_DOCUMENT_BYTES else b""
    except OSError as exc:
        reject(result, name, 1, "unreadable_file", f"{name} cannot be read: {exc.strerror or exc}")
        return None
    size = max(size, len(data))
    if size > MAX_DOCUMENT_BYTES:  # never read whole: the size alone rejects it
        message = f"{name} has {size:,} bytes (at most {MAX_DOCUMENT_BYTES:,} per document): split it"
        reject(result, name, 1, "file_too_large", message)
        return None
    try:
        text = data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")  # newlines as text mode reads them
    except UnicodeDecodeError as exc:
        reject(result, name, 1, "unreadable_text", f"{name} is not UTF-8 text ({exc.reason} at byte {exc.start})")
        return None
    if not any(ch.isalnum() for ch in text):
        reject(result, name, 1, "empty_document", f"{name} has no text")
        return None
    if len(text) > MAX_STRING_CHARS:
        reject(result, name, 1, "text_too_long", _too_long(name, len(text), "split it"), text[:200])
        return None
    return document_item(file.key, text, {"file": name, "file_type": file.suffix.lstrip(".")})


def _pdf_items(
    pdfs: list[FoundFile],
    workspace: Path,
    result: LoadResult,
    *,
    max_pages: int,
    ocr_server: str | None,
    ocr_model: str | None,
    echo: Callable[[str], None] | None,
) -> list[SourceItem]:
    """OCR the readable PDFs with olmocr (the olmOCR-bench source's path) and render their pages for curators."""
    from loaders.ocr import run_olmocr
    from loaders.olmocr_bench import pdf_page_count
    from loaders.page_images import RenderError, render_pdf_pages

    readable: dict[str, tuple[FoundFile, int]] = {}
    for file in pdfs:
        name = file.name
        pages, why = pdf_page_count(file.path)
        if why is not None:
            reject(result, name, 1, "unreadable_pdf", f"{name}: {why}")
        elif pages > max_pages:  # checked before any OCR: a 3,000-page PDF would hold the OCR for hours
            message = f"{name} has {pages:,} pages (at most {max_pages:,}): split it, or raise --max-pdf-pages"
            reject(result, name, 1, "too_many_pages", message)
        else:
            readable[file.key] = (file, pages)
    if not readable:
        return []
    run = run_olmocr(
        {key: file.path for key, (file, _) in readable.items()},
        workspace / "ocr",
        server=ocr_server,
        model=ocr_model,
        echo=echo,
    )
    items: list[SourceItem] = []
    for key, (file, pages) in readable.items():
        name = file.name
        ocr = run.results.get(key)
        if ocr is None or ocr.error:
            why = ocr.error if ocr is not None else "olmocr returned nothing for it"
            reject(result, name, 1, (ocr.error_code if ocr else None) or "ocr_failed", f"{name}: {why}")
            continue
        markdown = ocr.markdown
        if not any(ch.isalnum() for ch in markdown):
            reject(result, name, 1, "ocr_empty", f"{name}: the OCR text is empty (a blank or image-only page?)")
            continue
        if len(markdown) > MAX_STRING_CHARS:
            reject(result, name, 1, "text_too_long", _too_long(name, len(markdown), "split the PDF"), markdown[:200])
            continue
        try:
            images = render_pdf_pages(workspace, f"documents/{key}", file.path, pages)
        except RenderError as exc:
            reject(result, name, 1, "page_image_failed", f"{name}: {exc}")
            continue
        metadata = {
            "file": name,
            "file_type": "pdf",
            "pages": pages,
            "ocr_engine": ocr.engine,
            "ocr_server": run.server,
            "ocr_fallback_pages": ocr.fallback_pages,
            "page_images": [image.relative for image in images],
        }
        items.append(document_item(key, markdown, metadata))
    return items


def load_documents(
    path: Path,
    *,
    workspace: Path,
    text_column: str = "text",
    id_column: str = "id",
    max_pdf_pages: int = DEFAULT_MAX_PDF_PAGES,
    ocr_server: str | None = None,
    ocr_model: str | None = None,
    echo: Callable[[str], None] | None = None,
) -> LoadResult:
    """Every document under `path` (a file, or a folder searched recursively: hidden names below it are
    skipped, and only regular files inside it are read)."""
    result = LoadResult()
    pdfs: list[FoundFile] = []
    for file in find_files(Path(path), result):
        suffix = file.suffix
        if suffix in TEXT_SUFFIXES:
            result.rows_read += 1
            item = _text_item(file, result)
            if item is not None:
                result.items.append(item)
        elif suffix in ROW_SUFFIXES:
            result.items.extend(row_items(file, text_column, id_column, result))
        elif suffix in PDF_SUFFIXES:
            result.rows_read += 1
            pdfs.append(file)
        else:
            result.rows_read += 1
            known = ", ".join(sorted(KNOWN_SUFFIXES))
            message = f"{file.name}: {suffix or 'no'} extension is not one of {known}"
            reject(result, file.name, 1, "unknown_file_type", message)
    if pdfs:
        result.items.extend(
            _pdf_items(
                pdfs, workspace, result, max_pages=max_pdf_pages, ocr_server=ocr_server, ocr_model=ocr_model, echo=echo
            )
        )
    result.items.sort(key=lambda item: item.source_id)
    return result
