"""Which loader and which embedded sample serve each source."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from build_split.options import RunOptions
from core.models import SourceItem
from loaders.base import LoadResult

SAMPLES = Path(__file__).resolve().parent.parent / "loaders" / "samples"


def sample_input(source: str) -> Path:
    return {
        "hotpotqa": SAMPLES / "hotpotqa" / "sample.json",
        "ami": SAMPLES / "ami" / "sample.ihm.jsonl",
        "olmocr": SAMPLES / "olmocr",
    }[source]


def sample_authored(source: str) -> Path:
    return SAMPLES / source / "authored.jsonl"


def stream_source(options: RunOptions) -> tuple[Iterable[SourceItem], LoadResult]:
    """The source's items to consume once, and the result that holds their problems once they are consumed.

    HotpotQA without `--limit` streams (its items are never all in memory); a `--limit` draw, AMI and
    olmOCR-bench load every item first, as `load_source` does."""
    if options.source == "hotpotqa" and options.limit is None:
        from loaders.hotpotqa import iter_hotpotqa

        result = LoadResult()
        path = sample_input(options.source) if options.sample else options.input
        return iter_hotpotqa(path, result, context_mode=options.context), result
    result = load_source(options)
    return result.items, result


def load_source(options: RunOptions) -> LoadResult:
    """Run the source's loader on --input, the embedded sample, or the Hub."""
    path = sample_input(options.source) if options.sample else options.input
    if options.source == "hotpotqa":
        from loaders.hotpotqa import load_hotpotqa

        return load_hotpotqa(path, context_mode=options.context, limit=options.limit, seed=options.seed)
    if options.source == "ami":
        from loaders.ami import load_ami

        return load_ami(path, max_context_tokens=options.max_context_tokens)
    if options.source == "olmocr":
        from loaders.olmocr_bench import load_olmocr_bench

        return load_olmocr_bench(
            path,
            workspace=options.workspace,
            categories=options.categories,
            markdown_dir=options.ocr_markdown,
            # The embedded sample runs offline anywhere: OCR through the CPU endpoint unless told otherwise.
            ocr_server=options.ocr_server or ("cpu" if options.sample else None),
            min_ocr_pass_rate=options.min_ocr_pass_rate,
            limit=options.limit,
            quota=options.olmocr_quota(),
            seed=options.seed,
            ocr_model=options.ocr_model,
            echo=print,
        )
    raise ValueError(f"unknown source {options.source!r}")
