"""The LLM client with the real openai SDK against the local OpenAI-compatible fake server."""

from __future__ import annotations

import json
import time

from pydantic import BaseModel

from core.llm.types import LLMRequest
from core.store import Store
from tests.llm.fakes import FakeOpenAI, Reply, openai_body, openai_error


class Answer(BaseModel):
    city: str
    population: int


GOOD = json.dumps({"city": "Oslo", "population": 700000})


def request(user: str = "Which city?") -> LLMRequest:
    return LLMRequest(stage="test", prompt_version="t/1", system="Answer in JSON.", user=user, response_model=Answer)


def test_parsed_object_and_request_shape(fake_openai: FakeOpenAI, make_openai_client) -> None:
    fake_openai.answer = lambda req: GOOD
    client = make_openai_client(fake_openai)
    result = client.complete(request())
    assert result.ok and result.parsed == Answer(city="Oslo", population=700000)
    assert result.backend == "openai" and result.model == "qwen2.5-7b-instruct"
    assert result.usage.input_tokens == 100
    seen = fake_openai.requests[0]
    assert seen.path == "/v1/chat/completions"
    assert seen.body["messages"][0] == {"role": "system", "content": "Answer in JSON."}
    assert seen.body["response_format"]["type"] == "json_schema"
    assert set(seen.body["response_format"]["json_schema"]["schema"]["properties"]) == {"city", "population"}


def test_429_retry_after_and_500(fake_openai: FakeOpenAI, make_openai_client) -> None:
    fake_openai.answer = lambda req: GOOD
    fake_openai.enqueue(Reply(429, openai_error(429), {"Retry-After": "0.25"}), Reply(500, openai_error(500)))
    result = make_openai_client(fake_openai).complete(request())
    assert result.ok and result.attempts == 3
    assert fake_openai.requests[1].at - fake_openai.requests[0].at >= 0.25


def test_timeout_then_answer(fake_openai: FakeOpenAI, make_openai_client) -> None:
    fake_openai.answer = lambda req: GOOD
    fake_openai.enqueue(Reply(200, openai_body(GOOD), delay=1.5))
    started = time.monotonic()
    result = make_openai_client(fake_openai, timeout_s=0.3).complete(request())
    assert result.ok and result.attempts == 2 and time.monotonic() - started < 1.4


def test_malformed_then_fenced_json(fake_openai: FakeOpenAI, make_openai_client, store: Store) -> None:
    fake_openai.enqueue(Reply(200, openai_body("{oops")), Reply(200, openai_body(f"```json\n{GOOD}\n```")))
    client = make_openai_client(fake_openai, store=store)
    result = client.complete(request())
    assert result.ok and result.attempts == 2
    assert client.complete(request()).cached
    assert len(fake_openai.requests) == 2


def test_empty_choices_is_a_parse_error(fake_openai: FakeOpenAI, make_openai_client) -> None:
    body = openai_body(None)
    body["choices"] = []
    fake_openai.answer = lambda req: Reply(200, body)
    result = make_openai_client(fake_openai).complete(request())
    assert result.status == "parse_error" and "empty reply" in (result.error or "")


def test_401_is_not_retried(fake_openai: FakeOpenAI, make_openai_client) -> None:
    fake_openai.enqueue(Reply(401, openai_error(401, "bad key")))
    result = make_openai_client(fake_openai).complete(request())
    assert result.status == "call_error" and result.attempts == 1
