"""A local HTTP server that speaks Anthropic's Messages API (`POST /v1/messages`), so the real `anthropic`
client runs against it.

It shares the scripted behaviour of tests/llm/fakes.py (`answer`, `script`, `latency`, random 429s with
Retry-After, `fault`, recorded requests). Replies are Anthropic's: a `message` with text content blocks,
`stop_reason` and `usage`; errors are `{"type": "error", "error": {"type": ..., "message": ...}}` with
Anthropic's error types; a request without a key (`x-api-key`, or a bearer token) or `anthropic-version` is refused
as Anthropic refuses it.
"""

from __future__ import annotations

from typing import Any

from tests.llm.fakes import FakeServer, ModelRequest, Reply, Seen

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def anthropic_body(
    text: str | None, model: str = "m", stop: str = "end_turn", input_tokens: int = 100
) -> dict[str, Any]:
    content = [] if text is None else [{"type": "text", "text": text}]
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": len(text or "") // 4},
    }


def anthropic_error(status: int, message: str = "fault") -> dict[str, Any]:
    return {"type": "error", "error": {"type": ERROR_TYPES.get(status, "api_error"), "message": message}}


def anthropic_key_invalid() -> Any:
    """Refuse every request's key, as Anthropic does: HTTP 401 authentication_error."""
    return lambda seen: Reply(401, anthropic_error(401, "invalid x-api-key"))


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(block.get("text", "") for block in content if isinstance(block, dict))
    return ""


class FakeAnthropic(FakeServer):
    """Speaks `POST /v1/messages`."""

    def route(self, seen: Seen) -> Reply:
        if seen.method != "POST" or seen.path.rstrip("/") != "/v1/messages":
            return Reply(404, anthropic_error(404, f"no route for {seen.method} {seen.path}"))
        # The key as `x-api-key`, or as a bearer token (what the 2.x SDK sends)
        if not (seen.headers.get("x-api-key") or seen.headers.get("authorization", "").startswith("Bearer ")):
            return Reply(401, anthropic_error(401, "x-api-key header is required"))
        if not seen.headers.get("anthropic-version"):
            return Reply(400, anthropic_error(400, "anthropic-version header is required"))
        body = seen.body if isinstance(seen.body, dict) else {}
        if "max_tokens" not in body:
            return Reply(400, anthropic_error(400, "max_tokens: Field required"))
        messages = body.get("messages") or []
        req = ModelRequest(
            model=body.get("model", ""),
            system=_text(body.get("system")),
            user="".join(_text(m.get("content")) for m in messages if m.get("role") == "user"),
            schema={},
        )
        return self.model_reply(req, lambda text: anthropic_body(text, model=req.model), anthropic_error)
