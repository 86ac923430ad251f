"""What the store hands out and takes in: a state change, a stored record (as text and parsed), upsert counts,
and payloads as the JSON text they are stored as (secrets masked)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from pydantic import ValidationError

from core.models import Reason, Record, RecordState
from core.redaction import redact

UNREADABLE_RECORD = "unreadable_record"


@dataclass
class StateChange:
    """One record moving to a state, with the payloads the stage produced."""

    record_id: str
    to_state: RecordState
    stage: str
    reasons: list[Reason] = field(default_factory=list)
    reasons_json: str | None = None  # or: the reasons already serialised (`reasons_payload`, by a worker process)
    record: Record | None = None  # the whole record replaced (its stage outputs then come with it)
    derived_json: str | None = None  # or: the stage outputs beside the record (core/derived.py)
    validation: dict[str, Any] | None = None
    validation_json: str | None = None  # the same, already serialised (by a worker process)
    judge: dict[str, Any] | None = None
    judge_json: str | None = None  # the same, already serialised (by a worker process)


class RecordRow(NamedTuple):
    """One stored record as its columns' text, before parsing."""

    record: str
    state: str
    reasons: str | None
    validation: str | None
    judge: str | None
    record_id: str
    derived: str | None = None


# The columns of a RecordRow, in order.
ROW_COLUMNS = "record, state, reasons, validation, judge, record_id, derived"


@dataclass
class StoredRecord:
    record: Record  # with its stage outputs merged in
    state: RecordState
    reasons: list[Reason]
    validation: dict[str, Any] | None
    judge: dict[str, Any] | None
    derived: str | None = None  # the stage outputs as stored, for a stage that adds to them


@dataclass
class UpsertCounts:
    new: int = 0
    changed: int = 0
    unchanged: int = 0

    def __iadd__(self, other: UpsertCounts) -> UpsertCounts:
        self.new += other.new
        self.changed += other.changed
        self.unchanged += other.unchanged
        return self


def parse_error_summary(error: Exception) -> str:
    """What pydantic found first, without the row's text (which can be huge)."""
    if isinstance(error, ValidationError) and error.errors():
        return str(error.errors()[0]["msg"]).split(" at line ")[0]
    return " ".join(str(error).split())[:160]


def payload_json(value: Any) -> str:
    """The JSON text a payload (reasons, a verdict, an event's detail) is stored as, before masking."""
    return json.dumps(value, ensure_ascii=False, default=str)


def reasons_payload(reasons: list[Reason]) -> str:
    """The JSON text a change's reasons are stored as, before masking ("[]" for none)."""
    return payload_json([reason.model_dump() for reason in reasons])


def json_or_none(value: Any, secrets: tuple[str, ...] | None = None) -> str | None:
    """JSON text with every configured secret masked (reasons, verdicts and event details are stored so)."""
    return None if value is None else redact(payload_json(value), secrets)
