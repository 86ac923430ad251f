"""The contract of one line of an authored-records file: what a curator's file import reads
(authoring/file_import.py), and what each case of a judge's labelled set extends (judge/calibration.py)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class AuthoredLine(BaseModel):
    """The contract of one line of an authored-records file."""

    model_config = ConfigDict(extra="forbid")

    source_id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    json_schema: dict[str, Any]
    ground_truth: dict[str, Any]
    annotator: str = Field(min_length=1)
    # Where each value comes from, keyed by JSON path (core/evidence.py): a quoted string, or
    # {"kind": "normalised"|"derived"|"absent", "quote", "start", "end", "sources", "rule", "note"}.
    evidence: dict[str, Any] | None = None
    # Optional provenance a curator's own tooling may add.
    draft_model: str | None = None
    time_spent_s: float | None = None
    notes: str | None = None
