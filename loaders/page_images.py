"""Page images of PDFs, rendered with poppler's `pdftoppm` into the workspace for curators.

Curators correct the OCR transcript against the page itself, so every page of a kept PDF is
rendered once to PNG under `<workspace>/media/page-images/` (the PDF's key without `.pdf`, then
`page-<n>.png`), with the long side at `DEFAULT_LONG_SIDE` pixels: small print stays readable
and a page fits a screen at full width. Label Studio serves them as local files, with
`<workspace>/media` as its LOCAL_FILES_DOCUMENT_ROOT (`/data/local-files/?d=page-images/...`, see
`authoring.page_tasks`). A page already rendered at the same size is not rendered again.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

MEDIA_DIR = "media"  # under the workspace: what Label Studio may serve (its local-files document root)
IMAGES_DIR = "page-images"  # under MEDIA_DIR
DEFAULT_LONG_SIDE = 1600  # pixels on the page's long side (about 145 dpi for US Letter)
MIN_LONG_SIDE, MAX_LONG_SIDE = 400, 6000


class RenderError(RuntimeError):
    """pdftoppm is missing or could not render a page; the message says which and why."""


@dataclass(frozen=True)
class PageImage:
    page: int
    path: Path  # absolute
    relative: str  # to the workspace (kept in the source item's metadata)


def media_root(workspace: Path) -> Path:
    return Path(workspace).resolve() / MEDIA_DIR


def images_root(workspace: Path) -> Path:
    return media_root(workspace) / IMAGES_DIR


def image_path(workspace: Path, key: str, page: int) -> Path:
    stem = key[:-4] if key.lower().endswith(".pdf") else key
    return images_root(workspace) / stem / f"page-{page}.png"


def require_pdftoppm() -> str:
    path = shutil.which("pdftoppm")
    if path is None:
        raise RenderError("page images are rendered with poppler's pdftoppm: apt-get install -y poppler-utils")
    return path


def render_page(pdf: Path, page: int, out: Path, long_side: int = DEFAULT_LONG_SIDE, timeout: float = 120.0) -> Path:
    """Render one page (1-based) of `pdf` to the PNG `out`, its long side `long_side` pixels."""
    if not MIN_LONG_SIDE <= long_side <= MAX_LONG_SIDE:
        raise ValueError(f"page image size must be {MIN_LONG_SIDE}-{MAX_LONG_SIDE} pixels, got {long_side}")
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.stem + ".partial")  # pdftoppm adds .png; renamed when complete
    command = [require_pdftoppm(), "-png", "-f", str(page), "-l", str(page), "-scale-to", str(long_side)]
    command += ["-singlefile", str(pdf), str(partial)]
    try:
        proc = subprocess.run(command, capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        raise RenderError(f"pdftoppm did not render page {page} of {pdf} within {timeout:.0f} s") from exc
    produced = partial.with_name(partial.name + ".png")
    if proc.returncode != 0 or not produced.is_file():
        produced.unlink(missing_ok=True)
        why = proc.stderr.decode("utf-8", "replace").strip()[-300:] or f"exit code {proc.returncode}"
        raise RenderError(f"pdftoppm could not render page {page} of {pdf}: {why}")
    produced.replace(out)
    return out


def render_pdf_pages(
    workspace: Path, key: str, pdf: Path, pages: int, long_side: int = DEFAULT_LONG_SIDE
) -> list[PageImage]:
    """Every page of one PDF as a PNG in the workspace; pages already there at this size are kept."""
    root = Path(workspace).resolve()
    images: list[PageImage] = []
    for page in range(1, pages + 1):
        out = image_path(root, key, page)
        if not out.resolve().is_relative_to(images_root(root).resolve()):  # a PDF named `../../x.pdf`
            raise RenderError(f"{key!r} would put its page images outside {images_root(root)}")
        if not (out.is_file() and _long_side(out) == long_side):
            render_page(pdf, page, out, long_side)
        images.append(PageImage(page, out, out.relative_to(root).as_posix()))
    return images


def _long_side(png: Path) -> int:
    try:
        return max(png_size(png))
    except (OSError, ValueError):
        return 0


def png_size(png: Path | bytes) -> tuple[int, int]:
    """(width, height) of a PNG file or PNG bytes."""
    if isinstance(png, bytes):
        head = png[:24]
    else:
        with Path(png).open("rb") as handle:
            head = handle.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
