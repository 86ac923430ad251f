"""The one narrow LLM client: system prompt + user prompt + response model in, parsed object out.

`complete(request)` looks in the cache first (a hit makes no call), then sends the request with the
concurrency limit, the requests-per-minute limit and the retry policy (408/429/5xx and timeouts,
honouring Retry-After). A reply that does not parse is asked again (`parse_retries`) with the
problem named; the answer is cached under the original request's key, and so is a reply that
stays malformed (as a failure: a later call returns it without asking again, unless
`retry_failed`). Nothing here raises for a provider failure: the result says `call_error` or
`parse_error`, names the failure kind and keeps the raw text (core/llm/failures.py). A refusal
(bad key, unknown model) or `max_consecutive_failures` server failures in a row stop the client:
`stop` is set, and no request is sent after it.

In `defer_misses` mode (batch jobs) a miss makes no call either: the request is collected in
`deferred` for a batch job and the result says `deferred`.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from core.llm.backend import Backend, parse_reply
from core.llm.cache import LLMCache, cache_key
from core.llm.failures import DEFAULT_MAX_CONSECUTIVE_FAILURES, CircuitBreaker, FailureTally, LLMStopped, failure_kind
from core.llm.limits import RateLimiter
from core.llm.retry import RetryPolicy
from core.llm.types import LLMError, LLMRequest, LLMResult, RawReply, Usage
from core.llm.usage import UsageTally

T = TypeVar("T")
R = TypeVar("R")

REPAIR_NOTE = (
    "\n\nYour previous reply could not be used: {error}\n"
    "Reply again with exactly one JSON object that matches the response schema, and nothing else."
)


class LLMClient:
    def __init__(
        self,
        backend: Backend,
        model: str,
        *,
        cache: LLMCache | None = None,
        tally: UsageTally | None = None,
        concurrency: int = 8,
        slots: int | None = None,
        rpm: float | None = None,
        retry: RetryPolicy | None = None,
        parse_retries: int = 2,
        defer_misses: bool = False,
        sleep: Callable[[float], None] | None = None,
        max_consecutive_failures: int | None = DEFAULT_MAX_CONSECUTIVE_FAILURES,
        retry_failed: bool = False,
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.backend = backend
        self.model = model
        self.cache = cache
        self.tally = tally or UsageTally()
        self.concurrency = concurrency
        self.limiter = RateLimiter(rpm)
        self.retry = retry or RetryPolicy()
        self.parse_retries = parse_retries
        self.defer_misses = defer_misses
        self.deferred: dict[str, LLMRequest] = {}
        # Requests whose batch answers kept failing: key -> why (answered with call_error, not deferred).
        self.gave_up: dict[str, str] = {}
        self.retry_failed = retry_failed  # ask again for replies cached as malformed
        self.breaker = CircuitBreaker(max_consecutive_failures)
        self.failures = FailureTally()
        # A backoff sleep ends early when the client stops (a given `sleep` is for tests).
        self._sleep = sleep or (lambda seconds: self.breaker.stopped.wait(seconds))
        # Calls handed to the backend at once: `concurrency`, unless the backend caps its calls in flight
        # itself and can hold more ready (core/llm/process_backend.py).
        self.slots = max(concurrency, slots or concurrency)
        self._slots = threading.BoundedSemaphore(self.slots)
        self._probe_lock = threading.Lock()
        self._probed = threading.Event()
        self._lock = threading.Lock()
        self._local = threading.local()

    @property
    def name(self) -> str:
        return f"{self.backend.name}:{self.model}"

    def key(self, request: LLMRequest) -> str:
        return cache_key(self.backend.name, self.model, request)

    def prefetch(self, requests: Iterable[LLMRequest]) -> int:
        """Read the cached answers of many requests in one query (so their calls need none)."""
        if self.cache is None:
            return 0
        return self.cache.preload([self.key(request) for request in requests])

    @property
    def stop(self) -> LLMStopped | None:
        """Why the client stopped sending (a refusal or the circuit breaker), or None."""
        return self.breaker.stop

    # -- one request ------------------------------------------------------------------------------
    def complete(self, request: LLMRequest) -> LLMResult:
        result = self._complete(request)
        if result.failure is not None:
            self.failures.add(result.failure, result.error)
        return result

    def _complete(self, request: LLMRequest) -> LLMResult:
        key = self.key(request)
        base = {"backend": self.backend.name, "model": self.model, "cache_key": key}
        stale_error: str | None = None
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None and hit.failed:
                if not self.retry_failed:
                    return LLMResult(
                        status="parse_error",
                        raw_text=hit.text,
                        error=f"{hit.error} (cached failure: --retry-failed asks again)",
                        finish_reason=hit.finish_reason,
                        cached=True,
                        failure="malformed",
                        **base,
                    )
            elif hit is not None:
                raw = RawReply(text=hit.text, finish_reason=hit.finish_reason, usage=hit.usage)
                parsed, error = parse_reply(raw, request.response_model)
                if parsed is not None:
                    self.tally.add_hit(request.stage, self.backend.name, self.model)
                    return LLMResult(
                        status="ok",
                        parsed=parsed,
                        raw_text=hit.text,
                        finish_reason=hit.finish_reason,
                        usage=hit.usage,
                        cached=True,
                        **base,
                    )
                # A batch answer that does not parse: forget it, so it is asked again.
                self.cache.delete(key)
                stale_error = error
        if self.defer_misses:
            if key in self.gave_up:
                return LLMResult(status="call_error", error=self.gave_up[key], failure="transient", **base)
            with self._lock:
                self.deferred[key] = request
            return LLMResult(status="deferred", error=stale_error, **base)
        return self._complete_online(request, key, base)

    def _complete_online(self, request: LLMRequest, key: str, base: dict[str, Any]) -> LLMResult:
        total = Usage()
        attempts = 0
        latency = 0.0
        current = request
        raw: RawReply | None = None
        error: str | None = None
        for _ in range(self.parse_retries + 1):
            raw, made, took, failure = self._send(current)
            attempts += made
            latency += took
            if raw is None:
                assert failure is not None
                return LLMResult(
                    status="call_error",
                    error=str(failure),
                    usage=total,
                    latency_s=latency,
                    attempts=attempts,
                    failure=failure_kind(failure),
                    **base,
                )
            total = _add(total, raw.usage)
            parsed, error = parse_reply(raw, request.response_model)
            if parsed is not None:
                if self.cache is not None:
                    self.cache.put(
                        key,
                        backend=self.backend.name,
                        model=self.model,
                        prompt_version=request.prompt_version,
                        text=raw.text or "",
                        finish_reason=raw.finish_reason,
                        usage=raw.usage,
                        extra={"model_version": raw.model_version},
                    )
                    if not getattr(self._local, "bulk", False):
                        self.cache.flush()  # a single call is committed at once; bulk calls in groups
                return LLMResult(
                    status="ok",
                    parsed=parsed,
                    raw_text=raw.text,
                    finish_reason=raw.finish_reason,
                    usage=total,
                    latency_s=latency,
                    attempts=attempts,
                    **base,
                )
            current = request.model_copy(update={"user": request.user + REPAIR_NOTE.format(error=error)})
        if self.cache is not None and raw is not None:
            # Kept as a failure, raw reply and all: a rerun does not pay for it again (--retry-failed does).
            self.cache.put(
                key,
                backend=self.backend.name,
                model=self.model,
                prompt_version=request.prompt_version,
                text=raw.text or "",
                finish_reason=raw.finish_reason,
                usage=total,
                extra={"model_version": raw.model_version, "attempts": attempts},
                failed_with=error or "malformed reply",
            )
            if not getattr(self._local, "bulk", False):
                self.cache.flush()
        return LLMResult(
            status="parse_error",
            raw_text=raw.text if raw else None,
            error=error,
            finish_reason=raw.finish_reason if raw else None,
            usage=total,
            latency_s=latency,
            attempts=attempts,
            failure="malformed",
            **base,
        )

    def _send(self, request: LLMRequest) -> tuple[RawReply | None, int, float, LLMError | None]:
        """One request with retries: (reply or None, HTTP requests made, seconds in flight, last error)."""
        spent = 0.0
        attempt = 0
        failure: LLMError | None = None
        while True:
            if self.breaker.stop is not None:  # a request that already failed keeps its own failure
                return None, attempt, spent, failure or self.breaker.not_sent()
            attempt += 1
            self.limiter.acquire()
            first = self._first_call()
            try:
                with self._slots:
                    if self.breaker.stop is not None:  # it may have stopped while this waited for a slot
                        return None, attempt - 1, spent, failure or self.breaker.not_sent()
                    started = time.perf_counter()
                    try:
                        reply = self.backend.generate(self.model, request)
                    except LLMError as exc:
                        spent += time.perf_counter() - started
                        failure = exc
                    else:
                        spent += time.perf_counter() - started
                        self.breaker.answered()
                        self.tally.add_call(request.stage, self.backend.name, self.model, reply.usage)
                        return reply, attempt, spent, None
            finally:
                if first:
                    self._probed.set()
                    self._probe_lock.release()
            self.tally.add_failure(request.stage, self.backend.name, self.model)
            self.breaker.failed(failure, self.name)
            if not failure.transient or attempt >= self.retry.max_attempts:
                return None, attempt, spent, failure
            if failure.retry_after is not None and failure.retry_after > self.retry.max_retry_after:
                self.breaker.too_long_to_wait(failure, self.retry.max_retry_after, self.name)
                return None, attempt, spent, failure
            self._sleep(self.retry.delay(attempt, failure.retry_after))

    def _first_call(self) -> bool:
        """True for the thread that sends the client's first request: it goes alone (the others wait
        for its answer), so a refused key or a dead server costs one request, not one per slot."""
        if self._probed.is_set():
            return False
        self._probe_lock.acquire()
        if self._probed.is_set():
            self._probe_lock.release()
            return False
        return True

    # -- many requests ----------------------------------------------------------------------------
    def complete_many(self, requests: Iterable[LLMRequest]) -> list[LLMResult]:
        """Results in the order of the requests."""
        items = list(requests)
        out: list[LLMResult | None] = [None] * len(items)
        for index, outcome in self.map(self.complete, items):
            if isinstance(outcome, BaseException):
                raise outcome
            out[index] = outcome
        return [result for result in out if result is not None]

    def map(
        self, fn: Callable[[T], R], items: Iterable[T], workers: int | None = None
    ) -> Iterator[tuple[int, R | BaseException]]:
        """Run `fn` over items on a thread pool, yielding (index, result or exception) as each finishes.

        The pool has twice the concurrency limit by default, so requests sleeping in a backoff do
        not hold back the others; the semaphore still caps the calls handed to the backend at `slots`.
        At most a few items per worker are outstanding, so long inputs are read lazily.
        """
        workers = workers or 2 * self.slots
        window = 4 * workers
        iterator = iter(enumerate(items))
        # Finished futures arrive on a queue: `concurrent.futures.wait` over the whole window costs a lock per
        # pending future on every wake, which at hundreds of calls a second is CPU the calls need.
        finished: queue.SimpleQueue[Future[R]] = queue.SimpleQueue()
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="llm") as pool:
            pending: dict[Future[R], int] = {}

            def top_up() -> None:
                while len(pending) < window:
                    try:
                        index, item = next(iterator)
                    except StopIteration:
                        return
                    future = pool.submit(self._bulk, fn, item)
                    pending[future] = index
                    future.add_done_callback(finished.put)

            top_up()
            try:
                while pending:
                    future = finished.get()
                    index = pending.pop(future)
                    exc = future.exception()
                    yield index, (future.result() if exc is None else exc)  # type: ignore[misc]
                    top_up()
            finally:
                for future in pending:
                    future.cancel()
                self.flush()

    def _bulk(self, fn: Callable[[T], R], item: T) -> R:
        self._local.bulk = True
        return fn(item)

    def flush(self) -> None:
        """Commit cached answers still buffered (the cache batches its writes)."""
        if self.cache is not None:
            self.cache.flush()


def _add(a: Usage, b: Usage) -> Usage:
    return Usage(
        input_tokens=a.input_tokens + b.input_tokens,
        output_tokens=a.output_tokens + b.output_tokens,
        thinking_tokens=a.thinking_tokens + b.thinking_tokens,
        cached_input_tokens=a.cached_input_tokens + b.cached_input_tokens,
    )
