"""The Gemini backends' config class (core/llm/gemini_backend.py `lookup_free_config`) answers `key in config`
at once instead of iterating the model: the SDK must send the same request bytes as with its own class, for the
judge's requests and for SOB's inference requests (schemas in both of the SDK's fields)."""

from __future__ import annotations

import json

import pytest
from google.genai import types

from core.llm.gemini_backend import GeminiBackend, GeminiSettings, lookup_free_config
from core.llm.types import LLMRequest
from scoring.run.answer import RecordAnswer
from scoring.run.backends import RunSettings, SOBGemini
from tests.llm.fakes import FakeGemini
from tests.llm.test_client_gemini import Answer

SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}, "year": {"type": "integer"}}}


def test_no_field_name_is_in_the_config_as_with_the_sdk_class() -> None:
    fields = {"system_instruction": "s", "temperature": 0.0, "response_mime_type": "application/json"}
    ours, theirs = lookup_free_config(types)(**fields), types.GenerateContentConfig(**fields)
    assert isinstance(ours, types.GenerateContentConfig) and type(ours).__name__ == "GenerateContentConfig"
    for name in types.GenerateContentConfig.model_fields:
        assert (name in ours) is (name in theirs) is False
    assert ours.model_dump() == theirs.model_dump()


def bodies_sent(server: FakeGemini, backend: GeminiBackend, request: LLMRequest) -> list[str]:
    """The request body the SDK sends with the backend's config class, then with the SDK's own."""
    sent = []
    for config_class in (backend._config, types.GenerateContentConfig):
        backend._config = config_class
        backend.generate("gemini-2.5-flash", request)
        sent.append(json.dumps(server.requests[-1].body, sort_keys=True))
    return sent


@pytest.mark.parametrize("schema_field", ["response_json_schema", "response_schema"])
def test_the_judge_backend_sends_the_bytes_the_sdk_class_sends(schema_field: str) -> None:
    server = FakeGemini()
    server.answer = lambda req: '{"answer": "Oslo"}'
    try:
        backend = GeminiBackend(GeminiSettings(api_key="k-not-real", base_url=server.url, schema_field=schema_field))
        request = LLMRequest(stage="judge", prompt_version="t/1", system="Be exact.", user="Q?", response_model=Answer)
        ours, theirs = bodies_sent(server, backend, request)
    finally:
        server.close()
    assert ours == theirs and "Be exact." in ours


@pytest.mark.parametrize("structured", [False, True])
def test_the_inference_backend_sends_the_bytes_the_sdk_class_sends(structured: bool) -> None:
    server = FakeGemini()
    server.answer = lambda req: '{"name": "Oslo", "year": null}'
    try:
        settings = RunSettings(provider="gemini", api_key="k-not-real", base_url=server.url, structured=structured)
        backend = SOBGemini(settings, "gemini-2.5-flash")
        request = LLMRequest(
            stage="inference",
            prompt_version="t/1",
            system="SOB system prompt",
            user="Context...",
            response_model=RecordAnswer,
            response_schema=SCHEMA,
            temperature=0.0,
            max_output_tokens=2048,
        )
        ours, theirs = bodies_sent(server, backend, request)
    finally:
        server.close()
    assert ours == theirs and '"maxOutputTokens": 2048' in ours
    assert ("responseSchema" in ours) is structured
