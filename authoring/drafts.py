"""LLM drafts: a question, a schema and an answer for each source item, for curators to correct.

One prompt per source (text: HotpotQA's reasoning structure; image: a task tailored to the page's
olmOCR-bench category; audio: questions that need several turns of the meeting). A draft runs
through the same validation as an authored record; an invalid draft is asked again once with the
problems shown to the model; otherwise the item goes to curators without a draft, and that is
counted. Drafts are kept in the store's `drafts` table (one row per source item).

A call that failed on a server error, a timeout or an outage is not stored: the next run drafts the
item again. A malformed reply or a request the provider rejected is stored as `no_draft` and asked
again only with `--retry-failed`. A refused key or the circuit breaker stops the stage
(`LLMStopped`, after saving the drafts made).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Literal

import duckdb
from pydantic import BaseModel, ConfigDict, Field, field_validator

from core.boundary import InputRejected, parse_json_text
from core.evidence import Evidence, parse_evidence_map
from core.llm.client import LLMClient
from core.llm.prompts import PromptTemplate, load_template
from core.llm.types import LLMRequest, LLMResult
from core.models import Provenance, Record, SourceItem, utcnow
from core.progress import tracked
from core.redaction import redact
from core.sources import get_source
from core.store import Store
from core.verdicts import ValidationFailure, ValidationReport

STAGE = "draft"
MIN_PROPERTIES = 3
DRAFT_CODE_VERSION = "4"  # bump when the checks here or a source's draft variables change

Validator = Callable[[Record], tuple[ValidationReport, dict[str, Any] | None]]


# -- what the model returns ----------------------------------------------------------------------
def _json_object(value: str, what: str) -> dict[str, Any]:
    try:
        parsed = parse_json_text(value)  # within the input limits; a key given twice is refused
    except InputRejected as exc:
        raise ValueError(f"{what} is not usable JSON text: {exc}") from exc
    if not isinstance(parsed, dict):
        raise ValueError(f"{what} must be a JSON object")
    return parsed


class DraftReply(BaseModel):
    """The schema and answer travel as JSON text: free-form objects are not expressible otherwise."""

    question: str = Field(min_length=1, description="the question")
    json_schema: str = Field(description="the JSON Schema of the answer, as JSON text")
    ground_truth: str = Field(description="the answer, as JSON text conforming to json_schema")
    evidence: str = Field(
        default="{}",
        description="where each value of the answer comes from, as JSON text: an object keyed by JSON path",
    )

    @field_validator("json_schema")
    @classmethod
    def _schema_is_an_object(cls, value: str) -> str:
        _json_object(value, "json_schema")
        return value

    @field_validator("ground_truth")
    @classmethod
    def _truth_is_an_object(cls, value: str) -> str:
        _json_object(value, "ground_truth")
        return value

    def schema_dict(self) -> dict[str, Any]:
        return json.loads(self.json_schema)

    def evidence_map(self) -> tuple[dict[str, Evidence], list[ValidationFailure]]:
        """The proposed evidence by JSON path, and a failure for every entry that cannot be read."""
        try:
            raw = json.loads(self.evidence) if self.evidence.strip() else None
        except json.JSONDecodeError as exc:
            return {}, [ValidationFailure(check="evidence", code="evidence_unreadable", message=f"not JSON: {exc}")]
        parsed, problems = parse_evidence_map(raw)
        failures = [
            ValidationFailure(check="evidence", code="evidence_unreadable", message=message, path=path)
            for path, message in problems
        ]
        return parsed, failures

    def truth_dict(self) -> dict[str, Any]:
        return json.loads(self.ground_truth)


class Draft(BaseModel):
    """A source item's draft, or why it has none (`no_draft_*`), as stored in `drafts`."""

    model_config = ConfigDict(extra="forbid")

    source: str
    source_id: str
    status: Literal["drafted", "no_draft"]
    reason: str | None = None  # no_draft: invalid | unparsable | request_rejected | call_error (not stored)
    failure: str | None = None  # the LLM failure kind behind a no_draft (core/llm/failures.py)
    question: str | None = None
    json_schema: dict[str, Any] | None = None
    ground_truth: dict[str, Any] | None = None
    validated_output: dict[str, Any] | None = None
    evidence: dict[str, Evidence] = Field(default_factory=dict)  # proposed per JSON path; prefilled in Label Studio
    model: str
    prompt_version: str
    attempts: int = 0  # drafts asked for (1, or 2 after a retry)
    failures: list[ValidationFailure] = Field(default_factory=list)
    error: str | None = None

    def record(self, item: SourceItem) -> Record:
        """The draft as a record (e.g. a Label Studio prediction); the curator's edit replaces it."""
        if self.status != "drafted" or self.question is None:
            raise ValueError(f"{self.source_id} has no draft ({self.reason})")
        return Record.build(
            item,
            self.question,
            self.json_schema or {},
            self.ground_truth or {},
            provenance=Provenance(draft_model=self.model, authored_via="draft"),
            evidence=self.evidence,
        )


