"""What every loader returns: the items it built and the inputs it could not use, with reasons."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.models import SourceItem


@dataclass(frozen=True)
class LoadProblem:
    """An input row that did not become a source item. Kept and reported, never dropped silently."""

    origin: str  # file name (or hub split) the row came from
    line_no: int  # 1-based line (JSONL) or row index (JSON list, parquet)
    code: str
    message: str
    raw: str = ""


@dataclass
class LoadResult:
    items: list[SourceItem] = field(default_factory=list)
    problems: list[LoadProblem] = field(default_factory=list)
    rows_read: int = 0
