"""One line of an authored-records file made ready to store: checked, built into its record, and serialised
with the digests the store keys it by (core/record_texts.py).

It is pure, so a large import runs it in a worker process while the main process writes the batch before
(authoring/file_import.py): the worker gets the line's bytes and its source item as stored, and sends back
text, never the record itself, which costs more to send than to parse again.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from datetime import datetime
from functools import lru_cache

from pydantic import ValidationError
from pydantic_core import from_json

from core.authored_line import AuthoredLine
from core.boundary import InputLine, input_line
from core.evidence import Evidence, parse_evidence_map
from core.limits import check_nesting
from core.models import Provenance, Reason, Record, SourceItem
from core.record_texts import RecordTexts, record_texts
from validation import characters

STAGE = "import"


@dataclass(frozen=True)
class LineJob:
    number: int
    data: bytes | InputLine  # the line as read, or its rejection by the reader (a line too long)
    source_id: str | None  # the id the line names, as `named_source_id` read it: its item was looked up
    item: SourceItem | str | None  # that item, or its stored JSON text; None when unknown
    authored_via: str  # `file:<name>`
    authored_at: datetime


@dataclass(frozen=True)
class ReadyLine:
    """A line that became a record: the record (None once sent from a worker: `record_of` parses its text)."""

    number: int
    raw: str  # the start of the line, for a rejection as a duplicate
    line_sha256: str
    record_id: str
    texts: RecordTexts
    record: Record | None = None

    def record_of(self) -> Record:
        return self.record if self.record is not None else Record.model_validate_json(self.texts.record_json)


@dataclass(frozen=True)
class RejectedLine:
    number: int
    raw: str
    reasons: list[Reason]
    unreadable_item: str | None = None  # the line's source item is stored but does not parse


@dataclass(frozen=True)
class NeedsItem:
    """The line names another source id than the one looked up for it: look that one up and prepare it again."""

    number: int
    source_id: str


LineOutcome = ReadyLine | RejectedLine | NeedsItem | None  # None: a blank line


def named_source_id(data: bytes | InputLine) -> str | None:
    """The `source_id` a line names, read without any check (the line's own check comes later): which source
    item to look up for it. None when the line names none that can be read."""
    if isinstance(data, InputLine):
        return None
    try:
        value = from_json(data)  # compiled, with its own depth limit: no line can make it recurse for long
    except ValueError:  # not JSON, or JSON only `json` reads (a lone surrogate, 200 levels): the line's check decides
        return None
    found = value.get("source_id") if isinstance(value, dict) else None
    return found if isinstance(found, str) else None


def prepare_line(job: LineJob) -> LineOutcome:
    """The line checked, its record built on its source item and serialised; or why it is rejected."""
    parsed = job.data if isinstance(job.data, InputLine) else input_line(job.number, job.data)
    if parsed is None:
        return None
    outcome = _check_line(parsed)
    if not isinstance(outcome, tuple):
        return RejectedLine(parsed.number, parsed.raw, outcome)
    authored, evidence = outcome
    if authored.source_id != job.source_id:
        return NeedsItem(parsed.number, authored.source_id)
    item, unreadable = _item(job)
    if item is None:
        reason = Reason(
            stage=STAGE,
            code="unknown_source_id",
            message=f"line {parsed.number}: source_id {authored.source_id!r} is not a loaded source item "
            "(load its source first, or fix the id)",
            path="$.source_id",
        )
        return RejectedLine(parsed.number, parsed.raw, [reason], unreadable_item=unreadable)
    record = Record.build(
        item,
        authored.question,
        authored.json_schema,
        authored.ground_truth,
        Provenance(
            annotator=authored.annotator,
            authored_via=job.authored_via,
            authored_at=job.authored_at,
            draft_model=authored.draft_model,
            time_spent_s=authored.time_spent_s,
        ),
        evidence=evidence,
    )
    digest = hashlib.sha256(parsed.raw.encode("utf-8")).hexdigest()
    return ReadyLine(parsed.number, parsed.raw, digest, record.record_id, record_texts(record), record)


def prepare_line_to_send(job: LineJob) -> LineOutcome:
    """`prepare_line` in a worker process: the record stays behind, its text goes."""
    outcome = prepare_line(job)
    return replace(outcome, record=None) if isinstance(outcome, ReadyLine) else outcome


def _item(job: LineJob) -> tuple[SourceItem | None, str | None]:
    """(the line's source item, None), or (None, its id) when its stored text no longer parses."""
    if not isinstance(job.item, str):
        return job.item, None
    item = _parsed_item(job.item)
    return (item, None) if item is not None else (None, job.source_id)


@lru_cache(maxsize=64)
def _parsed_item(text: str) -> SourceItem | None:
    """An item's stored text parsed once, not once per line: a curator writes several records on one item, and
    its lines come one after another (a batch's lines share one item, as when the items were looked up parsed)."""
    try:
        return SourceItem.model_validate_json(text)
    except ValidationError:
        return None


def _reasons_from_pydantic(exc: ValidationError) -> list[Reason]:
    reasons = []
    for error in exc.errors():
        loc = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error["loc"])
        code = {"missing": "missing_field", "extra_forbidden": "unknown_field"}.get(error["type"], "invalid_field")
        reasons.append(Reason(stage=STAGE, code=code, message=f"{loc}: {error['msg']}", path=loc))
    return reasons


def _check_line(parsed: InputLine) -> tuple[AuthoredLine, dict[str, Evidence]] | list[Reason]:
    """Every check of one line that does not need its source item: the line and its evidence, or why not."""
    line_no = parsed.number
    if parsed.problem is not None:
        return [Reason(stage=STAGE, code=parsed.problem.code, message=f"line {line_no}: {parsed.problem}")]
    payload = parsed.value
    if not isinstance(payload, dict):
        return [Reason(stage=STAGE, code="not_an_object", message=f"line {line_no}: expected a JSON object")]
    try:
        authored = AuthoredLine.model_validate(payload)
    except ValidationError as exc:
        return _reasons_from_pydantic(exc)
    too_big = check_nesting(authored.json_schema, authored.ground_truth)
    if too_big:
        # The same limits the validation stage applies, here before anything is stored.
        return [
            Reason(stage=STAGE, code=f.code, message=f"line {line_no}: {f.message}", path=f"$.{f.check}")
            for f in too_big
        ]
    authored, hidden = _characters(authored, line_no)
    if hidden:
        return hidden
    evidence, problems = parse_evidence_map(authored.evidence)
    if problems:
        return [
            Reason(stage=STAGE, code="invalid_evidence", message=f"line {line_no}: {where}: {why}", path=where)
            for where, why in problems
        ]
    return authored, evidence


def _characters(authored: AuthoredLine, line_no: int) -> tuple[AuthoredLine, list[Reason]]:
    """The line in one Unicode normalisation (validation/characters.py), and a reason for every ground-truth
    string that holds a character nobody can see or a word that mixes look-alike alphabets."""
    if all(characters.plain_ascii(part) for part in (authored.question, authored.ground_truth, authored.evidence)):
        return authored, []  # nothing to normalise or to find
    authored = authored.model_copy(
        update={
            "question": characters.normalised(authored.question),
            "ground_truth": characters.normalised(authored.ground_truth),
            "evidence": characters.normalised(authored.evidence),
        }
    )
    reasons = [
        Reason(stage=STAGE, code=code, message=f"line {line_no}: {where} {message}", path=where)
        for where, code, message in characters.value_problems(authored.ground_truth)
    ]
    return authored, reasons
