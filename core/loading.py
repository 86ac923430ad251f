"""What every loader returns: the items it built and the inputs it could not use, with reasons."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.models import SourceItem


@dataclass(frozen=True)
class LoadProblem:
    """An input row that did not become a source item. Kept and reported, never dropped silently."""

    origin: str  # file name (or hub split) the row came from
    line_no: int  # 1-based line (JSONL), item (JSON list) or row (parquet, Hub); `unit` says which
    code: str
    message: str
    raw: str = ""
    unit: str = "line"  # "line", "item" or "row": how reports name `line_no`


@dataclass
class LoadResult:
    items: list[SourceItem] = field(default_factory=list)
    problems: list[LoadProblem] = field(default_factory=list)
    rows_read: int = 0
    notes: list[str] = field(default_factory=list)  # what the run should tell the curator (e.g. a draw's outcome)
