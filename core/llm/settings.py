"""LLM settings from the CLI, and the factory that builds a client from them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from core.llm.backend import Backend
from core.llm.batch import BatchRunner
from core.llm.cache import LLMCache
from core.llm.client import LLMClient
from core.llm.failures import DEFAULT_MAX_CONSECUTIVE_FAILURES
from core.llm.gemini_backend import GeminiBackend, GeminiSettings
from core.llm.openai_backend import OpenAIBackend, OpenAISettings
from core.llm.retry import RetryPolicy
from core.llm.usage import UsageTally
from core.redaction import register_secret
from core.store import Store

DEFAULT_JUDGE_MODEL = {"gemini": "gemini-2.5-pro", "openai": "gpt-4o"}
DEFAULT_DRAFT_MODEL = {"gemini": "gemini-2.5-flash", "openai": "gpt-4o-mini"}


class LLMSettings(BaseModel):
    """One backend and model, and how hard to press it."""

    model_config = ConfigDict(extra="forbid")

    backend: Literal["gemini", "openai"] = "gemini"
    model: str
    base_url: str | None = None  # --llm-base-url (Gemini: else GOOGLE_GEMINI_BASE_URL; OpenAI: else OPENAI_BASE_URL)
    api_key: str | None = None  # normally from the environment
    concurrency: int = Field(default=8, ge=1, le=1024)
    rpm: float | None = Field(default=None, gt=0)
    timeout_s: float = Field(default=120.0, gt=0)
    max_attempts: int = Field(default=6, ge=1)
    initial_backoff_s: float = Field(default=1.0, ge=0)
    max_backoff_s: float = Field(default=60.0, ge=0)
    parse_retries: int = Field(default=2, ge=0)
    # Stop sending after this many server failures in a row (5xx, timeouts, no connection); 0: never.
    max_consecutive_failures: int = Field(default=DEFAULT_MAX_CONSECUTIVE_FAILURES, ge=0)
    retry_failed: bool = False  # ask again for replies cached as malformed
    # Vertex AI (Gemini only): else the SDK's GOOGLE_GENAI_USE_VERTEXAI / GOOGLE_CLOUD_* variables
    vertexai: bool | None = None
    project: str | None = None
    location: str | None = None


def make_backend(settings: LLMSettings) -> Backend:
    register_secret(settings.api_key)  # masked wherever text is stored or printed
    if settings.backend == "gemini":
        return GeminiBackend(
            GeminiSettings(
                api_key=settings.api_key,
                base_url=settings.base_url,
                vertexai=settings.vertexai,
                project=settings.project,
                location=settings.location,
                timeout_s=settings.timeout_s,
                max_connections=max(settings.concurrency, 20),
            )
        )
    return OpenAIBackend(
        OpenAISettings(base_url=settings.base_url, api_key=settings.api_key, timeout_s=settings.timeout_s)
    )


def make_client(
    settings: LLMSettings,
    *,
    cache: LLMCache | None = None,
    tally: UsageTally | None = None,
    defer_misses: bool = False,
    backend: Backend | None = None,
) -> LLMClient:
    return LLMClient(
        backend or make_backend(settings),
        settings.model,
        cache=cache,
        tally=tally,
        concurrency=settings.concurrency,
        rpm=settings.rpm,
        retry=RetryPolicy(
            max_attempts=settings.max_attempts,
            initial_delay=settings.initial_backoff_s,
            max_delay=settings.max_backoff_s,
        ),
        parse_retries=settings.parse_retries,
        defer_misses=defer_misses,
        max_consecutive_failures=settings.max_consecutive_failures or None,
        retry_failed=settings.retry_failed,
    )


def make_stage_client(
    store: Store,
    settings: LLMSettings,
    *,
    stage: str,
    source: str,
    tally: UsageTally | None = None,
    batch: bool = False,
) -> tuple[LLMClient, BatchRunner | None]:
    """A cached client for one stage of one source, and its batch runner when `batch` is set."""
    client = make_client(settings, cache=LLMCache(store.con), tally=tally, defer_misses=batch)
    runner = BatchRunner(store, client, stage=stage, source=source) if batch else None
    return client, runner
