"""Fixtures for the LLM tests: fake Gemini/OpenAI servers on 127.0.0.1, a store, fast clients."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from core.llm.cache import LLMCache
from core.llm.client import LLMClient
from core.llm.gemini_backend import GeminiBackend, GeminiSettings
from core.llm.openai_backend import OpenAIBackend, OpenAISettings
from core.llm.retry import RetryPolicy
from core.llm.usage import UsageTally
from core.models import Record, RecordState, SourceItem
from core.store import StateChange, Store
from core.verdicts import ComplexityInfo, GroundingInfo, ValidationReport
from tests.llm.fakes import FakeGemini, FakeOpenAI

PROVIDER_ENV = [
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "GOOGLE_GEMINI_BASE_URL",
    "GOOGLE_VERTEX_BASE_URL",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_GENAI_USE_ENTERPRISE",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "GOOGLE_GENAI_API_VERSION",
]
FAST_RETRY = RetryPolicy(max_attempts=4, initial_delay=0.01, max_delay=0.05)


@pytest.fixture(autouse=True)
def no_real_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    """No real key, and every default endpoint points at a closed local port: a client built
    without an explicit base URL cannot reach a provider (the socket guard would also stop it)."""
    for name in PROVIDER_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GEMINI_API_KEY", "test-key-not-real")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")


@pytest.fixture
def fake_gemini() -> Iterator[FakeGemini]:
    server = FakeGemini()
    yield server
    server.close()


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI()
    yield server
    server.close()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "ws") as opened:
        yield opened


def gemini_client(
    server: FakeGemini,
    *,
    store: Store | None = None,
    model: str = "gemini-2.5-pro",
    timeout_s: float = 5.0,
    concurrency: int = 4,
    retry: RetryPolicy = FAST_RETRY,
    parse_retries: int = 2,
    defer_misses: bool = False,
    tally: UsageTally | None = None,
) -> LLMClient:
    backend = GeminiBackend(GeminiSettings(base_url=server.url, timeout_s=timeout_s))
    return LLMClient(
        backend,
        model,
        cache=LLMCache(store.con) if store is not None else None,
        tally=tally,
        concurrency=concurrency,
        retry=retry,
        parse_retries=parse_retries,
        defer_misses=defer_misses,
    )


def openai_client(
    server: FakeOpenAI,
    *,
    store: Store | None = None,
    model: str = "qwen2.5-7b-instruct",
    timeout_s: float = 5.0,
    concurrency: int = 4,
    retry: RetryPolicy = FAST_RETRY,
) -> LLMClient:
    backend = OpenAIBackend(OpenAISettings(base_url=f"{server.url}/v1", timeout_s=timeout_s))
    return LLMClient(
        backend,
        model,
        cache=LLMCache(store.con) if store is not None else None,
        concurrency=concurrency,
        retry=retry,
    )


@pytest.fixture
def make_gemini_client():
    return gemini_client


@pytest.fixture
def make_openai_client():
    return openai_client


SCHEMA = {
    "type": "object",
    "properties": {
        "person": {"type": "string", "description": "who"},
        "born": {"type": "integer", "description": "birth year"},
        "answer": {"type": "string", "description": "the final answer"},
    },
    "required": ["person", "born", "answer"],
}


def make_record(i: int, source: str = "hotpotqa", context: str | None = None) -> Record:
    item = SourceItem(
        source=source,
        source_id=f"s{i:05d}",
        context=context or f"[00:01] A: Person {i} was born in {1900 + i % 100}.",
        question=f"When was person {i} born?",
        answer=str(1900 + i % 100) if source == "hotpotqa" else None,
    )
    truth = {"person": f"Person {i}", "born": 1900 + i % 100, "answer": str(1900 + i % 100)}
    return Record.build(item, item.question or "", SCHEMA, truth)


def seed_validated(store: Store, n: int, source: str = "hotpotqa") -> list[Record]:
    """n records moved through `authored` to `validated`, as the validation stage leaves them."""
    records = [make_record(i, source) for i in range(n)]
    store.upsert_records(records, RecordState.AUTHORED, "import")
    report = ValidationReport(
        passed=True,
        grounding=GroundingInfo(leaves=3, grounded=3, fraction=1.0),
        complexity=ComplexityInfo(level="hard", properties=3, top_level_properties=3, required=3, leaves=3, depth=2),
    )
    store.apply(
        [
            StateChange(r.record_id, RecordState.VALIDATED, "validation", validation=report.model_dump(mode="json"))
            for r in records
        ]
    )
    return records


@pytest.fixture
def seed():
    return seed_validated


REPO_ROOT = Path(__file__).resolve().parents[2]
