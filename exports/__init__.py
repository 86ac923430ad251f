"""Releases: Parquet data files per split, a dataset card, plots and a manifest per version, and
their publication to a Hugging Face dataset repo (or a local folder laid out like one)."""

from exports.card import SOURCE_CARDS, render_card
from exports.changelog import compute_changelog, diff_releases, format_changelog
from exports.columns import SOURCE_COLUMNS, arrow_schema, column_names, record_row
from exports.hub import (
    HubUnavailableError,
    PublishError,
    PublishResult,
    Target,
    parse_target,
    publish_release,
    tag_name,
)
from exports.release import (
    EmptyReleaseError,
    ReleaseError,
    ReleaseExistsError,
    ReleaseResult,
    release_dir,
    verify_release,
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
    "HubUnavailableError",
    "PublishError",
    "PublishResult",
    "ReleaseError",
    "ReleaseExistsError",
    "ReleaseResult",
    "StatsCollector",
    "Target",
    "arrow_schema",
    "column_names",
    "compute_changelog",
    "compute_split",
    "count_tokens",
    "diff_releases",
    "format_changelog",
    "get_tokenizer",
    "parse_target",
    "parse_version",
    "plan_splits",
    "previous_version",
    "publish_release",
    "record_row",
    "release_dir",
    "render_card",
    "split_names",
    "tag_name",
    "tokenizer_name",
    "verify_release",
    "write_release",
]
