"""The image source's libraries come with the `[image]` extra: one check before any work, one fix named.

The text and audio sources run on the base install; olmocr and what only it needs (its cloud storage
clients, PDF renderers, playwright for olmOCR-bench's math tests) are installed with
`pip install -e '.[image]'`. Without them `--source olmocr` stops with this message, not a traceback.
"""

from __future__ import annotations

import importlib

INSTALL_IMAGE_EXTRA = "pip install -e '.[image]'"

# What the image source imports: the OCR pipeline, olmOCR-bench's test classes (fuzzysearch,
# beautifulsoup4, playwright) and pypdf (olmocr's own dependency), which counts a PDF's pages.
IMAGE_MODULES: tuple[str, ...] = ("olmocr", "olmocr.bench.tests", "pypdf")


class ImageExtraMissingError(ValueError):
    """A library of the `[image]` extra cannot be imported; the message names the install command."""


def missing_image_extra(exc: ImportError) -> ImageExtraMissingError:
    """The error for an import of the image source that failed: what is missing and how to install it."""
    missing = exc.name.split(".")[0] if exc.name else str(exc)  # the package, not the submodule asked for
    return ImageExtraMissingError(
        f"the image source (--source olmocr) needs the [image] extra, and {missing!r} cannot be imported: "
        f"{INSTALL_IMAGE_EXTRA}"
    )


def require_image_extra() -> None:
    """Import every library the image source uses; raise `ImageExtraMissingError` naming the fix if one fails."""
    for module in IMAGE_MODULES:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise missing_image_extra(exc) from exc
