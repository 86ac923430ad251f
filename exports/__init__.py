"""Local releases: Parquet data files per split, a dataset card and a manifest per version."""

from exports.card import SOURCE_CARDS, render_card
from exports.columns import SOURCE_COLUMNS, arrow_schema, column_names, record_row
from exports.release import (
    EmptyReleaseError,
    ReleaseError,
    ReleaseExistsError,
    ReleaseResult,
    release_dir,
    write_release,
)
from exports.splits import SPLIT_RATIOS, compute_split, plan_splits, split_names
from exports.stats import StatsCollector, count_tokens, get_tokenizer, tokenizer_name
from exports.versions import InvalidVersionError, parse_version, previous_version

__all__ = [
    "SOURCE_CARDS",
    "SOURCE_COLUMNS",
    "SPLIT_RATIOS",
    "EmptyReleaseError",
    "InvalidVersionError",
    "ReleaseError",
    "ReleaseExistsError",
    "ReleaseResult",
    "StatsCollector",
    "arrow_schema",
    "column_names",
    "compute_split",
    "count_tokens",
    "get_tokenizer",
    "parse_version",
    "plan_splits",
    "previous_version",
    "record_row",
    "release_dir",
    "render_card",
    "split_names",
    "tokenizer_name",
    "write_release",
]
