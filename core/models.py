"""Pydantic models shared by every stage: source items, records and their parts."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

from core.evidence import Evidence
from core.fast_json import canonical_json  # record ids, content hashes and cache keys are made of it
from core.review import ReviewInfo


def _registered_source(name: str) -> str:
    """A source the registry knows (core/sources.py: the built-ins and those other packages add)."""
    from core.sources import is_source, source_names  # the registry imports this module: asked at validation time

    if not is_source(name):
        raise PydanticCustomError(
            "literal_error",
            "Input should be a registered source: {expected}",
            {"expected": ", ".join(source_names())},
        )
    return name


SourceName = Annotated[str, AfterValidator(_registered_source)]


class RecordState(StrEnum):
    """Where a record stands. Every move between states is an event with reasons."""

    AUTHORED = "authored"  # a curator's answer arrived; not yet checked
    NEEDS_REVISION = "needs_revision"  # bounced back to the curator (Label Studio)
    NEEDS_REVIEW = "needs_review"  # the gate raised flags it cannot settle: a person fixes or dismisses each
    VALIDATED = "validated"  # passed every validation check; awaits the judge
    ACCEPTED = "accepted"  # passed the judge; goes into releases
    REJECTED = "rejected"  # failed a check or the judge; reasons say why
    JUDGE_ERROR = "judge_error"  # the judge kept failing; retried on the next run


def utcnow() -> datetime:
    return datetime.now(UTC)


def make_record_id(source: str, source_id: str, question: str) -> str:
    """SHA-256 of source, source id and question: stable across schema and answer edits."""
    return hashlib.sha256(canonical_json([source, source_id, question]).encode("utf-8")).hexdigest()


def content_hash(value: Any) -> str:
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


class SourceItem(BaseModel):
    """What a loader yields: one unit of source material a record can be written about."""

    model_config = ConfigDict(extra="forbid")

    source: SourceName
    source_id: str = Field(min_length=1)
    context: str
    question: str | None = None  # seed question (HotpotQA has one; AMI does not)
    answer: str | None = None  # seed answer
    question_difficulty: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class RecordInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    context: str
    question: str = Field(min_length=1)
    json_schema: dict[str, Any]


class RecordOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ground_truth: dict[str, Any]
    validated_output: dict[str, Any] | None = None
    # Where each leaf comes from, keyed by JSON path (core/evidence.py); validation resolves offsets
    # and locates the leaves a curator left without evidence (marked `auto`).
    evidence: dict[str, Evidence] = Field(default_factory=dict)


class RecordMetadata(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: SourceName
    source_id: str = Field(min_length=1)
    question_difficulty: str | None = None
    schema_complexity: str | None = None
    # Source-specific fields (HotpotQA: answer/type/level; AMI: meeting_id/num_speakers; ...)
    extra: dict[str, Any] = Field(default_factory=dict)


class Provenance(BaseModel):
    model_config = ConfigDict(extra="forbid")

    annotator: str | None = None
    authored_via: str | None = None  # "file:<name>" or "label_studio:<project>"
    authored_at: datetime | None = None
    draft_model: str | None = None
    judge: str | None = None
    judged_at: datetime | None = None
    time_spent_s: float | None = None
    # olmOCR-bench: the curator's correction of the OCR transcript that became the context
    # (authoring.page_tasks: characters changed, a line diff, the page's olmOCR-bench tests before and after).
    context_correction: dict[str, Any] | None = None
    # The reviewer pass (core/review.py): its flags per JSON path and the curator's resolutions.
    review: ReviewInfo | None = None


class Record(BaseModel):
    """`{input: {context, question, json_schema}, output: {ground_truth, validated_output}}` plus the rest."""

    model_config = ConfigDict(extra="forbid")

    record_id: str
    input: RecordInput
    output: RecordOutput
    metadata: RecordMetadata
    provenance: Provenance = Field(default_factory=Provenance)

    @classmethod
    def build(
        cls,
        item: SourceItem,
        question: str,
        json_schema: dict[str, Any],
        ground_truth: dict[str, Any],
        provenance: Provenance | None = None,
        evidence: dict[str, Evidence] | None = None,
    ) -> Record:
        extra = dict(item.metadata)
        if item.question is not None:
            extra["seed_question"] = item.question
        if item.answer is not None:
            # Kept whatever the question: the judge decides whether a reworded question still asks it.
            extra["seed_answer"] = item.answer
        # The seed answer answers the seed question only; a curator's own question has none.
        if item.answer is not None and (item.question is None or question.strip() == item.question.strip()):
            extra.setdefault("answer", item.answer)
        return cls(
            record_id=make_record_id(item.source, item.source_id, question),
            input=RecordInput(context=item.context, question=question, json_schema=json_schema),
            output=RecordOutput(ground_truth=ground_truth, evidence=evidence or {}),
            metadata=RecordMetadata(
                source=item.source,
                source_id=item.source_id,
                question_difficulty=item.question_difficulty,
                extra=extra,
            ),
            provenance=provenance or Provenance(),
        )


class Reason(BaseModel):
    """Why a record was rejected or bounced: a stable code, a message and where."""

    model_config = ConfigDict(extra="forbid")

    stage: str  # "import", "validation", "judge", "curator", ...
    code: str
    message: str
    path: str = "$"
