"""What goes into one LLM call and what comes back: the narrow interface every stage uses."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from core.redaction import redact

BackendName = Literal["gemini", "openai"]
ResultStatus = Literal["ok", "parse_error", "call_error", "deferred"]
FailureKind = Literal["transient", "refused", "rejected", "malformed", "not_sent"]


@cache
def _json_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema()


def json_schema_of(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON Schema, computed once per model (a fresh copy: callers may change it)."""
    return copy.deepcopy(_json_schema(model))


class LLMRequest(BaseModel):
    """A system prompt, a user prompt and the Pydantic model the reply must parse into.

    `prompt_version` names the template and its version (e.g. `judge/rubric-1/prompt-1`): it is part
    of the cache key, so bumping it means stale answers are never reused. `stage` only labels usage.
    """

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, frozen=True)

    stage: str
    prompt_version: str
    system: str
    user: str
    response_model: type[BaseModel]
    temperature: float | None = 0.0
    max_output_tokens: int | None = None
    # The JSON Schema the reply is held to when it is not the response model's own: a benchmark record's
    # schema, while the model only parses JSON. A field, not a model class per schema: building a Pydantic
    # class costs about a millisecond of CPU per request, which a run of thousands of calls cannot afford.
    response_schema: Any = None

    def json_schema(self) -> dict[str, Any]:
        """The schema sent with the request (a fresh copy: a backend may change it)."""
        if self.response_schema is not None:
            return copy.deepcopy(self.response_schema)
        return json_schema_of(self.response_model)

    def canonical(self) -> dict[str, Any]:
        """The request as data, for the cache key (the response model as its JSON Schema)."""
        schema = self.response_schema if self.response_schema is not None else _json_schema(self.response_model)
        return {
            "system": self.system,
            "user": self.user,
            "response_schema": schema,  # read only: no copy
            "temperature": self.temperature,
            "max_output_tokens": self.max_output_tokens,
        }


class Usage(BaseModel):
    """Tokens billed for one call. `output_tokens` includes thinking tokens (billed as output)."""

    model_config = ConfigDict(extra="forbid")

    input_tokens: int = 0
    output_tokens: int = 0
    thinking_tokens: int = 0
    cached_input_tokens: int = 0


@dataclass(frozen=True)
class RawReply:
    """What a backend returns for one successful HTTP exchange, before parsing."""

    text: str | None
    finish_reason: str | None
    usage: Usage
    model_version: str | None = None
    block_reason: str | None = None


class LLMResult(BaseModel):
    """The parsed object, or why there is none (with the raw text kept), plus usage and timing."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    status: ResultStatus
    parsed: BaseModel | None = None
    raw_text: str | None = None
    error: str | None = None
    finish_reason: str | None = None
    usage: Usage = Field(default_factory=Usage)
    backend: str
    model: str
    latency_s: float = 0.0
    attempts: int = 0  # HTTP requests made for this result (0 on a cache hit)
    cached: bool = False
    cache_key: str
    failure: FailureKind | None = None  # why there is no parsed object (core/llm/failures.py)

    @property
    def ok(self) -> bool:
        return self.status == "ok"


class LLMError(RuntimeError):
    """A provider call failed. `transient` errors are retried; the rest are not.

    `refused`: the provider refused the configuration (key, permission, model): the stage stops.
    `not_sent`: the stage had stopped before this request went out. The message never holds a
    configured secret (a server may echo the key in its error body).
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        transient: bool,
        retry_after: float | None = None,
        refused: bool = False,
        not_sent: bool = False,
    ) -> None:
        super().__init__(redact(message))
        self.status = status
        self.transient = transient
        self.retry_after = retry_after
        self.refused = refused
        self.not_sent = not_sent

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as class, message and attributes: a worker process (core/llm/process_backend.py) sends it whole.
        return _rebuild_error, (type(self), str(self), self.__dict__)


def _rebuild_error(cls: type[LLMError], message: str, state: dict[str, Any]) -> LLMError:
    error = cls.__new__(cls)
    RuntimeError.__init__(error, message)
    error.__dict__.update(state)
    return error


class LLMCredentialsError(LLMError):
    """No credentials for a provider's client: `setup` says what to set; a command adds its own other way out
    (`advice`), since each command has other options (`--judge heuristic` exists only where a judge runs)."""

    def __init__(self, setup: str, advice: str = "") -> None:
        super().__init__(setup + (f", {advice}" if advice else ""), transient=False)
        self.setup = redact(setup)

    def with_advice(self, advice: str) -> LLMCredentialsError:
        return LLMCredentialsError(self.setup, advice)


TRANSIENT_STATUS = frozenset({408, 429, 500, 502, 503, 504})


def is_transient_status(status: int | None) -> bool:
    return status is not None and (status in TRANSIENT_STATUS or status >= 500)


def not_a_reply(body: object) -> str:
    """What came back instead of a provider's JSON reply, for the failure message: its start, shown safely."""
    text = body if isinstance(body, str) else repr(body)
    start = " ".join(text[:160].split())
    return f"{start!r}{'...' if len(text) > 160 else ''} (an HTML page or other non-JSON body; a proxy in the way?)"
