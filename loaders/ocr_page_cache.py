"""Pages the CPU OCR endpoint has read, kept on disk so a stopped run resumes where it stopped.

olmocr keeps its results per PDF: a run stopped in the middle of a long PDF keeps none of its pages, and the
next run renders and sends every page again. The endpoint (loaders/ocr_server.py) answers a page it has read
before from this cache, keyed by the SHA-256 of the page image (pdftoppm renders a page to the same PNG every
time) and the engine's version, so only the pages not read yet cost any OCR. Each page is written to a
temporary file and renamed into place: a stop while writing leaves no half page behind.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

ENGINE_VERSION = "tesseract-markdown-1"  # bump when ocr_page_png's output changes: older pages are not reused


class PageCache:
    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)

    def _path(self, png: bytes) -> Path:
        digest = hashlib.sha256(ENGINE_VERSION.encode("ascii") + b"\0" + png).hexdigest()
        return self.folder / digest[:2] / f"{digest}.md"

    def get(self, png: bytes) -> str | None:
        try:
            return self._path(png).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def put(self, png: bytes, content: str) -> None:
        path = self._path(png)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".page-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(content)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def __len__(self) -> int:
        return sum(1 for _ in self.folder.glob("*/*.md")) if self.folder.is_dir() else 0
