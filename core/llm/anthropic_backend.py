"""Anthropic's Messages API through the `anthropic` SDK.

The SDK's own retries are off (`max_retries=0`): the client's policy decides. Anthropic has no JSON
mode: the reply schema travels in the prompt, and the reply is the text of the first text block.
Endpoint: `base_url`, else the SDK's `ANTHROPIC_BASE_URL`, else Anthropic's; key: `api_key`, else
`ANTHROPIC_API_KEY`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from core.llm import reply_size
from core.llm.failures import is_refusal
from core.llm.gemini_backend import is_transport_error
from core.llm.retry import parse_retry_after
from core.llm.types import LLMError, LLMRequest, RawReply, Usage, is_transient_status, not_a_reply

DEFAULT_MAX_TOKENS = 2048  # the Messages API requires a budget
# The SDK (2.x) no longer takes `temperature` as an argument (the newest models refuse it), while the API still
# takes it for the others: it is sent in the body as it always was.
TEMPERATURE_NOTE = "temperature travels in extra_body"


class AnthropicSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    base_url: str | None = None
    api_key: str | None = None
    timeout_s: float = 120.0


class AnthropicBackend:
    name = "anthropic"

    def __init__(self, settings: AnthropicSettings | None = None) -> None:
        import anthropic

        self.settings = settings or AnthropicSettings()
        self._anthropic = anthropic
        kwargs: dict[str, Any] = {}
        if self.settings.api_key:
            kwargs["api_key"] = self.settings.api_key
        if self.settings.base_url:
            kwargs["base_url"] = self.settings.base_url
        try:
            self.client = anthropic.Anthropic(
                timeout=self.settings.timeout_s,
                max_retries=0,
                http_client=anthropic.DefaultHttpxClient(event_hooks=reply_size.event_hooks()),
                **kwargs,
            )
        except anthropic.AnthropicError as exc:
            raise LLMError(f"cannot start the Anthropic client: {exc}. Set ANTHROPIC_API_KEY", transient=False) from exc

    def generate(self, model: str, request: LLMRequest) -> RawReply:
        kwargs: dict[str, Any] = {}
        if request.temperature is not None:
            kwargs["extra_body"] = {"temperature": request.temperature}  # see TEMPERATURE_NOTE
        return self.messages(
            model=model,
            max_tokens=request.max_output_tokens or DEFAULT_MAX_TOKENS,
            system=request.system,
            messages=[{"role": "user", "content": request.user}],
            **kwargs,
        )

    def messages(self, **kwargs: Any) -> RawReply:
        """One `messages.create` call with these arguments, as a RawReply (or an LLMError)."""
        try:
            response = self.client.messages.create(**kwargs)
        except Exception as exc:
            raise self.to_llm_error(exc) from exc
        if not isinstance(response, self._anthropic.types.Message):
            raise LLMError(f"anthropic: HTTP 200 but not a message: {not_a_reply(response)}", transient=True)
        usage = Usage()
        if response.usage is not None:
            usage = Usage(
                input_tokens=response.usage.input_tokens or 0,
                output_tokens=response.usage.output_tokens or 0,
                cached_input_tokens=getattr(response.usage, "cache_read_input_tokens", None) or 0,
            )
        text = next((block.text for block in response.content if getattr(block, "type", None) == "text"), None)
        return RawReply(text=text, finish_reason=response.stop_reason, usage=usage, model_version=response.model)

    def to_llm_error(self, exc: Exception) -> Exception:
        anthropic = self._anthropic
        if (large := reply_size.too_large(exc)) is not None:
            return LLMError(f"anthropic: {large}", transient=False)
        if isinstance(exc, anthropic.APIStatusError):
            retry_after = parse_retry_after(exc.response.headers.get("retry-after"))
            message = f"anthropic: HTTP {exc.status_code}: {exc.message}"
            # 529 is Anthropic's "overloaded": a server failure like a 503
            return LLMError(
                message,
                status=exc.status_code,
                transient=is_transient_status(exc.status_code),
                retry_after=retry_after,
                refused=is_refusal(exc.status_code, message),
            )
        if isinstance(exc, anthropic.APIConnectionError) or is_transport_error(exc):  # includes APITimeoutError
            return LLMError(f"anthropic: {type(exc).__name__}: {exc}", transient=True)
        return exc
