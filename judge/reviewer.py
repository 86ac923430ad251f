"""SOB's reviewer pass: a cheap model (Gemini 2.5 Flash by default) reads each validated record and
returns per-field flags (`core.review.FLAG_CODES`), each with a JSON path and a short reason.

The record goes to the model as quoted JSON data, never as instructions. Answers are cached in the
store (the client's cache, keyed on model, prompt version and the request), so a record is never paid
for twice; `review_prompt_version()` changes with either template, so a new prompt reviews again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from core.batching import batched
from core.llm.client import LLMClient
from core.llm.prompts import PromptTemplate, load_template
from core.llm.types import LLMRequest, LLMResult
from core.models import Record
from core.review import FlagCode, ReviewFlag, review_subject
from core.sources import get_source

STAGE = "review"
PREFETCH = 256
MAX_FLAGS = 20  # a reply with more is cut: the curator reads every flag


def _template(name: str) -> PromptTemplate:
    return load_template("judge", name)


def review_prompt_version() -> str:
    return f"review/prompt-{_template('review_system').version}.{_template('review_user').version}"


class FlagReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    code: FlagCode
    path: str = Field(description="JSON path of the field, like $.director; $ for the whole record")
    reason: str = Field(description="one short sentence")


class ReviewReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    flags: list[FlagReply] = Field(description="one item per problem found; empty when the record is right")


class ReviewFailed(RuntimeError):
    """The reviewer gave no usable answer; the record is reviewed again on the next run."""


def subject_of(record: Record) -> dict[str, Any]:
    return review_subject(
        record.input.question, record.input.json_schema, record.output.ground_truth, record.output.evidence
    )


def quote_for_review(record: Record) -> str:
    """The record as JSON data; `<` is escaped so nothing inside can close the <record> block."""
    subject = subject_of(record)
    data: dict[str, Any] = {"source": record.metadata.source, **subject}
    if not data["evidence"]:
        data.pop("evidence")
    data["context"] = record.input.context
    return json.dumps(data, ensure_ascii=False, indent=1).replace("<", "\\u003c")


def _clean_path(path: str) -> str:
    path = " ".join(path.split()) or "$"
    if not path.startswith("$"):
        path = "$." + path.lstrip(".")
    return path[:300]


def flags_from(reply: ReviewReply) -> list[ReviewFlag]:
    """Open flags numbered R1, R2, ... (one per code and path; at most MAX_FLAGS)."""
    flags: list[ReviewFlag] = []
    seen: set[tuple[str, str]] = set()
    for item in reply.flags:
        path = _clean_path(item.path)
        if (item.code, path) in seen:
            continue
        seen.add((item.code, path))
        reason = " ".join(item.reason.split())[:1000] or "(no reason given)"
        flags.append(ReviewFlag(id=f"R{len(flags) + 1}", code=item.code, path=path, reason=reason))
        if len(flags) == MAX_FLAGS:
            break
    return flags


class LLMReviewer:
    """`name` is "<backend>:<model>"; `version` the review prompt version."""

    def __init__(self, client: LLMClient) -> None:
        self.client = client
        self.name = client.name
        self.version = review_prompt_version()

    def request_for(self, record: Record) -> LLMRequest:
        source = record.metadata.source
        user = _template("review_user").render(
            source_kind=get_source(source).judge_kind, record_json=quote_for_review(record)
        )
        return LLMRequest(
            stage=STAGE,
            prompt_version=self.version,
            system=_template("review_system").text,
            user=user,
            response_model=ReviewReply,
        )

    def flags_from_result(self, result: LLMResult) -> list[ReviewFlag]:
        if not result.ok or not isinstance(result.parsed, ReviewReply):
            detail = f"; raw reply kept: {result.raw_text[:200]!r}" if result.raw_text else ""
            raise ReviewFailed(f"{self.name} {result.status}: {result.error}{detail}")
        return flags_from(result.parsed)

    def review_iter(self, records: Iterable[Record]) -> Iterator[tuple[int, list[ReviewFlag] | BaseException | None]]:
        """(index, flags | exception | None when deferred to a batch job), in completion order."""

        def pairs() -> Iterator[tuple[Record, LLMRequest]]:
            for chunk in batched(records, PREFETCH):
                requests = [self.request_for(record) for record in chunk]
                self.client.prefetch(requests)
                yield from zip(chunk, requests, strict=True)

        def one(pair: tuple[Record, LLMRequest]) -> list[ReviewFlag] | None:
            result = self.client.complete(pair[1])
            if result.status == "deferred":
                return None
            return self.flags_from_result(result)

        yield from self.client.map(one, pairs())
