"""Each provider asked as SOB's own runner asks it (`sob/providers/*.py`), behind the client's backend protocol.

What differs from the toolkit's judge backends: the schema is the record's own and is sent only with
structured decoding (`--use-structured-decoding`; Gemini gets SOB's sanitised `response_schema`,
OpenAI its strict `json_schema`, vLLM the schema as is); otherwise Gemini is asked for JSON by MIME
type, OpenAI and OpenRouter by `json_object`, Anthropic and vLLM by the prompt alone. Thinking is
turned off as SOB turns it off, and temperature is left out where SOB leaves it out.
"""

from __future__ import annotations

import os
import re
from typing import Any

from pydantic import BaseModel, ConfigDict

from core.llm.anthropic_backend import AnthropicBackend, AnthropicSettings
from core.llm.gemini_backend import GeminiBackend, GeminiSettings
from core.llm.openai_backend import OpenAIBackend, OpenAISettings
from core.llm.types import LLMError, LLMRequest, RawReply
from core.redaction import register_secret

PROVIDERS = ("gemini", "openai", "anthropic", "openrouter", "vllm")

# Where each provider is reached and which variable holds its key (SOB's runners read the same ones).
DEFAULT_BASE_URL = {
    "openai": "https://api.openai.com/v1",
    "openrouter": "https://openrouter.ai/api/v1",
    "vllm": "http://localhost:8000/v1",
}
KEY_VARIABLE = {
    "gemini": "GEMINI_API_KEY",
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "vllm": "VLLM_API_KEY",
}
# Anthropic models that refuse a temperature (SOB's `exclude_model`).
ANTHROPIC_NO_TEMPERATURE = frozenset({"opus-4-7", "opus-4-8", "claude-fable-5"})
_GPT5_DOTTED = re.compile(r"^gpt-5\.\d")


class RunSettings(BaseModel):
    """One provider and how SOB asks it."""

    model_config = ConfigDict(extra="forbid")

    provider: str
    structured: bool = False  # --use-structured-decoding
    disable_thinking: bool = True  # SOB's default
    base_url: str | None = None
    api_key: str | None = None
    timeout_s: float = 120.0
    max_connections: int = 20
    openrouter_extra_body: dict[str, Any] | None = None


def thinking_config(types: Any, model_id: str) -> Any:
    """SOB's lowest thinking setting per Gemini generation (a wrong knob is an error on the others)."""
    mid = model_id.lower().removeprefix("models/")
    if mid.startswith("gemini-3"):
        return types.ThinkingConfig(thinking_level="minimal" if "flash" in mid else "low")
    if "2.5-pro" in mid:
        return types.ThinkingConfig(thinking_budget=128)
    if "2.5-flash-lite" in mid:
        return types.ThinkingConfig(thinking_budget=512)
    return types.ThinkingConfig(thinking_budget=0)


def min_reasoning_effort(model_id: str) -> str | None:
    """The lowest `reasoning_effort` an OpenAI model takes (SOB's rule), or None where it takes none."""
    if _GPT5_DOTTED.match(model_id):
        return "none"
    if model_id.startswith(("gpt-5", "o")):
        return "minimal"
    return None


class SOBGemini(GeminiBackend):
    name = "gemini"

    def __init__(self, settings: RunSettings, model_id: str) -> None:
        super().__init__(
            GeminiSettings(
                api_key=settings.api_key,
                base_url=settings.base_url,
                timeout_s=settings.timeout_s,
                max_connections=settings.max_connections,
            )
        )
        self.run = settings
        self.model_id = model_id

    def config_for(self, request: LLMRequest) -> Any:
        config: dict[str, Any] = {
            "system_instruction": request.system,
            "temperature": request.temperature,
            "max_output_tokens": request.max_output_tokens,
            "response_mime_type": "application/json",
        }
        if self.run.disable_thinking:
            config["thinking_config"] = thinking_config(self._types, self.model_id)
        if self.run.structured:
            config["response_schema"] = request.json_schema()
        try:
            return self._config(**config)
        except Exception as exc:  # the SDK cannot take this record's schema (a list of types): SOB's call fails too
            raise LLMError(
                f"gemini: the SDK refuses this record's schema as response_schema ({type(exc).__name__}: {exc})",
                transient=False,
            ) from exc


