"""Gemini batch jobs for drafts and judgements, tracked in the store's `batch_jobs` table.

One run: `poll()` asks about every unfinished job and writes the answers of finished ones into
the cache; the stage then runs with a client in `defer_misses` mode (hits are answered, misses
are collected); `submit()` sends the collected misses as new jobs (inline requests, or an
uploaded JSONL file when large). A later run polls again and the stage finds the answers cached.

Never the same job twice: before a job is created its intent is stored (`pending:<display name>`,
the display name being a hash of its keys); a run that dies between creating the job and storing
its name finds it on the next run by that display name instead of submitting it again.

`batch_jobs.keys` holds `{"model": ..., "keys": {cache key: prompt version}}`.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from core.llm.client import LLMClient
from core.llm.gemini_backend import TERMINAL_STATES, BatchState, GeminiBackend
from core.llm.types import LLMError, LLMRequest, RawReply
from core.models import canonical_json, utcnow
from core.store import Store
from core.transaction import transaction

PENDING_PREFIX = "pending:"
SUBMITTING = "SUBMITTING"


def display_name_for(stage: str, source: str, keys: Sequence[str]) -> str:
    digest = hashlib.sha256(canonical_json(sorted(keys)).encode("utf-8")).hexdigest()[:20]
    return f"sob-{stage}-{source}-{digest}"


class BatchRunner:
    def __init__(
        self,
        store: Store,
        client: LLMClient,
        *,
        stage: str,
        source: str,
        inline_max_bytes: int = 8_000_000,
        max_requests_per_job: int = 5_000,
        max_attempts: int = 3,
        echo: Callable[[str], None] | None = None,
        after_create: Callable[[BatchState], None] | None = None,  # a hook for tests
    ) -> None:
        if not isinstance(client.backend, GeminiBackend):
            raise ValueError("batch jobs need the Gemini backend (--judge gemini / --draft with Gemini)")
        if getattr(client.backend.client, "vertexai", False):
            raise ValueError("batch jobs here use the Gemini Developer API (inline or uploaded files), not Vertex AI")
        if client.cache is None:
            raise ValueError("batch jobs need the cache: answers arrive in it")
        if not client.defer_misses:
            raise ValueError("a client for batch jobs must defer its misses (defer_misses=True)")
        self.store = store
        self.con = store.con.cursor()
        self.client = client
        self.backend: GeminiBackend = client.backend
        self.stage = stage
        self.source = source
        self.inline_max_bytes = inline_max_bytes
        self.max_requests_per_job = max_requests_per_job
        self.max_attempts = max_attempts
        self.echo = echo or (lambda _line: None)
        self._after_create = after_create

    # -- the table ---------------------------------------------------------------------------------
    def jobs(self, unfinished_only: bool = False) -> list[dict[str, Any]]:
        sql = "SELECT job_name, state, keys, submitted_at, finished_at FROM batch_jobs WHERE stage = ? AND source = ?"
        if unfinished_only:
            sql += " AND finished_at IS NULL"
        rows = self.con.execute(sql + " ORDER BY submitted_at", [self.stage, self.source]).fetchall()
        return [
            {"job_name": n, "state": s, "keys": json.loads(k), "submitted_at": sub, "finished_at": fin}
            for n, s, k, sub, fin in rows
        ]

    def _insert(self, job_name: str, state: str, keys: dict[str, Any]) -> None:
        self.con.execute(
            "INSERT INTO batch_jobs (job_name, stage, source, keys, state, submitted_at, finished_at) "
            "VALUES (?, ?, ?, ?, ?, ?, NULL)",
            [job_name, self.stage, self.source, json.dumps(keys), state, utcnow()],
        )

    def _adopt(self, pending_name: str, job: BatchState, keys: dict[str, Any]) -> None:
        """Replace an intent row by the real job, in one transaction."""
        with transaction(self.con):
            self.con.execute("DELETE FROM batch_jobs WHERE job_name = ?", [pending_name])
            self._insert(job.name, job.state, keys)

    def _set_state(self, job_name: str, state: str, finished: bool) -> None:
        self.con.execute(
            "UPDATE batch_jobs SET state = ?, finished_at = ? WHERE job_name = ?",
            [state, utcnow() if finished else None, job_name],
        )

    def _log(self, kind: str, detail: dict[str, Any]) -> None:
        self.store.add_event(self.source, self.stage, kind, detail)

    # -- polling -------------------------------------------------------------------------------------
    def poll(self) -> Counter[str]:
        """Ask about every unfinished job; cache the answers of finished ones. Returns counts."""
        counts: Counter[str] = Counter()
        for job in self.jobs(unfinished_only=True):
            name, keys = job["job_name"], job["keys"]
            try:
                if name.startswith(PENDING_PREFIX):
                    self._recover(name, keys, counts)
                    continue
                state = self.backend.get_batch(name)
            except LLMError as exc:
                self.echo(f"batch {name}: could not poll ({exc}); will poll again on the next run")
                counts["batch_poll_errors"] += 1
                continue
            finished = state.state in TERMINAL_STATES
            if state.results is not None:
                self._ingest(name, keys, state.results, counts)
            self._set_state(name, state.state, finished)
            counts["batch_jobs_finished" if finished else "batch_jobs_running"] += 1
        self._note_failing_keys()
        return counts

    def _recover(self, pending_name: str, keys: dict[str, Any], counts: Counter[str]) -> None:
        display_name = pending_name.removeprefix(PENDING_PREFIX)
        found = self.backend.find_batch(display_name)
        if found is None:
            # It never reached the server: forget the intent; the keys are asked again this run.
            self.con.execute("DELETE FROM batch_jobs WHERE job_name = ?", [pending_name])
            counts["batch_intents_dropped"] += 1
        else:
            self._adopt(pending_name, found, keys)
            counts["batch_jobs_recovered"] += 1

    def _ingest(
        self, job_name: str, keys: dict[str, Any], results: dict[str, RawReply | str], counts: Counter[str]
    ) -> None:
        cache = self.client.cache
        assert cache is not None
        model = keys.get("model", self.client.model)
        versions: dict[str, str] = keys.get("keys", {})
        for key, reply in results.items():
            if key not in versions:
                continue
            if isinstance(reply, str) or not reply.text:
                why = (
                    reply
                    if isinstance(reply, str)
                    else f"empty reply (finish {reply.finish_reason}, block {reply.block_reason})"
                )
                self._log("batch_item_failed", {"job": job_name, "key": key, "error": why})
                counts["batch_items_failed"] += 1
                continue
            cache.put(
                key,
                backend=self.backend.name,
                model=model,
                prompt_version=versions[key],
                text=reply.text,
                finish_reason=reply.finish_reason,
                usage=reply.usage,
                via="batch",
                extra={"job": job_name, "model_version": reply.model_version},
            )
            self.client.tally.add_call(self.stage, self.backend.name, model, reply.usage, batch=True)
            counts["batch_answers"] += 1
        missing = set(versions) - set(results)
        if missing:
            self._log("batch_items_missing", {"job": job_name, "missing": len(missing)})
            counts["batch_items_failed"] += len(missing)

    def _note_failing_keys(self) -> None:
        """Keys sent in `max_attempts` finished jobs without a usable answer: stop deferring them."""
        tries: Counter[str] = Counter()
        for job in self.jobs():
            if job["finished_at"] is not None:
                tries.update(job["keys"].get("keys", {}).keys())
        for key, n in tries.items():
            if n >= self.max_attempts:
                self.client.gave_up[key] = f"no usable answer from {n} batch jobs; run without --batch to ask online"

    # -- submitting ------------------------------------------------------------------------------------
    def pending_keys(self) -> set[str]:
        keys: set[str] = set()
        for job in self.jobs(unfinished_only=True):
            keys.update(job["keys"].get("keys", {}).keys())
        return keys

    def submit(self) -> list[str]:
        """Submit the client's deferred requests not already in an unfinished job; returns job names."""
        busy = self.pending_keys()
        todo = {key: req for key, req in self.client.deferred.items() if key not in busy}
        names: list[str] = []
        for group in self._groups(list(todo.items())):
            name = self._submit_one(group)
            if name is not None:
                names.append(name)
        self.client.deferred.clear()
        return names

    def _groups(self, requests: list[tuple[str, LLMRequest]]) -> list[list[tuple[str, LLMRequest]]]:
        requests.sort(key=lambda kv: kv[0])  # stable groups, so a re-run builds the same jobs
        return [requests[i : i + self.max_requests_per_job] for i in range(0, len(requests), self.max_requests_per_job)]

    def _submit_one(self, group: list[tuple[str, LLMRequest]]) -> str | None:
        keys = [key for key, _ in group]
        display_name = display_name_for(self.stage, self.source, keys)
        meta = {"model": self.client.model, "keys": {key: req.prompt_version for key, req in group}}
        pending_name = PENDING_PREFIX + display_name
        existing = {job["job_name"] for job in self.jobs()}
        if pending_name in existing:
            raise RuntimeError(f"batch intent {pending_name} is still unresolved; poll() first")
        size = sum(len(req.system) + len(req.user) for _, req in group)
        use_file = size > self.inline_max_bytes
        self._insert(pending_name, SUBMITTING, meta)
        try:
            job = self.backend.create_batch(self.client.model, group, display_name, use_file=use_file)
        except LLMError as exc:
            # The intent stays: the next poll() looks the job up by name, or forgets the intent.
            self.echo(f"batch {display_name}: submission failed ({exc}); the next run checks and retries")
            return None
        if self._after_create is not None:
            self._after_create(job)
        self._adopt(pending_name, job, meta)
        self.echo(
            f"batch {job.name}: {len(group)} {self.stage} request(s) submitted ({'file' if use_file else 'inline'})"
        )
        return job.name

    def wait(
        self, interval_s: float = 30.0, timeout_s: float | None = None, sleep: Callable[[float], None] = time.sleep
    ) -> bool:
        """Poll until every job is finished (True) or the timeout passes (False)."""
        started = time.monotonic()
        while True:
            self.poll()
            if not self.jobs(unfinished_only=True):
                return True
            if timeout_s is not None and time.monotonic() - started > timeout_s:
                return False
            sleep(interval_s)
