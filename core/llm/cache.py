"""The LLM response cache, kept in the curation store's `llm_cache` table.

key = SHA-256 of (backend, model, prompt version, canonical request). A hit makes no call. A prompt
or rubric change bumps its version (and usually changes the prompt text too), so stale answers
are never reused. Online calls write answers that parsed, and replies that stayed malformed after
the repair attempts as *failures* (`failed`, with the raw reply and the error): a rerun does not
pay for them again unless asked (`--retry-failed`), and a later good answer replaces them. Batch
results are written as they arrive and checked when read. Configured secrets are masked in
everything written here.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import dataclass
from typing import Any

import duckdb
import pyarrow as pa

from core.llm.types import LLMRequest, Usage
from core.models import canonical_json, utcnow
from core.redaction import redact
from core.transaction import transaction


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
    failed: bool = False  # a malformed reply kept as a failure (text is the raw reply)
    error: str | None = None


_ROW_SCHEMA = pa.schema(
    [
        ("cache_key", pa.string()),
        ("backend", pa.string()),
        ("model", pa.string()),
        ("prompt_version", pa.string()),
        ("response", pa.string()),
        ("usage", pa.string()),
        ("created_at", pa.timestamp("us", tz="UTC")),
    ]
)

_COLUMNS = ", ".join(_ROW_SCHEMA.names)


class LLMCache:
    """Thread-safe access to `llm_cache` through its own cursor on the store's connection.

    Writes are buffered and committed together (every `flush_every` answers or `flush_interval_s`
    seconds, and on `flush()`): one DuckDB commit per answer costs more than the call rate allows.
    Reads see buffered answers. A run killed before a flush loses at most that buffer, and those
    requests are simply asked again; an answer that was committed is never asked again.

    `preload(keys)` reads many keys in one query, so the calls that follow need no query at all.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, flush_every: int = 64, flush_interval_s: float = 1.0) -> None:
        self._con = con.cursor()
        self._lock = threading.Lock()  # guards the in-memory maps
        self._db_lock = threading.Lock()  # one DuckDB statement at a time on this cursor
        self._pending: dict[str, dict[str, Any]] = {}  # written, not yet committed
        self._flushing: dict[str, dict[str, Any]] = {}  # being committed right now
        self._loaded: dict[str, tuple[Any, ...]] = {}  # preloaded rows
        self._absent: set[str] = set()  # preloaded keys known not to be in the table
        self._flush_every = max(flush_every, 1)
        self._flush_interval_s = flush_interval_s
        self._last_flush = time.monotonic()

    @staticmethod
    def _as_tuple(row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(row[c] for c in ("backend", "model", "prompt_version", "response", "usage"))

    def get(self, key: str) -> CachedAnswer | None:
        with self._lock:
            row = self._pending.get(key) or self._flushing.get(key)
            found: tuple[Any, ...] | None = self._as_tuple(row) if row else self._loaded.get(key)
            known_absent = found is None and key in self._absent
        if found is None and not known_absent:
            with self._db_lock:
                found = self._con.execute(
                    "SELECT backend, model, prompt_version, response, usage FROM llm_cache WHERE cache_key = ?", [key]
                ).fetchone()
        if found is None:
            return None
        backend, model, prompt_version, response, usage = found
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
            failed=bool(response.get("failed")),
            error=response.get("error"),
        )

    def preload(self, keys: list[str]) -> int:
        """Read these keys in one query; returns how many are cached."""
        if not keys:
            return 0
        with self._db_lock:
            rows = self._con.execute(
                "SELECT cache_key, backend, model, prompt_version, response, usage FROM llm_cache "
                "WHERE cache_key IN (SELECT unnest(?))",
                [keys],
            ).fetchall()
        with self._lock:
            for key, *rest in rows:
                self._loaded[key] = tuple(rest)
            found = {row[0] for row in rows}
            self._absent.update(k for k in keys if k not in found)
        return len(rows)

    def forget_preloaded(self) -> None:
        with self._lock:
            self._loaded.clear()
            self._absent.clear()

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
        failed_with: str | None = None,
    ) -> None:
        """Keep an answer, or with `failed_with` (the error) a malformed reply as a failure."""
        response = {"text": redact(text), "finish_reason": finish_reason, "via": via} | (extra or {})
        if failed_with is not None:
            response |= {"failed": True, "error": redact(failed_with)}
        row = {
            "cache_key": key,
            "backend": backend,
            "model": model,
            "prompt_version": prompt_version,
            "response": json.dumps(response, ensure_ascii=False),
            "usage": usage.model_dump_json(),
            "created_at": utcnow(),
        }
        with self._lock:
            self._pending[key] = row
            due = (
                len(self._pending) >= self._flush_every or time.monotonic() - self._last_flush >= self._flush_interval_s
            )
        if due:
            self.flush()

    def flush(self) -> None:
        """Commit buffered answers (other threads keep reading and writing meanwhile)."""
        with self._db_lock:
            with self._lock:
                self._last_flush = time.monotonic()
                if not self._pending:
                    return
                self._flushing, self._pending = self._pending, {}
                rows = list(self._flushing.values())
            table = pa.Table.from_pylist(rows, schema=_ROW_SCHEMA)
            try:
                with transaction(self._con):
                    self._con.register("_llm_rows", table)
                    self._con.execute(
                        f"INSERT INTO llm_cache ({_COLUMNS}) SELECT {_COLUMNS} FROM _llm_rows "
                        # A good answer asked for with --retry-failed replaces the failure kept before it.
                        "ON CONFLICT (cache_key) DO UPDATE SET response = excluded.response, usage = excluded.usage, "
                        "prompt_version = excluded.prompt_version, created_at = excluded.created_at"
                    )
                    self._con.unregister("_llm_rows")
            except Exception:
                with self._lock:  # keep them for the next flush
                    self._pending = self._flushing | self._pending
                    self._flushing = {}
                raise
            with self._lock:
                for key, row in self._flushing.items():
                    self._absent.discard(key)
                    self._loaded[key] = self._as_tuple(row)
                self._flushing = {}

    def delete(self, key: str) -> None:
        """Drop an answer that turned out not to parse, so it is asked again."""
        self.flush()
        with self._lock:
            self._loaded.pop(key, None)
            self._absent.add(key)
        with self._db_lock:
            self._con.execute("DELETE FROM llm_cache WHERE cache_key = ?", [key])

    def contains(self, keys: list[str]) -> set[str]:
        if not keys:
            return set()
        self.flush()
        with self._db_lock:
            rows = self._con.execute(
                "SELECT cache_key FROM llm_cache WHERE cache_key IN (SELECT unnest(?))", [keys]
            ).fetchall()
        return {row[0] for row in rows}

    def count(self) -> int:
        self.flush()
        with self._db_lock:
            return self._con.execute("SELECT count(*) FROM llm_cache").fetchone()[0]

    def close(self) -> None:
        self.flush()
        self._con.close()
