"""Pure per-record work on the machine's other cores.

Validation and the heuristic judge are CPU-bound and pure (a stored record in, a result out), so a
large run sends its batches to worker processes: while the workers check one batch, the main process
writes the previous one to the store. Results come back in input order, so a stage commits exactly
what it would commit in process. Small runs stay in process: starting workers costs about a second.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.forkserver
import os
import select
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

from core.processes import process_alive

T = TypeVar("T")
R = TypeVar("R")

WORKERS_ENV = "SOB_WORKERS"  # a number of worker processes; 0 keeps every stage in process
MIN_PARALLEL = 2000  # records below which workers cost more to start than they save
# Modules every worker needs: imported once in the fork server, so each worker starts warm.
_PRELOAD = ["validation.pipeline", "judge.heuristic", "core.store", "authoring.file_lines"]


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def worker_count(pending: int) -> int:
    """How many worker processes a stage with `pending` records uses: SOB_WORKERS when set, else one per
    core for a large run on a machine with several cores, else none."""
    configured = os.environ.get(WORKERS_ENV, "").strip()
    if configured:
        if not configured.isdigit():
            raise ValueError(f"{WORKERS_ENV}={configured!r}: expected a number of worker processes (0 for none)")
        return int(configured)
    cores = available_cores()
    return cores if cores > 1 and pending >= MIN_PARALLEL else 0


def start_fork_server(pending: int) -> bool:
    """Start the fork server that stages of `pending` records take their workers from, if they will use
    workers, and return at once: it imports the workers' modules (about 0.5 s of CPU) in its own process while
    this one goes on. Called as a large import begins, it spares the validation stage that wait: on a
    25k-record run its first batch came back 1.2 s after the stage began, its later ones every 0.37 s."""
    if worker_count(pending) <= 0:
        return False
    _fork_server_context()
    multiprocessing.forkserver.ensure_running()  # spawns the server; does not wait for its imports
    return True


def _fork_server_context() -> multiprocessing.context.BaseContext:
    context = multiprocessing.get_context("forkserver")  # no fork of a process holding DuckDB's threads
    context.set_forkserver_preload(_PRELOAD)
    return context


def _die_with(parent: int) -> None:
    """Run in each worker as it starts: the worker ends when the run that started it ends, however it ends.

    A run killed with SIGKILL or SIGTERM cannot stop its workers itself, and they would wait for work for
    ever, keeping multiprocessing's fork server and resource tracker alive with them (each holds them
    open). Once the workers are gone, those two see their last client leave and end by themselves."""
    threading.Thread(target=_exit_when_gone, args=(parent,), name="die-with-parent", daemon=True).start()


def _exit_when_gone(parent: int) -> None:
    try:
        handle = os.pidfd_open(parent)  # Linux 5.3+: readable once the process has ended, no polling
    except ProcessLookupError:
        os._exit(1)
    except (AttributeError, OSError):  # no pidfd here: look once a second (a reused pid is not ours)
        while process_alive(parent):
            time.sleep(1)
        os._exit(1)
    select.select([handle], [], [])
    os._exit(1)


class WorkerFailed(RuntimeError):
    """A worker process died (killed, out of memory, or a script without a main guard); what was committed stays."""


def map_batches(
    work: Callable[[T], R], batches: Iterable[Sequence[T]], workers: int, ahead: int = 1
) -> Iterator[tuple[Sequence[T], list[R]]]:
    """(batch, [work(item) for item in batch]) for each batch, in order. With workers, the next batch (the next
    `ahead` batches) is already being worked on while the caller handles the current one. `work` must be a module-level
    function (it is sent to the workers by name) and should catch its own errors: an exception raised in a
    worker stops the run, as it would in process. A worker that dies raises WorkerFailed instead of
    leaving the run waiting for an answer that will never come."""
    if workers <= 0:
        for batch in batches:
            yield batch, [work(item) for item in batch]
        return
    context = _fork_server_context()
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_die_with, initargs=(os.getpid(),))
    try:
        in_flight: deque[tuple[Sequence[T], Iterator[R]]] = deque()
        for batch in batches:
            chunk = max(1, len(batch) // (workers * 4))  # a few chunks per worker evens out slow records
            in_flight.append((batch, pool.map(work, batch, chunksize=chunk)))  # submitted now, read later
            if len(in_flight) > ahead:
                done, results = in_flight.popleft()
                yield done, list(results)
        while in_flight:
            done, results = in_flight.popleft()
            yield done, list(results)
    except BrokenProcessPool as exc:
        pool.shutdown(wait=False, cancel_futures=True)
        raise WorkerFailed(
            f"a worker process stopped unexpectedly ({exc}); the batches committed before it are kept. Run again, "
            f"or set {WORKERS_ENV}=0 to work in one process (a script that runs the stages itself needs an "
            '`if __name__ == "__main__":` guard)'
        ) from exc
    except BaseException:
        # A stop (Ctrl-C, SIGTERM) or the caller's error: the batches queued behind are dropped, not worked
        # through first (a plain `with` would wait for all of them before the run could end).
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