# -- prompts -------------------------------------------------------------------------------------
def _template(name: str) -> PromptTemplate:
    return load_template("authoring", name)


def _source_template(source: str) -> PromptTemplate:
    """The source's own draft template (its module names it)."""
    return load_template(*get_source(source).draft_template)


def draft_prompt_version(source: str) -> str:
    parts = [_template("draft_system"), _source_template(source), _template("draft_retry")]
    return f"draft/{source}/" + ".".join(f"{t.name}-{t.version}" for t in parts) + f"/code-{DRAFT_CODE_VERSION}"


def draft_user_prompt(item: SourceItem) -> str:
    """The source's template filled with the item's values (the source quotes each input as a JSON string)."""
    return _source_template(item.source).render(**get_source(item.source).draft_variables(item))


def draft_request(
    item: SourceItem, previous: DraftReply | None = None, failures: Iterable[ValidationFailure] = ()
) -> LLMRequest:
    user = draft_user_prompt(item)
    if previous is not None:
        problems = "\n".join(f"- {f.path}: {f.message} ({f.check}/{f.code})" for f in failures) or "- (none given)"
        previous_text = json.dumps(previous.model_dump(), ensure_ascii=False, indent=1)
        user += "\n\n" + _template("draft_retry").render(previous=previous_text, problems=problems)
    return LLMRequest(
        stage=STAGE,
        prompt_version=draft_prompt_version(item.source),
        system=_template("draft_system").text,
        user=user,
        response_model=DraftReply,
    )


# -- checking a draft ------------------------------------------------------------------------------
def default_validator() -> Validator:
    from validation.pipeline import validate_record

    return validate_record


def structure_failures(schema: dict[str, Any]) -> list[ValidationFailure]:
    """What drafts must have beyond validity: an object root with several properties."""
    properties = schema.get("properties")
    if schema.get("type") != "object" or not isinstance(properties, dict):
        return [ValidationFailure(check="draft", code="root_not_object", message="the root must be an object")]
    if len(properties) < MIN_PROPERTIES:
        return [
            ValidationFailure(
                check="draft",
                code="too_few_properties",
                message=f"the schema has {len(properties)} properties; it needs at least {MIN_PROPERTIES} that "
                "capture the reasoning (entities, attributes, relations and the final answer)",
            )
        ]
    return []


def _check(
    item: SourceItem, reply: DraftReply, validator: Validator, model: str
) -> tuple[Record, ValidationReport, dict[str, Any] | None]:
    question = item.question if get_source(item.source).keeps_seed_question and item.question else reply.question
    evidence, unreadable = reply.evidence_map()
    record = Record.build(
        item,
        question,
        reply.schema_dict(),
        reply.truth_dict(),
        provenance=Provenance(draft_model=model, authored_via="draft"),
        evidence=evidence,
    )
    report, validated = validator(record)
    extra = structure_failures(record.input.json_schema) + unreadable
    if extra:
        report = report.model_copy(update={"passed": False, "failures": [*report.failures, *extra]})
    return record, report, validated


def draft_item(client: LLMClient, item: SourceItem, validator: Validator) -> Draft | None:
    """Draft one item (None: the answer is awaited from a batch job)."""
    base = {"source": item.source, "source_id": item.source_id, "model": client.name}
    base["prompt_version"] = draft_prompt_version(item.source)
    previous: DraftReply | None = None
    failures: list[ValidationFailure] = []
    for attempt in (1, 2):
        result: LLMResult = client.complete(draft_request(item, previous, failures))
        if result.status == "deferred":
            return None
        if not result.ok or not isinstance(result.parsed, DraftReply):
            reason = "unparsable"
            if result.status == "call_error":
                reason = "request_rejected" if result.failure == "rejected" else "call_error"
            return Draft(
                status="no_draft",
                reason=reason,
                failure=result.failure,
                attempts=attempt,
                failures=failures,
                error=result.error,
                **base,
            )
        reply = result.parsed
        record, report, validated = _check(item, reply, validator, client.name)
        if report.passed:
            return Draft(
                status="drafted",
                question=record.input.question,
                json_schema=record.input.json_schema,
                ground_truth=record.output.ground_truth,
                validated_output=validated,
                evidence=record.output.evidence,
                attempts=attempt,
                **base,
            )
        previous, failures = reply, list(report.failures)
    return Draft(
        status="no_draft",
        reason="invalid",
        question=previous.question if previous else None,
        json_schema=previous.schema_dict() if previous else None,
        ground_truth=previous.truth_dict() if previous else None,
        evidence=previous.evidence_map()[0] if previous else {},
        attempts=2,
        failures=failures,
        **base,
    )


