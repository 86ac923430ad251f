"""The narrow LLM client shared by drafts and the judge (google-genai or any OpenAI-compatible server).

from core.llm import LLMRequest, LLMSettings, make_client
client = make_client(LLMSettings(backend="gemini", model="gemini-2.5-pro"), cache=LLMCache(store.con))
result = client.complete(LLMRequest(stage="judge", prompt_version="judge/1", system=..., user=...,
                                    response_model=MyReply))
result.parsed / result.status / result.raw_text / result.usage / result.latency_s
"""

from core.llm.batch import BatchRunner
from core.llm.cache import LLMCache, cache_key
from core.llm.client import LLMClient
from core.llm.gemini_backend import GeminiBackend, GeminiSettings, gemini_credentials_available
from core.llm.openai_backend import OpenAIBackend, OpenAISettings
from core.llm.retry import RetryPolicy
from core.llm.settings import (
    DEFAULT_DRAFT_MODEL,
    DEFAULT_JUDGE_MODEL,
    LLMSettings,
    make_backend,
    make_client,
    make_stage_client,
)
from core.llm.types import LLMError, LLMRequest, LLMResult, Usage
from core.llm.usage import UsageTally, usage_totals

__all__ = [
    "DEFAULT_DRAFT_MODEL",
    "DEFAULT_JUDGE_MODEL",
    "BatchRunner",
    "GeminiBackend",
    "GeminiSettings",
    "LLMCache",
    "LLMClient",
    "LLMError",
    "LLMRequest",
    "LLMResult",
    "LLMSettings",
    "OpenAIBackend",
    "OpenAISettings",
    "RetryPolicy",
    "Usage",
    "UsageTally",
    "cache_key",
    "gemini_credentials_available",
    "make_backend",
    "make_client",
    "make_stage_client",
    "usage_totals",
]
