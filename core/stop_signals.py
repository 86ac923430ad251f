"""Ctrl-C, SIGTERM and SIGHUP stop a run, promptly, whatever it is doing when they come.

While `stop_on_signals()` is active:

- SIGTERM/SIGHUP raise `Terminated` (Python's default for them ends the process at once, skipping every
  `finally`, so a started Label Studio would be left running); Ctrl-C raises KeyboardInterrupt as usual.
- The stop is remembered. DuckDB turns an exception raised by a signal handler during a query into
  `RuntimeError("Query interrupted")`, and a broad `except Exception` meant for a failing record would then
  swallow it and go on as if nothing happened: `raise_if_stopped()` at a safe point (between batches,
  before a failure is recorded) raises the stop again, and `stop_received()` lets the CLI report it.
- A stop that still has not ended the process after `GRACE_S` (cleanup stuck, or the stop swallowed where
  no safe point checks it) ends it at once, as does a second signal. Nothing committed is lost: every
  store write is a transaction, and a started Label Studio is stopped by the kernel (server_guard).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

GRACE_S = 20.0  # a started Label Studio needs up to ~10 s to stop cleanly
_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

_received: int | None = None  # the first stop signal of this process, if any


class Terminated(SystemExit):
    """The toolkit got SIGTERM/SIGHUP: unwinds like an exception, so every `finally` (the server's stop) runs."""

    def __init__(self, signum: int) -> None:
        super().__init__(128 + signum)
        self.signum = signum


def stop_received() -> int | None:
    """The stop signal this process got (SIGINT, SIGTERM or SIGHUP), or None."""
    return _received


def raise_if_stopped() -> None:
    """At a safe point: end the run here if a stop signal came (its exception may have been swallowed)."""
    if _received is None:
        return
    if _received == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(_received)


def _exit_now(signum: int, why: str) -> None:
    print(f"stopped by {signal.Signals(signum).name}: {why}; work committed so far is kept", file=sys.stderr)
    sys.stderr.flush()
    os._exit(128 + signum)


def _watchdog(signum: int, grace_s: float) -> None:
    threading.Event().wait(grace_s)
    _exit_now(signum, f"the run had not ended {grace_s:.0f} s after the signal, so it ends at once")


def _on_signal(signum: int, frame: FrameType | None) -> None:
    global _received
    if _received is not None:  # a second Ctrl-C or SIGTERM: do not wait for the cleanup
        _exit_now(signum, "second signal")
    _received = signum
    threading.Thread(target=_watchdog, args=(signum, GRACE_S), name="stop-watchdog", daemon=True).start()
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(signum)


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """While the block runs, a stop signal unwinds the run (every `finally` runs) and is remembered."""
    try:
        previous = {sig: signal.signal(sig, _on_signal) for sig in _SIGNALS}
    except ValueError:  # not the main thread: signals cannot be caught here, nothing to restore
        yield
        return
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
