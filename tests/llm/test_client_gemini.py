"""The LLM client with the real google-genai SDK against the local fake Gemini server."""

from __future__ import annotations

import json
import socket
import time

import pytest
from pydantic import BaseModel

from core.llm.cache import LLMCache
from core.llm.client import LLMClient
from core.llm.gemini_backend import GeminiBackend, GeminiSettings
from core.llm.retry import RetryPolicy
from core.llm.types import LLMRequest
from core.store import Store
from tests.llm.fakes import FakeGemini, Reply, gemini_body, gemini_error


class Answer(BaseModel):
    city: str
    population: int


def request(user: str = "Which city?", version: str = "t/1") -> LLMRequest:
    return LLMRequest(stage="test", prompt_version=version, system="Answer in JSON.", user=user, response_model=Answer)


GOOD = json.dumps({"city": "Oslo", "population": 700000})


def test_parsed_object_usage_model_and_latency(fake_gemini: FakeGemini, make_gemini_client) -> None:
    fake_gemini.answer = lambda req: GOOD
    fake_gemini.latency = 0.05
    client = make_gemini_client(fake_gemini, model="gemini-2.5-flash")
    result = client.complete(request())
    assert result.ok and result.parsed == Answer(city="Oslo", population=700000)
    assert result.model == "gemini-2.5-flash" and result.backend == "gemini"
    assert result.usage.input_tokens == 100 and result.usage.output_tokens > 0
    assert result.usage.thinking_tokens == 10
    assert result.latency_s >= 0.05 and result.attempts == 1 and not result.cached
    seen = fake_gemini.requests[0]
    assert seen.path == "/v1/models/gemini-2.5-flash:generateContent"
    assert seen.headers["x-goog-api-key"] == "test-key-not-real"
    body = seen.body
    assert body["systemInstruction"]["parts"][0]["text"] == "Answer in JSON."
    assert body["contents"][0]["parts"][0]["text"] == "Which city?"
    assert body["generationConfig"]["responseMimeType"] == "application/json"
    assert set(body["generationConfig"]["responseJsonSchema"]["properties"]) == {"city", "population"}
    line = client.tally.lines()[0]
    assert (line.calls, line.input_tokens) == (1, 100)


def test_older_schema_field_is_available(fake_gemini: FakeGemini) -> None:
    fake_gemini.answer = lambda req: GOOD
    backend = GeminiBackend(GeminiSettings(base_url=fake_gemini.url, schema_field="response_schema"))
    assert LLMClient(backend, "gemini-2.0-flash").complete(request()).ok
    schema = fake_gemini.requests[0].body["generationConfig"]["responseSchema"]
    assert schema["type"] == "OBJECT" and set(schema["properties"]) == {"city", "population"}


def test_429_retry_after_is_honoured(fake_gemini: FakeGemini, make_gemini_client) -> None:
    fake_gemini.answer = lambda req: GOOD
    fake_gemini.enqueue(Reply(429, gemini_error(429), {"Retry-After": "0.3"}))
    client = make_gemini_client(fake_gemini)
    started = time.monotonic()
    result = client.complete(request())
    assert result.ok and result.attempts == 2
    assert time.monotonic() - started >= 0.3
    gap = fake_gemini.requests[1].at - fake_gemini.requests[0].at
    assert gap >= 0.3
    assert client.tally.lines()[0].failed_calls == 1


