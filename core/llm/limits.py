"""Limits on how hard we press a provider: a requests-per-minute token bucket."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class RateLimiter:
    """A token bucket refilled at `rpm / 60` tokens per second, holding at most `burst` tokens.

    `acquire()` blocks until a token is free. `rpm=None` (or 0) means no limit. Thread-safe.
    """

    def __init__(
        self,
        rpm: float | None,
        burst: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.rpm = rpm or None
        self.rate = (rpm / 60.0) if rpm else 0.0
        self.capacity = float(burst if burst is not None else max(1, round(self.rate)))
        self._tokens = self.capacity
        self._clock = clock
        self._sleep = sleep
        self._last = clock()
        self._lock = threading.Lock()

    def acquire(self) -> float:
        """Take one token; returns the seconds spent waiting."""
        if not self.rpm:
            return 0.0
        waited = 0.0
        while True:
            with self._lock:
                now = self._clock()
                self._tokens = min(self.capacity, self._tokens + (now - self._last) * self.rate)
                self._last = now
                if self._tokens >= 1.0:
                    self._tokens -= 1.0
                    return waited
                wait = (1.0 - self._tokens) / self.rate
            self._sleep(wait)
            waited += wait