class SOBChat(OpenAIBackend):
    """OpenAI, OpenRouter and a vLLM server, all through the `openai` SDK's chat completions."""

    def __init__(self, settings: RunSettings) -> None:
        self.name = settings.provider
        base_url = settings.base_url or DEFAULT_BASE_URL[settings.provider]
        super().__init__(OpenAISettings(base_url=base_url, api_key=settings.api_key, timeout_s=settings.timeout_s))
        self.run = settings

    def generate(self, model: str, request: LLMRequest) -> RawReply:
        messages = [{"role": "system", "content": request.system}, {"role": "user", "content": request.user}]
        kwargs: dict[str, Any] = {"model": model, "messages": messages}
        provider = self.run.provider
        if provider == "openai":
            kwargs["max_completion_tokens"] = request.max_output_tokens
            kwargs["response_format"] = {"type": "json_object"}
            if self.run.structured:
                schema = request.json_schema()
                kwargs["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": "answer", "schema": schema, "strict": True},
                }
            if not model.startswith("gpt-5"):
                kwargs["temperature"] = request.temperature
            effort = min_reasoning_effort(model)
            if self.run.disable_thinking and effort is not None:
                kwargs["reasoning_effort"] = effort
        elif provider == "openrouter":
            kwargs |= {"max_tokens": request.max_output_tokens, "temperature": request.temperature}
            kwargs["response_format"] = {"type": "json_object"}
            extra = dict(self.run.openrouter_extra_body or {})
            if self.run.disable_thinking:
                extra.setdefault("reasoning", {"effort": "None", "exclude": True})
            if extra:
                kwargs["extra_body"] = extra
        else:  # vllm: SOB samples with max_tokens and temperature, and turns thinking off in the chat template
            kwargs |= {"max_tokens": request.max_output_tokens, "temperature": request.temperature}
            if self.run.structured:
                schema = request.json_schema()
                kwargs["response_format"] = {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}
            if self.run.disable_thinking:
                kwargs["extra_body"] = {"chat_template_kwargs": {"enable_thinking": False}}
        return self.chat(**kwargs)


class SOBAnthropic(AnthropicBackend):
    name = "anthropic"

    def __init__(self, settings: RunSettings) -> None:
        super().__init__(
            AnthropicSettings(base_url=settings.base_url, api_key=settings.api_key, timeout_s=settings.timeout_s)
        )

    def generate(self, model: str, request: LLMRequest) -> RawReply:
        kwargs: dict[str, Any] = {
            "model": model,
            "max_tokens": request.max_output_tokens,
            "system": request.system,
            "messages": [{"role": "user", "content": request.user}],
        }
        if model not in ANTHROPIC_NO_TEMPERATURE:  # the SDK has no temperature argument any more: in the body
            kwargs["extra_body"] = {"temperature": request.temperature}
        return self.messages(**kwargs)


def api_key_for(settings: RunSettings, env: dict[str, str] | None = None) -> str | None:
    """The key given, else the provider's variable (Gemini: also the SDK's GOOGLE_API_KEY)."""
    env = dict(os.environ) if env is None else env
    key = settings.api_key or env.get(KEY_VARIABLE[settings.provider])
    if key is None and settings.provider == "gemini":
        key = env.get("GOOGLE_API_KEY")
    return key


def make_run_backend(settings: RunSettings, model_id: str) -> Any:
    """The backend for `settings.provider`; a missing key is a clear error (a local vLLM needs none)."""
    if settings.provider not in PROVIDERS:
        raise LLMError(f"unknown provider {settings.provider!r}; choose one of {', '.join(PROVIDERS)}", transient=False)
    key = api_key_for(settings)
    if key is None and settings.provider != "vllm":
        raise LLMError(
            f"--provider {settings.provider} needs an API key: set {KEY_VARIABLE[settings.provider]}", transient=False
        )
    register_secret(key)  # masked wherever text is stored or printed
    settings = settings.model_copy(update={"api_key": key or "not-needed"})
    if settings.provider == "gemini":
        return SOBGemini(settings, model_id)
    if settings.provider == "anthropic":
        return SOBAnthropic(settings)
    return SOBChat(settings)
