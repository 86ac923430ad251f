"""The LLM response cache, kept in the curation store's `llm_cache` table.

key = SHA-256 of (backend, model, prompt version, canonical request). A hit makes no call. A prompt
or rubric change bumps its version (and usually changes the prompt text too), so stale answers
are never reused. Only answers that parsed are written by online calls; batch results are written
as they arrive and checked when read.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from typing import Any

import duckdb

from core.llm.types import LLMRequest, Usage
from core.models import canonical_json, utcnow


def cache_key(backend: str, model: str, request: LLMRequest) -> str:
    payload = canonical_json([backend, model, request.prompt_version, request.canonical()])
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedAnswer:
    key: str
    backend: str
    model: str
    prompt_version: str
    text: str
    finish_reason: str | None
    usage: Usage
    via: str  # "online" or "batch"


class LLMCache:
    """Thread-safe access to `llm_cache` through its own cursor on the store's connection."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con.cursor()
        self._lock = threading.Lock()

    def get(self, key: str) -> CachedAnswer | None:
        with self._lock:
            row = self._con.execute(
                "SELECT backend, model, prompt_version, response, usage FROM llm_cache WHERE cache_key = ?", [key]
            ).fetchone()
        if row is None:
            return None
        backend, model, prompt_version, response, usage = row
        response = json.loads(response)
        return CachedAnswer(
            key=key,
            backend=backend,
            model=model,
            prompt_version=prompt_version,
            text=response.get("text") or "",
            finish_reason=response.get("finish_reason"),
            usage=Usage.model_validate(json.loads(usage)) if usage else Usage(),
            via=response.get("via", "online"),
        )

    def put(
        self,
        key: str,
        *,
        backend: str,
        model: str,
        prompt_version: str,
        text: str,
        finish_reason: str | None,
        usage: Usage,
        via: str = "online",
        extra: dict[str, Any] | None = None,
    ) -> None:
        response = {"text": text, "finish_reason": finish_reason, "via": via} | (extra or {})
        with self._lock:
            self._con.execute(
                "INSERT INTO llm_cache (cache_key, backend, model, prompt_version, response, usage, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (cache_key) DO NOTHING",
                [
                    key,
                    backend,
                    model,
                    prompt_version,
                    json.dumps(response, ensure_ascii=False),
                    usage.model_dump_json(),
                    utcnow(),
                ],
            )

    def delete(self, key: str) -> None:
        """Drop an answer that turned out not to parse, so it is asked again."""
        with self._lock:
            self._con.execute("DELETE FROM llm_cache WHERE cache_key = ?", [key])

    def contains(self, keys: list[str]) -> set[str]:
        if not keys:
            return set()
        with self._lock:
            rows = self._con.execute(
                "SELECT cache_key FROM llm_cache WHERE cache_key IN (SELECT unnest(?))", [keys]
            ).fetchall()
        return {row[0] for row in rows}

    def count(self) -> int:
        with self._lock:
            return self._con.execute("SELECT count(*) FROM llm_cache").fetchone()[0]

    def close(self) -> None:
        self._con.close()