def test_retry_info_in_the_error_body_is_honoured(fake_gemini: FakeGemini, make_gemini_client) -> None:
    fake_gemini.answer = lambda req: GOOD
    error = gemini_error(429)
    error["error"]["details"] = [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.2s"}]
    fake_gemini.enqueue(Reply(429, error))
    result = make_gemini_client(fake_gemini).complete(request())
    assert result.ok
    assert fake_gemini.requests[1].at - fake_gemini.requests[0].at >= 0.2


def test_5xx_is_retried_with_backoff(fake_gemini: FakeGemini, make_gemini_client) -> None:
    fake_gemini.answer = lambda req: GOOD
    fake_gemini.enqueue(Reply(500, gemini_error(500)), Reply(503, gemini_error(503)))
    result = make_gemini_client(fake_gemini).complete(request())
    assert result.ok and result.attempts == 3


def test_gives_up_after_max_attempts(fake_gemini: FakeGemini, make_gemini_client) -> None:
    fake_gemini.answer = lambda req: Reply(500, gemini_error(500))
    result = make_gemini_client(fake_gemini).complete(request())
    assert result.status == "call_error" and result.attempts == 4
    assert "500" in (result.error or "")


def test_400_is_not_retried(fake_gemini: FakeGemini, make_gemini_client) -> None:
    fake_gemini.enqueue(Reply(400, gemini_error(400, "bad schema")))
    result = make_gemini_client(fake_gemini).complete(request())
    assert result.status == "call_error" and result.attempts == 1
    assert "bad schema" in (result.error or "")


def test_timeout_is_retried(fake_gemini: FakeGemini, make_gemini_client) -> None:
    fake_gemini.answer = lambda req: GOOD
    fake_gemini.enqueue(Reply(200, gemini_body(GOOD), delay=1.5))
    client = make_gemini_client(fake_gemini, timeout_s=0.3)
    started = time.monotonic()
    result = client.complete(request())
    assert result.ok and result.attempts == 2
    assert time.monotonic() - started < 1.4


def test_malformed_json_is_asked_again_and_cached_under_the_first_key(
    fake_gemini: FakeGemini, make_gemini_client, store: Store
) -> None:
    fake_gemini.answer = lambda req: GOOD
    fake_gemini.enqueue(Reply(200, gemini_body('{"city": "Oslo", "population": ')))
    client = make_gemini_client(fake_gemini, store=store)
    result = client.complete(request())
    assert result.ok and result.attempts == 2
    retry_prompt = fake_gemini.requests[1].body["contents"][0]["parts"][0]["text"]
    assert "could not be used" in retry_prompt and "does not parse" in retry_prompt
    again = client.complete(request())
    assert again.cached and again.parsed == result.parsed
    assert len(fake_gemini.requests) == 2


def test_a_reply_that_never_parses_keeps_the_raw_text(
    fake_gemini: FakeGemini, make_gemini_client, store: Store
) -> None:
    fake_gemini.answer = lambda req: "I think it is Oslo."
    client = make_gemini_client(fake_gemini, store=store, parse_retries=1)
    result = client.complete(request())
    assert result.status == "parse_error" and result.parsed is None
    assert result.raw_text == "I think it is Oslo." and result.attempts == 2
    assert result.failure == "malformed"
    # Kept as a failure with its raw reply: a later run is not charged for it again...
    hit = LLMCache(store.con).get(result.cache_key)
    assert (
        hit is not None and hit.failed and hit.text == "I think it is Oslo." and "does not parse" in (hit.error or "")
    )
    again = make_gemini_client(fake_gemini, store=store, parse_retries=1).complete(request())
    assert again.status == "parse_error" and again.cached and again.raw_text == "I think it is Oslo."
    assert len(fake_gemini.requests) == 2
    # ...unless asked (--retry-failed): a good answer then replaces the failure.
    fake_gemini.answer = lambda req: GOOD
    retried = make_gemini_client(fake_gemini, store=store, parse_retries=1)
    retried.retry_failed = True
    assert retried.complete(request()).ok and len(fake_gemini.requests) == 3
    assert make_gemini_client(fake_gemini, store=store).complete(request()).cached
    assert len(fake_gemini.requests) == 3


def test_empty_candidate_and_blocked_prompt(fake_gemini: FakeGemini, make_gemini_client) -> None:
    usage = {"promptTokenCount": 5, "totalTokenCount": 5}
    fake_gemini.enqueue(
        Reply(200, {"candidates": [], "usageMetadata": usage}),
        Reply(200, {"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": usage}),
    )
    result = make_gemini_client(fake_gemini, parse_retries=1).complete(request())
    assert result.status == "parse_error" and result.raw_text is None
    assert "blocked (SAFETY)" in (result.error or "")


def test_finish_reason_safety(fake_gemini: FakeGemini, make_gemini_client) -> None:
    fake_gemini.answer = lambda req: Reply(200, gemini_body(None, finish="SAFETY"))
    result = make_gemini_client(fake_gemini, parse_retries=0).complete(request())
    assert result.status == "parse_error" and result.finish_reason == "SAFETY"
    assert "SAFETY" in (result.error or "")


def test_cache_hit_makes_no_call_and_a_version_bump_does(
    fake_gemini: FakeGemini, make_gemini_client, store: Store
) -> None:
    fake_gemini.answer = lambda req: GOOD
    client = make_gemini_client(fake_gemini, store=store)
    first = client.complete(request())
    second = client.complete(request())
    assert not first.cached and second.cached and second.attempts == 0
    assert len(fake_gemini.requests) == 1
    client.complete(request(version="t/2"))
    assert len(fake_gemini.requests) == 2
    other_model = make_gemini_client(fake_gemini, store=store, model="gemini-2.5-flash")
    other_model.complete(request())
    assert len(fake_gemini.requests) == 3
    assert client.tally.lines()[0].cache_hits == 1


def test_cache_survives_reopening_the_store(fake_gemini: FakeGemini, make_gemini_client, tmp_path) -> None:
    fake_gemini.answer = lambda req: GOOD
    with Store.open(tmp_path / "w") as store:
        make_gemini_client(fake_gemini, store=store).complete(request())
    with Store.open(tmp_path / "w") as store:
        result = make_gemini_client(fake_gemini, store=store).complete(request())
    assert result.cached and len(fake_gemini.requests) == 1


def test_concurrency_limit_holds(fake_gemini: FakeGemini, make_gemini_client) -> None:
    fake_gemini.answer = lambda req: GOOD
    fake_gemini.latency = 0.1
    client = make_gemini_client(fake_gemini, concurrency=4)
    started = time.monotonic()
    results = client.complete_many([request(user=f"q{i}") for i in range(16)])
    took = time.monotonic() - started
    assert all(r.ok for r in results) and len(results) == 16
    assert fake_gemini.max_in_flight == 4
    assert 0.4 <= took < 1.2


def test_deferred_mode_makes_no_call(fake_gemini: FakeGemini, make_gemini_client, store: Store) -> None:
    client = make_gemini_client(fake_gemini, store=store, defer_misses=True)
    result = client.complete(request())
    assert result.status == "deferred" and list(client.deferred) == [result.cache_key]
    assert fake_gemini.requests == []


def test_base_url_from_the_sdk_environment_variable(fake_gemini: FakeGemini, monkeypatch) -> None:
    fake_gemini.answer = lambda req: GOOD
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", fake_gemini.url)
    client = LLMClient(GeminiBackend(GeminiSettings()), "gemini-2.5-pro", retry=RetryPolicy(max_attempts=1))
    assert client.complete(request()).ok


def test_without_a_base_url_nothing_leaves_the_machine(monkeypatch) -> None:
    client = LLMClient(GeminiBackend(GeminiSettings(timeout_s=1)), "gemini-2.5-pro", retry=RetryPolicy(max_attempts=1))
    result = client.complete(request())  # GOOGLE_GEMINI_BASE_URL points at a closed local port
    assert result.status == "call_error"
    with pytest.raises(RuntimeError, match="only talk to servers on this machine"):
        socket.create_connection(("142.250.74.100", 443), timeout=1)


def test_a_missing_key_is_a_clear_error(monkeypatch) -> None:
    from core.llm.types import LLMError

    monkeypatch.delenv("GEMINI_API_KEY")
    with pytest.raises(LLMError, match="GEMINI_API_KEY"):
        GeminiBackend(GeminiSettings())
