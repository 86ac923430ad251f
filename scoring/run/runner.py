"""Inference on a release, as SOB's `python -m sob.run`: every record asked once, SOB's response file out.

Each record becomes one request through the toolkit's LLM client (core/llm): its concurrency and
rate limits, retries, circuit breaker, token and cost tally, and its cache in a curation store, so
an answer paid for is never paid again. Finished lines also go to a checkpoint file at once: a run
killed half way, run again, asks only for what is missing (and, with the cache, never twice for the
same request). A reply that is not JSON is the model's answer: it is kept as SOB keeps it (the text)
and cached as a malformed reply. Calls that fail (server errors past their retries, a refused key)
leave their records out: the response file is written only when every record has its line, and
the next run asks for the rest. A request refused for itself (a 4xx other than a refused key, a
schema the SDK cannot send) gets SOB's line for a failed call, a null candidate, and is not asked again.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from core.llm.cache import LLMCache
from core.llm.client import LLMClient
from core.llm.failures import LLMStopped
from core.llm.process_backend import ProcessBackend
from core.llm.retry import RetryPolicy
from core.llm.types import LLMRequest, LLMResult
from core.llm.usage import UsageTally
from core.store import Store
from exports.layout import DATA_DIR
from scoring.inputs import Release, load_release
from scoring.run.answer import RecordAnswer
from scoring.run.backends import RunSettings
from scoring.run.prompts import (
    SYSTEM_PROMPT,
    VLLM_CLOSING,
    build_user_message,
    gemini_schema,
    parse_schema,
    strict_schema,
)
from scoring.run.responses import (
    Answered,
    Checkpoint,
    eval_line,
    extract_json,
    loads_or_text,
    partial_path,
    read_answered,
    read_finished,
    response_path,
)

# SOB's defaults (utils/config.py).
DEFAULT_TEMPERATURE = 0.0
DEFAULT_MAX_TOKENS = 2048
DEFAULT_CONCURRENCY = 20  # SOB's max_workers and gemini_max_concurrency
STAGE = "inference"
PROMPT_VERSION = "sob-run/1"  # SOB's prompt and request shape; bump when either changes


@dataclass(frozen=True)
class RunOptions:
    model_id: str
    settings: RunSettings
    output_root: Path
    sample_size: int | None = None
    temperature: float = DEFAULT_TEMPERATURE
    max_tokens: int = DEFAULT_MAX_TOKENS
    concurrency: int = DEFAULT_CONCURRENCY
    processes: int = 1  # >1: the calls are made by worker processes (core/llm/process_backend.py)
    rpm: float | None = None
    max_attempts: int = 6
    retry_failed: bool = False


@dataclass
class RunReport:
    path: Path
    total: int
    already_done: int = 0
    answered: int = 0
    not_json: int = 0
    failed: dict[str, int] = field(default_factory=dict)  # failure kind -> records left without a line
    last_error: str | None = None
    stop: LLMStopped | None = None
    usage: list[str] = field(default_factory=list)
    complete: bool = False


def release_rows(release: Release) -> list[dict[str, Any]]:
    """The release's rows in its own order (split by split, file by file), every text column kept. Binary columns
    (an image release's `page_image`) are left out: SOB's models read the OCR text, and a line is JSON."""
    rows: list[dict[str, Any]] = []
    splits: list[str] = []
    for record in release.records.values():
        if record.split not in splits:
            splits.append(record.split)
    for split in splits:
        for file in sorted((release.path / DATA_DIR).glob(f"{split}-*.parquet")):
            columns = [f.name for f in pq.read_schema(file) if "binary" not in str(f.type)]
            rows.extend(pq.read_table(file, columns=columns).to_pylist())
    return rows


def effective_schema(provider: str, structured: bool, schema: Any) -> Any:
    """The schema SOB holds the model to and records in the line: its sanitised or strict copy when
    structured decoding sent one to Gemini or OpenAI, else the record's own."""
    if structured and provider == "gemini":
        return gemini_schema(schema)
    if structured and provider == "openai":
        return strict_schema(schema)
    return schema


def user_message(provider: str, row: dict[str, Any], schema: Any) -> str:
    message = build_user_message(row.get("context") or "", row.get("question") or "", schema)
    return message + VLLM_CLOSING if provider == "vllm" else message


def candidate_of(provider: str, structured: bool, text: str | None) -> Any:
    """The candidate response SOB's runner for this provider keeps from the reply text."""
    if provider == "gemini":
        return extract_json(text) if text else None
    if provider in ("openai", "openrouter") or (provider == "vllm" and structured):
        return loads_or_text(text or "")
    return extract_json(text or "")


def request_for(options: RunOptions, row: dict[str, Any]) -> LLMRequest:
    """The request for one row (its line records the same schema: `line_of`)."""
    provider, structured = options.settings.provider, options.settings.structured
    schema = parse_schema(row.get("json_schema"))
    sent = effective_schema(provider, structured, schema)
    mode = "structured" if structured else "free"
    thinking = "" if options.settings.disable_thinking else "/thinking"
    request = LLMRequest(
        stage=STAGE,
        prompt_version=f"{PROMPT_VERSION}/{provider}/{mode}{thinking}",
        system=SYSTEM_PROMPT,
        user=user_message(provider, row, schema),
        response_model=RecordAnswer,
        response_schema=sent if isinstance(sent, dict) else {},
        temperature=options.temperature,
        max_output_tokens=options.max_tokens,
    )
    return request


def line_of(options: RunOptions, row: dict[str, Any], answer: Answered) -> dict[str, Any]:
    """SOB's line for a record the checkpoint says was answered."""
    provider, structured = options.settings.provider, options.settings.structured
    return eval_line(
        row,
        answer.candidate,
        model_id=options.model_id,
        schema=effective_schema(provider, structured, parse_schema(row.get("json_schema"))),
        input_tokens=answer.input_tokens,
        output_tokens=answer.output_tokens,
        avg_time=0.0,
    )


def make_client(backend: Any, options: RunOptions, store: Store, tally: UsageTally) -> LLMClient:
    return LLMClient(
        backend,
        options.model_id,
        cache=LLMCache(store.con),
        tally=tally,
        concurrency=options.concurrency,
        # Worker processes cap the calls in flight themselves and take a few more to keep ready.
        slots=getattr(backend, "capacity", None),
        rpm=options.rpm,
        retry=RetryPolicy(max_attempts=options.max_attempts),
        parse_retries=0,  # the model's reply is the answer under test: it is never asked to repair it
        retry_failed=options.retry_failed,
    )


PLAN_CHUNK = 256  # requests built (and looked up in the cache) ahead of the calls, a chunk at a time


def planned_requests(client: LLMClient, options: RunOptions, rows: list[dict[str, Any]]) -> Iterator[LLMRequest]:
    """Each row's request, built a chunk ahead of the calls: at 20,000 records, building them all first kept
    the calls waiting for 3 s."""
    for start in range(0, len(rows), PLAN_CHUNK):
        chunk = [request_for(options, row) for row in rows[start : start + PLAN_CHUNK]]
        client.prefetch(chunk)  # one cache query for the chunk: its cached answers cost no call
        yield from chunk


def run_inference(
    release_dir: Path,
    options: RunOptions,
    store: Store,
    backend_factory: Callable[[], Any],
    progress: Callable[[str], None] = lambda _: None,
) -> RunReport:
    release = load_release(release_dir)
    rows = release_rows(release)
    if options.sample_size is not None:
        rows = rows[: options.sample_size]  # SOB: the first N records
    final = response_path(options.output_root, options.model_id, release.modality)
    report = RunReport(path=final, total=len(rows))
    done = read_finished(final) if final.exists() else {}
    if done and all(str(row["record_id"]) in done for row in rows):
        report.already_done = report.total
        report.complete = True
        return report  # every line is there: nothing to ask
    tally = UsageTally()
    with contextlib.ExitStack() as workers:
        processes = min(options.processes, options.concurrency)  # a worker with no call to make is not started
        # Worker processes start first: they import the SDK while this process builds its own backend.
        pool = None
        if processes > 1:
            pool = workers.enter_context(
                ProcessBackend(options.settings.provider, backend_factory, processes, options.concurrency)
            )
        backend = backend_factory()  # a missing key is an error before any file
        client = make_client(pool or backend, options, store, tally)
        answered = read_answered(partial_path(final))
        wanted = [row for row in rows if str(row["record_id"]) not in done and str(row["record_id"]) not in answered]
        report.already_done = report.total - len(wanted)
        checkpoint = Checkpoint(final)
        provider, structured = options.settings.provider, options.settings.structured
        planned = planned_requests(client, options, wanted)
        started = time.perf_counter()

        def ask(request: LLMRequest) -> LLMResult:
            return client.complete(request)

        try:
            for index, outcome in client.map(ask, planned):
                row = wanted[index]
                if isinstance(outcome, BaseException):
                    raise outcome
                if outcome.status == "call_error":
                    kind = outcome.failure or "transient"
                    report.failed[kind] = report.failed.get(kind, 0) + 1
                    report.last_error = outcome.error
                    if kind != "rejected":
                        continue  # asked again by the next run
                if outcome.status == "parse_error":
                    report.not_json += 1
                usage = outcome.usage
                # A request refused for itself (a 4xx, a schema the SDK cannot send) is SOB's failed call: no candidate.
                rejected = outcome.status == "call_error"
                candidate = None if rejected else candidate_of(provider, structured, outcome.raw_text)
                answer = Answered(candidate, usage.input_tokens, usage.output_tokens)
                checkpoint.append(str(row["record_id"]), answer)
                answered[str(row["record_id"])] = answer
                report.answered += 1
                progress(f"{report.already_done + report.answered}/{report.total}")
        finally:
            checkpoint.close()
        report.stop = client.stop
        report.usage = tally.report()
        tally.save(store.con)
        if all(str(row["record_id"]) in done or str(row["record_id"]) in answered for row in rows):
            # SOB's avg_time_per_record: this run's wall time over the records it asked for.
            avg = round((time.perf_counter() - started) / max(1, len(wanted)), 4)
            lines = []
            for row in rows:
                line = done.get(str(row["record_id"])) or line_of(options, row, answered[str(row["record_id"])])
                line["eval_info"]["avg_time_per_record"] = avg
                lines.append(line)
            checkpoint.finish(lines)
            report.complete = True
        return report
