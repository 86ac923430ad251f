"""The backend protocol, and reading a reply's JSON text."""

from __future__ import annotations

import re
from typing import Protocol

from pydantic import BaseModel, ValidationError

from core.boundary import InputRejected, parse_json_text
from core.llm.types import LLMRequest, RawReply


class Backend(Protocol):
    """One provider behind the client: sends one request, returns the raw reply or raises LLMError."""

    name: str

    def generate(self, model: str, request: LLMRequest) -> RawReply: ...


_FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n?(.*?)\n?[ \t]*```", re.DOTALL)


def json_text(text: str) -> str:
    """The JSON of a reply: the text itself, the inside of a code fence (with prose around it or not; some
    OpenAI-compatible servers and models wrap their JSON), or else the outermost `{...}`."""
    stripped = text.strip()
    if stripped.startswith(("{", "[")):
        return stripped
    match = _FENCE.search(text)
    if match:
        return match.group(1)
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else text


def parse_reply(raw: RawReply, model: type[BaseModel]) -> tuple[BaseModel | None, str | None]:
    """The reply parsed into `model`, or None and why (the caller keeps the raw text)."""
    text = raw.text
    if text is None or not text.strip():
        if raw.block_reason:
            return None, f"no candidate: the prompt was blocked ({raw.block_reason})"
        return None, f"empty reply (finish reason {raw.finish_reason or 'unknown'})"
    try:  # the input limits, and a key given twice is refused (a parser would silently keep one)
        value = parse_json_text(json_text(text))
    except InputRejected as exc:
        return None, f"reply does not parse as {model.__name__}: {exc.code}: {exc}"
    try:
        return model.model_validate(value), None
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc']) or '$'}: {err['msg']}" for err in exc.errors()[:5])
        finish = f" (finish reason {raw.finish_reason})" if raw.finish_reason not in (None, "STOP", "stop") else ""
        return None, f"reply does not parse as {model.__name__}{finish}: {problems}"
