"""A backend whose calls run in worker processes, for providers that answer fast.

A provider SDK spends CPU on every call (google-genai about 5 ms: building the request, HTTP, reading the
reply into its types). Against a server that answers in 100 ms at a concurrency of 20, that is a whole
core, and in one interpreter the threads queue for its one GIL: throughput stalls well below the bound.
Here each worker process holds its own SDK client and runs its share of the calls on its own threads;
only `generate` crosses the pipe. The LLM client around it (cache, retries, rate limits, circuit
breaker, tally) stays in the calling process, so nothing about what is paid or kept changes.

The constructor starts the workers and returns: the caller builds its own backend meanwhile (importing an
SDK takes a second or more, on every core at once). The first call waits until every worker has built its
backend, so the calls are spread over workers that can make them; a worker that cannot build one fails
every call with why.

Workers are started with `spawn` (a fork of a process holding threads and a DuckDB connection is not
safe). The backend factory must pickle (a module-level function, or a `functools.partial` of one); a
key it reads comes from the environment or from its arguments through the pipe, never from argv.
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import pickle
import threading
from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError, ThreadPoolExecutor
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from core.llm.types import LLMError, LLMRequest, RawReply

# What a worker sends back for one call: ("ok", RawReply), ("error", LLMError), or ("crash", why).
Outcome = tuple[str, Any]
READY_TIMEOUT_S = 300.0  # a worker still building its backend after this is taken as failed


def _serve(conn: Connection, factory: Callable[[], Any], threads: int) -> None:
    """A worker process: build the backend once, then answer calls on `threads` threads until the pipe closes."""
    try:
        backend = factory()
    except BaseException as exc:  # reported to the parent, which fails every call with it
        conn.send((None, "crash", f"the backend could not be built: {type(exc).__name__}: {exc}"))
        return
    conn.send((None, "ready", None))
    send_lock = threading.Lock()

    def call(call_id: int, model: str, request: LLMRequest) -> None:
        outcome: Outcome
        try:
            outcome = ("ok", backend.generate(model, request))
        except LLMError as exc:
            outcome = ("error", exc)
        except Exception as exc:  # a bug or an SDK surprise: the parent raises it as a failed call
            outcome = ("crash", f"{type(exc).__name__}: {exc}")
        with send_lock:
            conn.send((call_id, *outcome))

    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="llm-worker") as pool:
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                break  # the parent is gone
            if message is None:
                break
            pool.submit(call, *message)


def _settle(future: Future[Outcome], outcome: Outcome) -> None:
    """The first outcome of a call wins (a worker's answer and its end may race)."""
    with contextlib.suppress(InvalidStateError):
        future.set_result(outcome)


@dataclass
class _Worker:
    process: Any
    conn: Connection
    threads: int  # its share of the calls in flight
    send_lock: threading.Lock = field(default_factory=threading.Lock)
    ready: threading.Event = field(default_factory=threading.Event)  # its backend is built, or it failed
    in_flight: int = 0
    reader: threading.Thread | None = None


def split(concurrency: int, processes: int) -> list[int]:
    """Each worker's share of the calls in flight: together exactly `concurrency`."""
    if processes > concurrency:
        raise ValueError(
            f"{processes} worker processes need a concurrency of at least {processes} (it is {concurrency})"
        )
    share, rest = divmod(concurrency, processes)
    return [share + (1 if index < rest else 0) for index in range(processes)]


class ProcessBackend:
    """A backend named `name` whose calls are made by `processes` worker processes, each building its own
    with `factory`.

    The workers make `concurrency` calls at once between them, one per thread: that, not the client's
    slots, caps the calls in flight to the provider. The client may hand over up to `capacity` calls, so
    each worker holds a few ready beside those in flight: when a reply comes back, its thread starts the
    next call at once instead of waiting for the calling process to be scheduled.
    """

    def __init__(self, name: str, factory: Callable[[], Any], processes: int, concurrency: int) -> None:
        if processes < 2:
            raise ValueError("a process backend needs at least two processes (one is the backend itself)")
        shares = split(concurrency, processes)
        try:
            pickle.dumps(factory)
        except Exception as exc:
            raise ValueError(f"the backend factory cannot be sent to a worker process: {exc}") from exc
        self.name = name
        self._lock = threading.Lock()
        self._pending: dict[int, Future[Outcome]] = {}
        self._ids = itertools.count()
        self._broken: str | None = None
        context = multiprocessing.get_context("spawn")
        self.capacity = concurrency + sum(max(2, share // 2) for share in shares)  # in flight + ready in each
        self._workers: list[_Worker] = []
        for index, threads in enumerate(shares):
            parent, child = context.Pipe()
            process = context.Process(
                target=_serve, args=(child, factory, threads), name=f"llm-worker-{index}", daemon=True
            )
            process.start()
            child.close()
            worker = _Worker(process, parent, threads)
            worker.reader = threading.Thread(target=self._read, args=(worker,), daemon=True)
            worker.reader.start()
            self._workers.append(worker)
        self._started = threading.Lock()  # held by the first call while it waits for the workers
        self._all_ready = False

    def wait_ready(self) -> None:
        """Until every worker has built its backend (or failed to, or took too long)."""
        if self._all_ready:
            return
        with self._started:
            for worker in self._workers:
                if not worker.ready.wait(READY_TIMEOUT_S):
                    self._fail_all(f"worker process {worker.process.name} did not start in {READY_TIMEOUT_S:.0f} s")
            self._all_ready = True

    def generate(self, model: str, request: LLMRequest) -> RawReply:
        self.wait_ready()
        future: Future[Outcome] = Future()
        with self._lock:
            if self._broken is not None:
                raise LLMError(f"{self.name}: {self._broken}", transient=False)
            call_id = next(self._ids)
            self._pending[call_id] = future
            worker = min(self._workers, key=lambda w: w.in_flight / w.threads)  # the least busy process
            worker.in_flight += 1
        try:
            try:
                with worker.send_lock:
                    worker.conn.send((call_id, model, request))
            except OSError:  # the worker is gone: its reader says why (or has already)
                _settle(future, ("crash", self._broken or f"worker process {worker.process.name} ended"))
            kind, payload = future.result()
        finally:
            with self._lock:
                worker.in_flight -= 1
                self._pending.pop(call_id, None)
        if kind == "ok":
            return payload
        if kind == "error":
            raise payload
        raise LLMError(f"{self.name}: a worker process failed: {payload}", transient=False)

    def _read(self, worker: _Worker) -> None:
        """Hand each answer of one worker to the call waiting for it; when the worker ends, fail its calls."""
        while True:
            try:
                call_id, kind, payload = worker.conn.recv()
            except (EOFError, OSError):
                break
            if call_id is None:  # the worker has built its backend, or could not
                if kind == "crash":
                    self._fail_all(payload)
                    break
                worker.ready.set()
                continue
            with self._lock:
                future = self._pending.get(call_id)
            if future is not None:
                _settle(future, (kind, payload))
        self._fail_all(f"worker process {worker.process.name} ended")  # the first reason is the one kept
        worker.ready.set()

    def _fail_all(self, why: str) -> None:
        with self._lock:
            self._broken = self._broken or why
            waiting = list(self._pending.values())
        for future in waiting:
            _settle(future, ("crash", why))

    def __enter__(self) -> ProcessBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the workers (calls in flight have answered by now: the client waits for them)."""
        with self._lock:
            self._broken = self._broken or "closed"
        for worker in self._workers:
            try:
                with worker.send_lock:
                    worker.conn.send(None)
            except (OSError, ValueError):
                pass  # already gone
        for worker in self._workers:
            worker.process.join(timeout=10)
            if worker.process.is_alive():
                worker.process.terminate()
                worker.process.join(timeout=5)
            worker.conn.close()
