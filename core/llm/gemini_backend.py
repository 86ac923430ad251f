"""Gemini through `google-genai`: one call, and the batch-job operations.

The SDK's own retries are off (no `retry_options`): the client's policy decides. The SDK leaves
`.parsed` as None on a bad answer instead of raising, so the client parses the text itself.
Endpoint: `base_url` (the CLI's `--llm-base-url`) or the SDK's `GOOGLE_GEMINI_BASE_URL`; Vertex AI
through the SDK's own settings (`vertexai`/`project`/`location` or `GOOGLE_GENAI_USE_VERTEXAI`,
`GOOGLE_CLOUD_PROJECT`, `GOOGLE_CLOUD_LOCATION`).
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from core.llm import reply_size
from core.llm.failures import is_refusal
from core.llm.retry import parse_retry_after, retry_delay_from_details
from core.llm.types import (
    LLMCredentialsError,
    LLMError,
    LLMRequest,
    RawReply,
    Usage,
    is_transient_status,
    not_a_reply,
)

_TRANSPORT_ERRORS = {
    "TimeoutException",
    "TransportError",
    "NetworkError",
    "ConnectError",
    "ReadError",
    "WriteError",
    "RemoteProtocolError",
    "ProtocolError",
}


def is_transport_error(exc: BaseException) -> bool:
    """Timeouts and dropped connections from httpx or httpx2 (whichever the SDK uses)."""
    if isinstance(exc, TimeoutError | ConnectionError):
        return True
    return any(
        cls.__name__ in _TRANSPORT_ERRORS and cls.__module__.split(".")[0] in {"httpx", "httpx2"}
        for cls in type(exc).__mro__
    )


class GeminiSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    api_key: str | None = None  # default: GEMINI_API_KEY or GOOGLE_API_KEY (the SDK's own lookup)
    base_url: str | None = None  # default: GOOGLE_GEMINI_BASE_URL, then Google's endpoint
    api_version: str | None = None
    vertexai: bool | None = None
    project: str | None = None
    location: str | None = None
    timeout_s: float = 120.0
    # How the reply schema is sent. `response_json_schema` (JSON Schema, Gemini 2.5 and later) goes
    # through the SDK untouched; `response_schema` is the older OpenAPI subset, which the SDK
    # converts from the model's JSON Schema on every call (for models without JSON Schema support).
    schema_field: Literal["response_json_schema", "response_schema"] = "response_json_schema"
    # Connections kept open for reuse (httpx keeps 20 by default): set it to the concurrency.
    max_connections: int | None = None


def gemini_credentials_available(env: dict[str, str] | None = None) -> bool:
    env = dict(os.environ) if env is None else env
    vertex = env.get("GOOGLE_GENAI_USE_VERTEXAI", "").lower() in {"1", "true"}
    return bool(env.get("GEMINI_API_KEY") or env.get("GOOGLE_API_KEY") or vertex)


def usage_from_sdk(meta: Any) -> Usage:
    if meta is None:
        return Usage()
    thoughts = getattr(meta, "thoughts_token_count", None) or 0
    return Usage(
        input_tokens=getattr(meta, "prompt_token_count", None) or 0,
        output_tokens=(getattr(meta, "candidates_token_count", None) or 0) + thoughts,
        thinking_tokens=thoughts,
        cached_input_tokens=getattr(meta, "cached_content_token_count", None) or 0,
    )


def _enum_name(value: Any) -> str | None:
    if value is None:
        return None
    return str(getattr(value, "name", value))


def reply_from_sdk(response: Any) -> RawReply:
    """A `types.GenerateContentResponse` as a RawReply (empty candidates and blocks kept as such)."""
    usage = usage_from_sdk(getattr(response, "usage_metadata", None))
    feedback = getattr(response, "prompt_feedback", None)
    block = _enum_name(getattr(feedback, "block_reason", None)) if feedback else None
    candidates = getattr(response, "candidates", None) or []
    if not candidates:
        return RawReply(text=None, finish_reason=None, usage=usage, block_reason=block)
    candidate = candidates[0]
    parts = (candidate.content.parts or []) if candidate.content else []
    text = "".join(p.text for p in parts if getattr(p, "text", None) and not getattr(p, "thought", False))
    return RawReply(
        text=text or None,
        finish_reason=_enum_name(candidate.finish_reason),
        usage=usage,
        model_version=getattr(response, "model_version", None),
        block_reason=block,
    )


def reply_from_rest(response: dict[str, Any]) -> RawReply:
    """A GenerateContentResponse as REST JSON (the lines of a batch results file)."""
    meta = response.get("usageMetadata") or {}
    thoughts = meta.get("thoughtsTokenCount") or 0
    usage = Usage(
        input_tokens=meta.get("promptTokenCount") or 0,
        output_tokens=(meta.get("candidatesTokenCount") or 0) + thoughts,
        thinking_tokens=thoughts,
        cached_input_tokens=meta.get("cachedContentTokenCount") or 0,
    )
    block = (response.get("promptFeedback") or {}).get("blockReason")
    candidates = response.get("candidates") or []
    if not candidates:
        return RawReply(text=None, finish_reason=None, usage=usage, block_reason=block)
    candidate = candidates[0]
    parts = (candidate.get("content") or {}).get("parts") or []
    text = "".join(p.get("text", "") for p in parts if not p.get("thought"))
    return RawReply(
        text=text or None,
        finish_reason=candidate.get("finishReason"),
        usage=usage,
        model_version=response.get("modelVersion"),
        block_reason=block,
    )


@dataclass(frozen=True)
class BatchState:
    name: str
    state: str  # JOB_STATE_*
    display_name: str | None = None
    # key -> reply, or key -> error message; only when the job succeeded
    results: dict[str, RawReply | str] | None = None


TERMINAL_STATES = frozenset(
    {
        "JOB_STATE_SUCCEEDED",
        "JOB_STATE_FAILED",
        "JOB_STATE_CANCELLED",
        "JOB_STATE_EXPIRED",
        "JOB_STATE_PARTIALLY_SUCCEEDED",
    }
)


def _limits(connections: int) -> Any:
    """A connection-pool limit for whichever httpx flavour the SDK runs on (httpx2 first)."""
    try:
        import httpx2 as httpx_module
    except ImportError:  # pragma: no cover - depends on the SDK's installed extras
        import httpx as httpx_module
    return httpx_module.Limits(max_connections=connections, max_keepalive_connections=connections)


@functools.cache
def lookup_free_config(types: Any) -> Any:
    """`types.GenerateContentConfig` whose `key in config` answers at once.

    The SDK reads each of the config's ~50 fields with `key in config` before `getattr`
    (`google.genai._common.get_value_by_path`). A Pydantic model has no `__contains__`, so each test
    iterates every field as `(name, value)` pairs, and a name never equals a pair: the answer is always
    False, after ~50 steps. That was a sixth of the SDK's CPU per call, which a run of hundreds of
    calls a second cannot spare. Answering False at once changes nothing else: the same fields, the
    same request bytes (tests/llm/test_gemini_config.py).
    """

    def never_a_key(self: Any, key: object) -> bool:
        return False

    # Under the SDK's own name, so that its validation errors read as they did.
    return type("GenerateContentConfig", (types.GenerateContentConfig,), {"__contains__": never_a_key})


class GeminiBackend:
    name = "gemini"

    def __init__(self, settings: GeminiSettings | None = None) -> None:
        from google import genai
        from google.genai import errors, types

        self.settings = settings or GeminiSettings()
        self._types = types
        self._errors = errors
        self._config = lookup_free_config(types)
        http_options = types.HttpOptions(
            base_url=self.settings.base_url,
            api_version=self.settings.api_version,
            timeout=int(self.settings.timeout_s * 1000),  # milliseconds; no retry_options: one attempt
        )
        client_args: dict[str, Any] = {"event_hooks": reply_size.event_hooks()}
        if self.settings.max_connections:
            client_args["limits"] = _limits(self.settings.max_connections)
        http_options.client_args = client_args
        kwargs: dict[str, Any] = {"http_options": http_options}
        if self.settings.vertexai is not None:
            kwargs["vertexai"] = self.settings.vertexai
        if self.settings.project:
            kwargs["project"] = self.settings.project
        if self.settings.location:
            kwargs["location"] = self.settings.location
        if self.settings.api_key:
            kwargs["api_key"] = self.settings.api_key
        try:
            self.client = genai.Client(**kwargs)
        except ValueError as exc:
            raise LLMCredentialsError(
                f"cannot start the Gemini client: {exc}. Set GEMINI_API_KEY (or GOOGLE_API_KEY), or the Vertex AI "
                "settings",
                "or use --judge heuristic",
            ) from exc

    # -- one call ---------------------------------------------------------------------------
    def config_for(self, request: LLMRequest) -> Any:
        schema = {self.settings.schema_field: request.json_schema()}
        return self._config(
            system_instruction=request.system,
            response_mime_type="application/json",
            temperature=request.temperature,
            max_output_tokens=request.max_output_tokens,
            **schema,
        )

    def generate(self, model: str, request: LLMRequest) -> RawReply:
        try:
            response = self.client.models.generate_content(
                model=model, contents=request.user, config=self.config_for(request)
            )
        except ValueError as exc:  # the SDK parses the body as JSON: a 200 with an HTML page fails here
            raise self.to_llm_error(exc, parsing=True) from exc
        except Exception as exc:
            raise self.to_llm_error(exc) from exc
        if not isinstance(response, self._types.GenerateContentResponse):
            raise LLMError(f"gemini: HTTP 200 but not a Gemini reply: {not_a_reply(response)}", transient=True)
        return reply_from_sdk(response)

    def to_llm_error(self, exc: Exception, parsing: bool = False) -> Exception:
        if (large := reply_size.too_large(exc)) is not None:
            return LLMError(f"gemini: {large}", transient=False)
        if parsing and not isinstance(exc, self._errors.APIError):
            body = getattr(exc, "doc", None) or str(exc)
            return LLMError(f"gemini: HTTP 200 but not a Gemini reply: {not_a_reply(body)}", transient=True)
        if isinstance(exc, self._errors.APIError):
            headers = getattr(getattr(exc, "response", None), "headers", None)
            retry_after = parse_retry_after(headers.get("retry-after")) if headers is not None else None
            if retry_after is None:
                retry_after = retry_delay_from_details(exc.details)
            message = f"gemini: HTTP {exc.code} {exc.status or ''} {exc.message or ''}".strip()
            return LLMError(
                message,
                status=exc.code,
                transient=is_transient_status(exc.code),
                retry_after=retry_after,
                refused=is_refusal(exc.code, f"{message} {exc.details}"),
            )
        if is_transport_error(exc):
            return LLMError(f"gemini: {type(exc).__name__}: {exc}", transient=True)
        return exc

    # -- batch jobs ---------------------------------------------------------------------------
    @staticmethod
    def rest_request(request: LLMRequest) -> dict[str, Any]:
        """The request in REST JSON, for a JSONL batch file (`responseJsonSchema` from the model)."""
        generation: dict[str, Any] = {
            "responseMimeType": "application/json",
            "responseJsonSchema": request.json_schema(),
        }
        if request.temperature is not None:
            generation["temperature"] = request.temperature
        if request.max_output_tokens is not None:
            generation["maxOutputTokens"] = request.max_output_tokens
        return {
            "systemInstruction": {"parts": [{"text": request.system}]},
            "contents": [{"role": "user", "parts": [{"text": request.user}]}],
            "generationConfig": generation,
        }

    def create_batch(
        self, model: str, requests: Sequence[tuple[str, LLMRequest]], display_name: str, use_file: bool
    ) -> BatchState:
        types = self._types
        try:
            if use_file:
                with tempfile.TemporaryDirectory(prefix="sob-batch-") as tmp:
                    path = Path(tmp) / f"{display_name}.jsonl"
                    with path.open("w", encoding="utf-8") as handle:
                        for key, request in requests:
                            line = {"key": key, "request": self.rest_request(request)}
                            handle.write(json.dumps(line, ensure_ascii=False) + "\n")
                    uploaded = self.client.files.upload(
                        file=str(path), config=types.UploadFileConfig(display_name=display_name, mime_type="jsonl")
                    )
                src: Any = uploaded.name
            else:
                src = [
                    types.InlinedRequest(
                        model=model, contents=request.user, config=self.config_for(request), metadata={"key": key}
                    )
                    for key, request in requests
                ]
            job = self.client.batches.create(
                model=model, src=src, config=types.CreateBatchJobConfig(display_name=display_name)
            )
        except Exception as exc:
            raise self.to_llm_error(exc) from exc
        return BatchState(name=job.name, state=_enum_name(job.state) or "JOB_STATE_PENDING", display_name=display_name)

    def find_batch(self, display_name: str) -> BatchState | None:
        """A job submitted earlier under this display name (after a run died before storing its name)."""
        try:
            for job in self.client.batches.list(config=self._types.ListBatchJobsConfig(page_size=100)):
                if job.display_name == display_name:
                    return BatchState(name=job.name, state=_enum_name(job.state) or "", display_name=display_name)
        except Exception as exc:
            raise self.to_llm_error(exc) from exc
        return None

    def get_batch(self, name: str) -> BatchState:
        try:
            job = self.client.batches.get(name=name)
            state = _enum_name(job.state) or ""
            results: dict[str, RawReply | str] | None = None
            if state in {"JOB_STATE_SUCCEEDED", "JOB_STATE_PARTIALLY_SUCCEEDED"} and job.dest is not None:
                results = {}
                if job.dest.inlined_responses:
                    for item in job.dest.inlined_responses:
                        key = (item.metadata or {}).get("key")
                        if key is None:
                            continue
                        if item.error is not None:
                            results[key] = f"batch item error: {item.error}"
                        elif item.response is not None:
                            results[key] = reply_from_sdk(item.response)
                elif job.dest.file_name:
                    data = self.client.files.download(file=job.dest.file_name)
                    for line in data.decode("utf-8").splitlines():
                        if not line.strip():
                            continue
                        row = json.loads(line)
                        key = row.get("key")
                        if key is None:
                            continue
                        if row.get("error"):
                            results[key] = f"batch item error: {row['error']}"
                        elif row.get("response") is not None:
                            results[key] = reply_from_rest(row["response"])
        except Exception as exc:
            raise self.to_llm_error(exc) from exc
        return BatchState(name=job.name or name, state=state, display_name=job.display_name, results=results)
