"""Any OpenAI-compatible server (vLLM, Ollama, OpenRouter, OpenAI) through the `openai` SDK.

The SDK's own retries are off (`max_retries=0`): the client's policy decides. The reply format is
`json_schema` (non-strict, so servers that support only part of JSON Schema still answer);
`json_mode="json_object"` asks only for a JSON object, for servers without schema support.
"""

from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from core.llm import reply_size
from core.llm.failures import is_refusal
from core.llm.gemini_backend import is_transport_error
from core.llm.retry import parse_retry_after
from core.llm.types import LLMError, LLMRequest, RawReply, Usage, is_transient_status, not_a_reply


class OpenAISettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    base_url: str | None = None  # default: OPENAI_BASE_URL, then api.openai.com
    api_key: str | None = None  # default: OPENAI_API_KEY; local servers need none
    timeout_s: float = 120.0
    json_mode: Literal["json_schema", "json_object"] = "json_schema"


class OpenAIBackend:
    name = "openai"

    def __init__(self, settings: OpenAISettings | None = None) -> None:
        import openai

        self.settings = settings or OpenAISettings()
        self._openai = openai
        self.client = openai.OpenAI(
            api_key=self.settings.api_key or os.environ.get("OPENAI_API_KEY") or "not-needed",
            base_url=self.settings.base_url or os.environ.get("OPENAI_BASE_URL") or None,
            timeout=self.settings.timeout_s,
            max_retries=0,
            http_client=openai.DefaultHttpxClient(event_hooks=reply_size.event_hooks()),
        )

    def _response_format(self, request: LLMRequest) -> dict[str, Any]:
        if self.settings.json_mode == "json_object":
            return {"type": "json_object"}
        return {
            "type": "json_schema",
            "json_schema": {
                "name": request.response_model.__name__,
                "schema": request.json_schema(),
                "strict": False,
            },
        }

    def generate(self, model: str, request: LLMRequest) -> RawReply:
        kwargs: dict[str, Any] = {}
        if request.temperature is not None:
            kwargs["temperature"] = request.temperature
        if request.max_output_tokens is not None:
            kwargs["max_tokens"] = request.max_output_tokens
        return self.chat(
            model=model,
            messages=[
                {"role": "system", "content": request.system},
                {"role": "user", "content": request.user},
            ],
            response_format=self._response_format(request),
            **kwargs,
        )

    def chat(self, **kwargs: Any) -> RawReply:
        """One `chat.completions.create` call with these arguments, as a RawReply (or an LLMError)."""
        try:
            response = self.client.chat.completions.create(**kwargs)
        except Exception as exc:
            raise self.to_llm_error(exc) from exc
        if not isinstance(response, self._openai.types.chat.ChatCompletion):
            # The SDK hands back the body as text when the server did not send JSON (an HTML error page of a
            # proxy, a captive portal): a server failure, asked again on the next run.
            raise LLMError(f"openai: HTTP 200 but not a chat completion: {not_a_reply(response)}", transient=True)
        usage = Usage()
        if response.usage is not None:
            usage = Usage(
                input_tokens=response.usage.prompt_tokens or 0, output_tokens=response.usage.completion_tokens or 0
            )
        if not response.choices:
            return RawReply(text=None, finish_reason=None, usage=usage, model_version=response.model)
        choice = response.choices[0]
        return RawReply(
            text=choice.message.content if choice.message else None,
            finish_reason=choice.finish_reason,
            usage=usage,
            model_version=response.model,
        )

    def to_llm_error(self, exc: Exception) -> Exception:
        openai = self._openai
        if (large := reply_size.too_large(exc)) is not None:
            return LLMError(f"openai: {large}", transient=False)
        if isinstance(exc, openai.APIStatusError):
            headers = exc.response.headers
            retry_after = parse_retry_after(headers.get("retry-after"))
            if retry_after is None and headers.get("retry-after-ms"):
                retry_after = float(headers["retry-after-ms"]) / 1000
            message = f"openai: HTTP {exc.status_code}: {exc.message}"
            return LLMError(
                message,
                status=exc.status_code,
                transient=is_transient_status(exc.status_code),
                retry_after=retry_after,
                refused=is_refusal(exc.status_code, message),
            )
        if isinstance(exc, openai.APIConnectionError) or is_transport_error(exc):  # includes APITimeoutError
            return LLMError(f"openai: {type(exc).__name__}: {exc}", transient=True)
        return exc
