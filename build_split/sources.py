"""The run's source: its items (from --input, the embedded sample or the Hub) and its sample's authored records.

The source decides everything (core/sources.py); this module only turns the run's options into its request."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from build_split.options import RunOptions
from core.loading import LoadResult
from core.models import SourceItem
from core.sources import LoadRequest, get_source


def sample_input(source: str) -> Path:
    return get_source(source).sample_input()


def sample_authored(source: str) -> Path | None:
    return get_source(source).sample_authored()


def load_request(options: RunOptions) -> LoadRequest:
    source = get_source(options.source)
    return LoadRequest(
        path=source.sample_input() if options.sample else options.input,
        sample=options.sample,
        workspace=options.workspace,
        options=options.source_options,
        limit=options.limit,
        seed=options.seed,
    )


def stream_source(options: RunOptions) -> tuple[Iterable[SourceItem], LoadResult]:
    """The source's items to consume once, and the result that holds their problems once they are consumed
    (a source that can stream its items never holds them all in memory)."""
    return get_source(options.source).stream(load_request(options))


def load_source(options: RunOptions) -> LoadResult:
    """Run the source's loader on --input, the embedded sample, or the Hub."""
    return get_source(options.source).load(load_request(options))
