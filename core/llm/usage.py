"""Token and cost tally per stage, printed at the end of a run and kept in the store (`llm_usage`).

Costs are ESTIMATES from a small list-price table (USD per million tokens, paid tier, mid-2025);
the provider's invoice is the truth. Unknown models cost 0 (e.g. a self-hosted vLLM server).
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass

import duckdb

from core.llm.types import Usage
from core.models import utcnow


@dataclass(frozen=True)
class Price:
    input_per_m: float
    output_per_m: float
    # Prompts above `long_prompt_tokens` are billed at the long-context rates (Gemini 2.5 Pro).
    long_prompt_tokens: int | None = None
    long_input_per_m: float | None = None
    long_output_per_m: float | None = None


PRICES: dict[str, Price] = {
    "gemini-2.5-pro": Price(1.25, 10.0, 200_000, 2.50, 15.0),
    "gemini-2.5-flash": Price(0.30, 2.50),
    "gemini-2.5-flash-lite": Price(0.10, 0.40),
    "gpt-4o": Price(2.50, 10.0),
    "gpt-4o-mini": Price(0.15, 0.60),
    "gpt-4.1": Price(2.00, 8.00),
    "gpt-4.1-mini": Price(0.40, 1.60),
}
BATCH_DISCOUNT = 0.5  # Gemini batch jobs are billed at half the online price


def price_for(model: str) -> Price | None:
    name = model.removeprefix("models/")
    if name in PRICES:
        return PRICES[name]
    # versioned names such as "gemini-2.5-flash-preview-05-20" or "gpt-4o-2024-08-06"
    matches = [key for key in PRICES if name.startswith(key + "-")]
    return PRICES[max(matches, key=len)] if matches else None


def estimate_cost(model: str, usage: Usage, batch: bool = False) -> float:
    price = price_for(model)
    if price is None:
        return 0.0
    long = price.long_prompt_tokens is not None and usage.input_tokens > price.long_prompt_tokens
    rate_in = price.long_input_per_m if long and price.long_input_per_m else price.input_per_m
    rate_out = price.long_output_per_m if long and price.long_output_per_m else price.output_per_m
    cost = (usage.input_tokens * rate_in + usage.output_tokens * rate_out) / 1_000_000
    return cost * (BATCH_DISCOUNT if batch else 1.0)


@dataclass
class UsageLine:
    stage: str
    backend: str
    model: str
    calls: int = 0
    cache_hits: int = 0
    failed_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


class UsageTally:
    """Thread-safe counters per (stage, backend, model) for one run."""

    def __init__(self, run_id: str | None = None) -> None:
        self.run_id = run_id or f"{utcnow():%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:8]}"
        self._lines: dict[tuple[str, str, str], UsageLine] = {}
        self._lock = threading.Lock()

    def _line(self, stage: str, backend: str, model: str) -> UsageLine:
        key = (stage, backend, model)
        if key not in self._lines:
            self._lines[key] = UsageLine(stage, backend, model)
        return self._lines[key]

    def add_call(self, stage: str, backend: str, model: str, usage: Usage, batch: bool = False) -> float:
        cost = estimate_cost(model, usage, batch)
        with self._lock:
            line = self._line(stage, backend, model)
            line.calls += 1
            line.input_tokens += usage.input_tokens
            line.output_tokens += usage.output_tokens
            line.cost_usd += cost
        return cost

    def add_failure(self, stage: str, backend: str, model: str) -> None:
        with self._lock:
            self._line(stage, backend, model).failed_calls += 1

    def add_hit(self, stage: str, backend: str, model: str) -> None:
        with self._lock:
            self._line(stage, backend, model).cache_hits += 1

    def lines(self) -> list[UsageLine]:
        with self._lock:
            return [UsageLine(**vars(line)) for line in sorted(self._lines.values(), key=lambda x: x.stage)]

    def total_calls(self) -> int:
        return sum(line.calls for line in self.lines())

    def report(self) -> list[str]:
        out = []
        for line in self.lines():
            out.append(
                f"llm {line.stage:<6} {line.backend}:{line.model}: {line.calls} call(s), "
                f"{line.cache_hits} cache hit(s), {line.failed_calls} failed request(s), "
                f"{line.input_tokens:,} in / {line.output_tokens:,} out tokens, ~${line.cost_usd:.4f} (estimate)"
            )
        return out

    def save(self, con: duckdb.DuckDBPyConnection) -> int:
        """Append this run's lines to `llm_usage`; returns the rows written."""
        rows = [line for line in self.lines() if line.calls or line.cache_hits]
        now = utcnow()
        for line in rows:
            con.execute(
                "INSERT INTO llm_usage (run_id, stage, backend, model, calls, cache_hits, input_tokens, "
                "output_tokens, cost_usd, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    self.run_id,
                    line.stage,
                    line.backend,
                    line.model,
                    line.calls,
                    line.cache_hits,
                    line.input_tokens,
                    line.output_tokens,
                    line.cost_usd,
                    now,
                ],
            )
        return len(rows)


def usage_totals(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, str, int, int, int, int, float]]:
    """(stage, backend, model, calls, cache hits, input tokens, output tokens, cost) over every run."""
    return [
        tuple(row)
        for row in con.execute(
            "SELECT stage, backend, model, sum(calls), sum(cache_hits), sum(input_tokens), sum(output_tokens), "
            "sum(cost_usd) FROM llm_usage GROUP BY ALL ORDER BY ALL"
        ).fetchall()
    ]
