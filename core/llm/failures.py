"""LLM failures, named: what kind each is, the circuit breaker, and the stop that ends a stage.

Kinds of a failed result:
- `transient`: 5xx, timeouts, dropped connections, 429s past their retries. A rerun may succeed:
  the record or item stays waiting (judge: `judge_error`; drafts: not stored).
- `refused`: the provider refused the configuration (a bad API key: HTTP 400 naming the key, 401,
  403; an unknown model: 404). The stage stops at the first one: every other call would fail alike.
- `rejected`: any other 4xx for this one request. Kept with its message; not retried on its own.
- `malformed`: the reply did not parse, after the repair attempts. Cached with its raw reply, so a
  rerun does not pay for it again; `--retry-failed` asks again.
- `not_sent`: the stage had stopped before this request was sent.

The circuit breaker counts consecutive failed HTTP attempts that a healthy server would not give
(5xx, timeouts, connection errors; 429s are throttling and neither count nor reset it). Any answer
resets it; after `max_consecutive` it opens: nothing more is sent and the stage stops.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from typing import Literal

from core.llm.types import FailureKind, LLMError
from core.redaction import redact

StopKind = Literal["refused", "breaker", "retry_after"]
DEFAULT_MAX_CONSECUTIVE_FAILURES = 20
REFUSED_STATUS = frozenset({401, 403, 404})
_KEY_PROBLEM = re.compile(r"api[ _-]?key|API_KEY_INVALID|credential|unauthenticated|permission", re.IGNORECASE)


def is_refusal(status: int | None, message: str) -> bool:
    """A status that says the key, the permission or the model is wrong: the same for every request."""
    if status in REFUSED_STATUS:
        return True
    return status == 400 and bool(_KEY_PROBLEM.search(message))


def failure_kind(error: LLMError) -> FailureKind:
    if error.not_sent:
        return "not_sent"
    if error.refused:
        return "refused"
    return "transient" if error.transient else "rejected"


class LLMStopped(RuntimeError):
    """A stage stopped early: the provider refused the configuration, or the circuit breaker opened."""

    def __init__(self, kind: StopKind, message: str) -> None:
        super().__init__(redact(message))
        self.kind = kind
        self.counts: Counter[str] = Counter()  # what the stage had done when it stopped


class CircuitBreaker:
    """Thread-safe; `stop` is set once and stays set for the client's life (one stage of one run)."""

    def __init__(self, max_consecutive: int | None = DEFAULT_MAX_CONSECUTIVE_FAILURES) -> None:
        self.max_consecutive = max_consecutive
        self.consecutive = 0
        self.stop: LLMStopped | None = None
        self.stopped = threading.Event()  # sleeping retries wake up when it is set
        self._lock = threading.Lock()

    def answered(self) -> None:
        with self._lock:
            self.consecutive = 0

    def failed(self, error: LLMError, where: str) -> None:
        """Count one failed HTTP attempt of `where` (e.g. "gemini:gemini-2.5-pro")."""
        with self._lock:
            if self.stop is not None:
                return
            if error.refused:
                self._open(
                    "refused",
                    f"{where} refused the request ({error}); check the API key (GEMINI_API_KEY, GOOGLE_API_KEY or "
                    "OPENAI_API_KEY), its permissions and the model name. Stopped at the first refusal",
                )
                return
            if not error.transient or error.status == 429:
                return
            self.consecutive += 1
            if self.max_consecutive and self.consecutive >= self.max_consecutive:
                self._open(
                    "breaker",
                    f"{where} failed {self.consecutive} times in a row (last: {error}); stopped sending "
                    "(--max-consecutive-failures). Run again when the server is back: nothing is lost",
                )

    def too_long_to_wait(self, error: LLMError, limit: float, where: str) -> None:
        """The server asked for a wait (Retry-After) longer than a run waits: stop rather than sleep."""
        with self._lock:
            if self.stop is None:
                self._open(
                    "retry_after",
                    f"{where} asked to wait {error.retry_after:,.0f} s before the next request (Retry-After; "
                    f"a run waits at most {limit:,.0f} s): stopped sending. Run again later: nothing is lost",
                )

    def _open(self, kind: StopKind, message: str) -> None:
        self.stop = LLMStopped(kind, message)
        self.stopped.set()

    def not_sent(self) -> LLMError:
        return LLMError(f"not sent: {self.stop}", transient=True, not_sent=True)


class FailureTally:
    """Failed results of one client, by kind, with the last message of each kind."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.last: dict[str, str] = {}
        self._lock = threading.Lock()

    def add(self, kind: FailureKind, message: str | None) -> None:
        with self._lock:
            self.counts[kind] += 1
            if message:
                self.last[kind] = redact(message) or ""
