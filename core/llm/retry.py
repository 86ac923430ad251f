"""The retry policy: which failures are retried, and how long to wait before the next attempt."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter; a server's `Retry-After` wins over the computed delay.

    Attempt n (1-based) waits `min(max_delay, initial_delay * multiplier**(n-1))`, scaled by a
    random factor in [1 - jitter, 1]. `max_attempts` counts every HTTP request, the first included.
    """

    max_attempts: int = 6
    initial_delay: float = 1.0
    max_delay: float = 60.0
    multiplier: float = 2.0
    jitter: float = 0.5
    max_retry_after: float = 300.0  # a longer Retry-After stops the stage instead (core/llm/client.py)
    rng: random.Random = field(default_factory=random.Random, compare=False, repr=False)

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        if retry_after is not None and retry_after >= 0:
            return min(retry_after, self.max_retry_after)
        base = min(self.max_delay, self.initial_delay * self.multiplier ** max(attempt - 1, 0))
        return base * (1 - self.jitter * self.rng.random())


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """`Retry-After` as seconds: either delta-seconds or an HTTP date."""
    if value is None:
        return None
    value = value.strip()
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - (now or datetime.now(UTC))).total_seconds(), 0.0)


def retry_delay_from_details(details: Any) -> float | None:
    """Google APIs put a `google.rpc.RetryInfo` (`retryDelay: "13s"`) in the error details."""
    error = details.get("error", details) if isinstance(details, dict) else None
    items = error.get("details") if isinstance(error, dict) else None
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and str(item.get("@type", "")).endswith("google.rpc.RetryInfo"):
            match = _DURATION.match(str(item.get("retryDelay", "")))
            if match:
                return float(match.group(1))
    return None
