"""The reviewer pass's flags on a record, and how the curator resolved each (stored in `Provenance.review`).

A flag names one JSON path and one problem with a short reason: the reviewer's codes are `FLAG_CODES`; the
gate's deterministic checks raise their own (any snake_case code, `raised_by` "gate:<judge>"). It is `open` until the
curator resolves it in Label Studio: `fixed` (the record was edited) or `dismissed` with a note saying why
the flag is wrong. A record moves on to the judge only when none of its flags is open; a dismissed flag is
not raised again for the same path, so a curator is never asked twice about the same doubt.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

FlagCode = Literal[
    "missing_field", "type_mismatch", "ungrounded_value", "evidence_mismatch", "ambiguous_question", "answer_not_unique"
]
FLAG_CODES: tuple[str, ...] = (
    "missing_field",
    "type_mismatch",
    "ungrounded_value",
    "evidence_mismatch",
    "ambiguous_question",
    "answer_not_unique",
)
FlagStatus = Literal["open", "fixed", "dismissed"]
CODE_PATTERN = r"^[a-z][a-z0-9_]{0,63}$"  # snake_case: the reviewer's six and the gate's codes


class ReviewFlag(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str  # "R1", "R2", ...: what the curator names in the flag resolutions
    code: str = Field(pattern=CODE_PATTERN)
    path: str = "$"
    reason: str = Field(max_length=1_000)
    status: FlagStatus = "open"
    note: str | None = Field(default=None, max_length=2_000)  # the curator's note (required to dismiss)
    resolved_by: str | None = None
    raised_by: str | None = None  # "gate:<judge>" for the gate's flags; None: the reviewer pass

    @property
    def key(self) -> tuple[str, str]:
        return (self.code, self.path)


class ReviewInfo(BaseModel):
    """The last review of a record: who reviewed which content, and every flag raised so far."""

    model_config = ConfigDict(extra="forbid")

    reviewer: str  # "<backend>:<model>"
    version: str  # the review prompt version
    reviewed_at: datetime
    subject_hash: str  # review_subject() of the record reviewed: a changed record is reviewed again
    flags: list[ReviewFlag] = Field(default_factory=list)

    @property
    def open_flags(self) -> list[ReviewFlag]:
        return [f for f in self.flags if f.status == "open"]


def review_subject(question: str, json_schema: Any, ground_truth: Any, evidence: dict[str, Any]) -> dict[str, Any]:
    """What a review looks at: question, schema, answer and the curator's evidence (not toolkit-located
    spans, not offsets), so re-resolving offsets does not count as a change."""
    shown: dict[str, Any] = {}
    for path, item in sorted(evidence.items()):
        if getattr(item, "auto", False):
            continue
        data = (
            item.model_dump(exclude_none=True, exclude={"start", "end", "auto"})
            if hasattr(item, "model_dump")
            else dict(item)
        )
        if not data.get("sources"):
            data.pop("sources", None)
        shown[path] = data
    return {"question": question, "json_schema": json_schema, "ground_truth": ground_truth, "evidence": shown}


def subject_hash(subject: dict[str, Any]) -> str:
    text = json.dumps(subject, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
