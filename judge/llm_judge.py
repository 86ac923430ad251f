"""The LLM judge: scores each record 0-100 per rubric dimension, with a one-sentence rationale each.

Implements the Judge protocol (`judge(record, report, threshold)`); `judge_iter` judges many
records concurrently through the client. The record goes to the model as quoted JSON data, never
as instructions. The threshold is not part of the prompt, so cached scores stay valid when it
changes; it is applied to every dimension when the verdict is made.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from core.batching import batched
from core.llm.client import LLMClient
from core.llm.prompts import load_template
from core.llm.types import LLMRequest, LLMResult
from core.models import Record
from core.redaction import redact
from core.sources import get_source
from core.verdicts import JudgeVerdict, ValidationReport
from judge.rubric import RUBRIC_VERSION, dimensions_for

STAGE = "judge"
PREFETCH = 256  # records whose cached answers are read in one query


def _system_template() -> Any:
    return load_template("judge", "judge_system")


def _user_template() -> Any:
    return load_template("judge", "judge_user")


def judge_prompt_version() -> str:
    return f"rubric-{RUBRIC_VERSION}/prompt-{_system_template().version}.{_user_template().version}"


# The reason code a failed judgement leaves on its record, by failure kind (core/llm/failures.py).
FAILURE_CODES = {
    "transient": "judge_unavailable",
    "refused": "judge_refused",
    "rejected": "judge_request_rejected",
    "malformed": "judge_malformed_reply",
    "not_sent": "judge_not_sent",
}


class JudgeFailed(RuntimeError):
    """The judge gave no usable verdict (the run leaves the record in `judge_error`).

    `failure` is the kind (transient, refused, rejected, malformed, not_sent) and `code` the reason
    code the judge stage stores; a `not_sent` failure leaves the record where it was.
    """

    def __init__(self, message: str, failure: str | None = None) -> None:
        super().__init__(redact(message))
        self.failure = failure
        self.code = FAILURE_CODES.get(failure or "", "judge_error")


class DimensionScore(BaseModel):
    score: int = Field(ge=0, le=100, description="0-100")
    rationale: str = Field(description="one sentence")


@cache
def reply_model(source: str) -> type[BaseModel]:
    """The reply schema for a source: one DimensionScore per rubric dimension, all required."""
    dims = dimensions_for(source)
    fields: dict[str, Any] = {dim: (DimensionScore, Field(description=text)) for dim, text in dims.items()}
    name = "JudgeReplyMeeting" if "multi_turn" in dims else "JudgeReply"
    return create_model(name, __config__=ConfigDict(extra="ignore"), **fields)


def quote_record(record: Record) -> str:
    """The record as JSON data; `<` is escaped so nothing inside can close the <record> block."""
    data: dict[str, Any] = {
        "source": record.metadata.source,
        "question": record.input.question,
        "json_schema": record.input.json_schema,
        "ground_truth": record.output.ground_truth,
    }
    answer = record.metadata.extra.get("answer")
    if answer:
        data["reference_answer"] = str(answer)
    if record.output.evidence:
        data["evidence"] = {
            path: {k: v for k, v in e.model_dump(exclude_defaults=True).items() if k not in ("start", "end", "auto")}
            | ({"kind": e.kind})
            for path, e in record.output.evidence.items()
        }
    review = record.provenance.review
    if review is not None and review.flags:
        # The reviewer's flags and the gate's (`raised_by` "gate:..."), each with how the curator resolved it.
        data["flags"] = [
            {"code": f.code, "path": f.path, "reason": f.reason, "raised_by": f.raised_by or "reviewer"}
            | {"status": f.status}
            | ({"curator_note": f.note} if f.note else {})
            for f in review.flags
        ]
    data["context"] = record.input.context
    return json.dumps(data, ensure_ascii=False, indent=1).replace("<", "\\u003c")


class LLMJudge:
    """`name` is "<backend>:<model>"; `version` is the rubric version plus the prompt versions."""

    def __init__(self, client: LLMClient) -> None:
        self.client = client
        self.name = client.name
        self.version = judge_prompt_version()

    def request_for(self, record: Record) -> LLMRequest:
        source = record.metadata.source
        dims = dimensions_for(source)
        system = _system_template().render(dimensions="\n".join(f"- {dim}: {text}" for dim, text in dims.items()))
        user = _user_template().render(source_kind=get_source(source).judge_kind, record_json=quote_record(record))
        return LLMRequest(
            stage=STAGE,
            prompt_version=f"judge/{self.version}",
            system=system,
            user=user,
            response_model=reply_model(source),
        )

    def verdict_from(self, result: LLMResult, record: Record, threshold: int) -> JudgeVerdict:
        if not result.ok or result.parsed is None:
            detail = f"; raw reply kept: {result.raw_text[:200]!r}" if result.raw_text else ""
            raise JudgeFailed(f"{self.name} {result.status}: {result.error}{detail}", result.failure)
        dims = dimensions_for(record.metadata.source)
        scores: dict[str, int] = {}
        rationales: dict[str, str] = {}
        for dim in dims:
            answer: DimensionScore = getattr(result.parsed, dim)
            scores[dim] = answer.score
            rationales[dim] = " ".join(answer.rationale.split())
        return JudgeVerdict(
            judge=self.name, version=self.version, scores=scores, rationales=rationales, threshold=threshold
        )

    def judge(self, record: Record, report: ValidationReport, threshold: int) -> JudgeVerdict:
        result = self.client.complete(self.request_for(record))
        if result.status == "deferred":
            raise JudgeFailed(f"{self.name}: the answer is awaited from a batch job")
        return self.verdict_from(result, record, threshold)

    def judge_iter(
        self, records: Iterable[Record], threshold: int
    ) -> Iterator[tuple[int, JudgeVerdict | BaseException | None]]:
        """(index, verdict | exception | None when deferred to a batch job), in completion order."""

        def pairs() -> Iterator[tuple[Record, LLMRequest]]:
            # Requests are built lazily, a chunk at a time, and their cached answers read in one query.
            for chunk in batched(records, PREFETCH):
                requests = [self.request_for(record) for record in chunk]
                self.client.prefetch(requests)
                yield from zip(chunk, requests, strict=True)

        def one(pair: tuple[Record, LLMRequest]) -> JudgeVerdict | None:
            record, request = pair
            result = self.client.complete(request)
            if result.status == "deferred":
                return None
            return self.verdict_from(result, record, threshold)

        yield from self.client.map(one, pairs())
