"""The optional `page_image` column of the `image` config (`--with-page-images`): the record's rendered pages.

SOB's columns are text only; with this column a release can evaluate vision models too. The pages are the PNGs
the olmOCR loader rendered for curators (`<workspace>/media/page-images/...`, listed in a record's
`metadata.extra.page_images`). The column is a `datasets.List(datasets.Image())`, one image per page in page
order, so its type is the same whether a PDF has one page or several; the PNG bytes are stored in the data
file (`{"bytes", "path"}`, the way `datasets` stores an `Image`), so the release needs no other files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

from core.sources import sources as registered_sources

COLUMN = "page_image"
EXTRA_KEY = "page_images"  # in a record's metadata.extra: the pages' PNGs, relative to the workspace
DOC = "the rendered page(s) of the document, in page order (a list of images, PNG)"


class PageImagesError(ValueError):
    """A record has no rendered page, or a page's PNG is missing or unreadable."""


def sources_with_pages() -> tuple[str, ...]:
    """The registered sources whose records carry their rendered pages."""
    return tuple(source.name for source in registered_sources() if source.release_page_images)


def supports(source: str) -> bool:
    return source in sources_with_pages()


def feature() -> Any:
    """The column's `datasets` feature."""
    from datasets import Image, List

    return List(Image())


def arrow_type() -> pa.DataType:
    """The column's Arrow type, as `datasets` stores the feature."""
    from datasets import Features

    return Features({COLUMN: feature()}).arrow_schema.field(COLUMN).type


def column_value(workspace: Path, record_id: str, pages: Any) -> list[dict[str, Any]]:
    """The cell of one record: its pages' PNG bytes, each with its file name (`<pdf stem>/page-<n>.png`)."""
    if not isinstance(pages, list) or not pages or not all(isinstance(p, str) for p in pages):
        raise PageImagesError(f"record {record_id[:12]} has no rendered page images")
    root = Path(workspace).resolve()
    cell = []
    for relative in pages:
        path = (root / relative).resolve()
        if not path.is_relative_to(root):
            raise PageImagesError(f"record {record_id[:12]}: page image {relative!r} is outside the workspace")
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise PageImagesError(f"record {record_id[:12]}: page image {relative} cannot be read ({exc})") from exc
        if not data.startswith(b"\x89PNG\r\n\x1a\n"):
            raise PageImagesError(f"record {record_id[:12]}: page image {relative} is not a PNG")
        cell.append({"bytes": data, "path": "/".join(Path(relative).parts[-2:])})
    return cell
