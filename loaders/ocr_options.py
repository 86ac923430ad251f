"""The OCR options every PDF source shares (`--ocr-server`, `--ocr-model`), added to the CLI once."""

from __future__ import annotations

import argparse

OCR_FLAGS = ("--ocr-server", "--ocr-model")


def add_ocr_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `--ocr-server` and `--ocr-model` unless another PDF source added them already."""
    if any(flag in parser._option_string_actions for flag in OCR_FLAGS):
        return
    group = parser.add_argument_group("OCR of PDFs (the olmocr pipeline)")
    group.add_argument(
        "--ocr-server",
        metavar="cpu|URL",
        help="'cpu' starts a Tesseract endpoint for the run; a URL uses any OpenAI-compatible olmOCR server; "
        "unset on a GPU machine, olmocr starts vLLM itself",
    )
    group.add_argument("--ocr-model", help="model name the OCR server serves (default: olmocr's)")