def draft_items(
    client: LLMClient, items: Iterable[SourceItem], validator: Validator | None = None
) -> Iterator[tuple[SourceItem, Draft | None]]:
    """Draft many items concurrently; yields (item, draft or None when awaited from a batch job)."""
    check = validator or default_validator()
    items = list(items)
    outcomes = client.map(lambda item: draft_item(client, item, check), items)
    for index, outcome in tracked(outcomes, f"draft ({client.name})", total=len(items), unit="item"):
        if isinstance(outcome, BaseException):
            raise outcome
        yield items[index], outcome


# -- the drafts table --------------------------------------------------------------------------------
# The `drafts` table comes from the store's migration 3.


def save_drafts(con: duckdb.DuckDBPyConnection, drafts: Iterable[Draft]) -> int:
    rows = [
        [d.source, d.source_id, d.status, d.reason, redact(d.model_dump_json()), d.model, d.prompt_version, utcnow()]
        for d in drafts
    ]
    if not rows:
        return 0
    con.execute("BEGIN TRANSACTION")
    try:
        con.executemany(
            "INSERT INTO drafts VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (source, source_id) DO UPDATE SET "
            "status = excluded.status, reason = excluded.reason, draft = excluded.draft, model = excluded.model, "
            "prompt_version = excluded.prompt_version, created_at = excluded.created_at",
            rows,
        )
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise
    return len(rows)


def forget_drafts(con: duckdb.DuckDBPyConnection, source: str, source_ids: list[str]) -> None:
    """Drop the drafts of these items (their source changed: a new draft is written from the new item)."""
    if source_ids:
        con.execute("DELETE FROM drafts WHERE source = ? AND source_id IN (SELECT unnest(?))", [source, source_ids])


def load_drafts(con: duckdb.DuckDBPyConnection, source: str, status: str | None = None) -> dict[str, Draft]:
    sql = "SELECT draft FROM drafts WHERE source = ?"
    params: list[Any] = [source]
    if status:
        sql += " AND status = ?"
        params.append(status)
    return {d.source_id: d for d in (Draft.model_validate_json(row[0]) for row in con.execute(sql, params).fetchall())}


# -- the stage ----------------------------------------------------------------------------------------
def items_to_draft(store: Store, source: str, limit: int | None = None, retry_failed: bool = False) -> list[SourceItem]:
    """Source items with no record yet and no draft from the current prompts, in source-id order.

    A stored `call_error` (older runs stored them) is always drafted again; a malformed reply or a
    rejected request only with `retry_failed`.
    """
    with_records = {
        r[0] for r in store.con.execute("SELECT DISTINCT source_id FROM records WHERE source = ?", [source]).fetchall()
    }
    current = draft_prompt_version(source)
    again = ["call_error", *(["unparsable", "request_rejected"] if retry_failed else [])]
    drafted = {
        r[0]
        for r in store.con.execute(
            "SELECT source_id FROM drafts WHERE source = ? AND prompt_version = ? "
            "AND NOT (status = 'no_draft' AND reason IN (SELECT unnest(?)))",
            [source, current, again],
        ).fetchall()
    }
    items = [item for sid, item in sorted(store.source_items(source).items()) if sid not in with_records | drafted]
    return items[:limit] if limit is not None else items


def run_drafting(
    store: Store,
    source: str,
    client: LLMClient,
    validator: Validator | None = None,
    *,
    limit: int | None = None,
    batch: Any | None = None,  # core.llm.batch.BatchRunner for stage "draft"
    chunk: int = 100,
) -> Counter[str]:
    """Draft the items that need one; store each draft (or its absence) as it is made.

    Raises `LLMStopped` (after saving) when a refusal or the circuit breaker stopped the client.
    """
    counts: Counter[str] = Counter()
    if batch is not None:
        counts.update(batch.poll())
    items = items_to_draft(store, source, limit, retry_failed=client.retry_failed)
    done: list[Draft] = []
    for _, draft in draft_items(client, items, validator):  # after a stop, the rest drain unsent
        if draft is None:
            counts["awaiting_batch"] += 1
            continue
        if draft.status == "drafted":
            counts["drafted" if draft.attempts == 1 else "drafted_after_retry"] += 1
        elif draft.reason == "call_error":
            counts[f"not_drafted_{draft.failure or 'call_error'}"] += 1  # not stored: the next run asks again
        else:
            counts[f"no_draft_{draft.reason}"] += 1
        if draft.reason != "call_error":
            done.append(draft)
        if len(done) >= chunk:
            save_drafts(store.con, done)
            done.clear()
    save_drafts(store.con, done)
    client.flush()
    if client.stop is not None:
        client.stop.counts.update(counts)
        raise client.stop
    if batch is not None:
        counts["batch_jobs_submitted"] += len(batch.submit())
    return +counts


__all__ = [
    "Draft",
    "DraftReply",
    "draft_items",
    "draft_item",
    "draft_request",
    "draft_prompt_version",
    "items_to_draft",
    "load_drafts",
    "run_drafting",
    "save_drafts",
]
