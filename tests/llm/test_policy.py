"""Retry policy, Retry-After parsing, the RPM limiter, the cost estimate and the usage table."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

from core.llm.limits import RateLimiter
from core.llm.retry import RetryPolicy, parse_retry_after, retry_delay_from_details
from core.llm.types import Usage, is_transient_status
from core.llm.usage import UsageTally, estimate_cost, usage_totals
from core.store import Store


def test_backoff_grows_with_jitter_and_caps() -> None:
    policy = RetryPolicy(initial_delay=1, max_delay=10, multiplier=2, jitter=0.5, rng=random.Random(0))
    delays = [policy.delay(n) for n in range(1, 7)]
    for n, delay in enumerate(delays, start=1):
        base = min(10, 2 ** (n - 1))
        assert base * 0.5 <= delay <= base
    assert policy.delay(3, retry_after=7.0) == 7.0
    assert RetryPolicy(max_retry_after=30).delay(1, retry_after=3600) == 30


def test_retry_after_forms() -> None:
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after("0.5") == 0.5
    now = datetime(2025, 1, 1, tzinfo=UTC)
    assert parse_retry_after(format_datetime(now + timedelta(seconds=30), usegmt=True), now=now) == 30
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None
    details = {"error": {"details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "13s"}]}}
    assert retry_delay_from_details(details) == 13.0


def test_transient_statuses() -> None:
    assert all(is_transient_status(s) for s in (408, 429, 500, 502, 503, 504, 599))
    assert not any(is_transient_status(s) for s in (400, 401, 403, 404, None))


def test_rate_limiter_spaces_requests() -> None:
    now = [0.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    limiter = RateLimiter(rpm=120, burst=1, clock=lambda: now[0], sleep=sleep)
    for _ in range(5):
        limiter.acquire()
    assert now[0] == 2.0  # 2 per second after the first
    assert RateLimiter(None).acquire() == 0.0


def test_cost_estimate_and_usage_rows(tmp_path) -> None:
    usage = Usage(input_tokens=100_000, output_tokens=100_000)
    assert estimate_cost("gemini-2.5-pro", usage) == 0.125 + 1.0
    assert estimate_cost("gemini-2.5-pro", usage, batch=True) == (0.125 + 1.0) / 2
    long = Usage(input_tokens=300_000, output_tokens=0)
    assert estimate_cost("gemini-2.5-pro", long) == 300_000 * 2.5 / 1e6
    assert estimate_cost("gemini-2.5-flash-preview-05-20", usage) == 0.03 + 0.25
    assert estimate_cost("my-local-model", usage) == 0.0
    tally = UsageTally(run_id="r1")
    tally.add_call("judge", "gemini", "gemini-2.5-pro", usage)
    tally.add_hit("judge", "gemini", "gemini-2.5-pro")
    assert "1 call(s), 1 cache hit(s)" in tally.report()[0] and "estimate" in tally.report()[0]
    with Store.open(tmp_path / "w") as store:
        assert tally.save(store.con) == 1
        assert usage_totals(store.con) == [("judge", "gemini", "gemini-2.5-pro", 1, 1, 100_000, 100_000, 1.125)]
