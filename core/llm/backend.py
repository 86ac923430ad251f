"""The backend protocol, and reading a reply's JSON text."""

from __future__ import annotations

import re
from typing import Protocol

from pydantic import BaseModel, ValidationError

from core.llm.types import LLMRequest, RawReply


class Backend(Protocol):
    """One provider behind the client: sends one request, returns the raw reply or raises LLMError."""

    name: str

    def generate(self, model: str, request: LLMRequest) -> RawReply: ...


_FENCE = re.compile(r"^\s*```(?:json)?\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


def parse_reply(raw: RawReply, model: type[BaseModel]) -> tuple[BaseModel | None, str | None]:
    """The reply parsed into `model`, or None and why (the caller keeps the raw text)."""
    text = raw.text
    if text is None or not text.strip():
        if raw.block_reason:
            return None, f"no candidate: the prompt was blocked ({raw.block_reason})"
        return None, f"empty reply (finish reason {raw.finish_reason or 'unknown'})"
    match = _FENCE.match(text)
    if match:  # some OpenAI-compatible servers wrap JSON in a code fence
        text = match.group(1)
    try:
        return model.model_validate_json(text), None
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc']) or '$'}: {err['msg']}" for err in exc.errors()[:5])
        finish = f" (finish reason {raw.finish_reason})" if raw.finish_reason not in (None, "STOP", "stop") else ""
        return None, f"reply does not parse as {model.__name__}{finish}: {problems}"
