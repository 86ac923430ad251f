"""Ctrl-C and SIGTERM stop a run even when the exception they raise is swallowed on the way.

DuckDB reports a signal that comes during a query as RuntimeError("Query interrupted"), and a broad
`except Exception` kept for failing records would then let the run go on (a SIGTERM'd run once worked on
for more than 30 s). Each case runs in its own process: signal handlers and the remembered stop are per
process."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from build_split import cli
from core import stop_signals

REPO = Path(__file__).resolve().parents[2]

# A long query that the signal interrupts, the way a store read would be.
_PRELUDE = """
import os, signal, threading, time
import duckdb
from core import stop_signals

def signal_me(after_s, sig=signal.SIGTERM):
    threading.Timer(after_s, lambda: os.kill(os.getpid(), sig)).start()

def interrupted_query():
    try:
        duckdb.connect().execute("SELECT count(*) FROM range(100000000000)").fetchall()
    except Exception as exc:  # what a record's error handling would do with it
        print("swallowed:", repr(exc), flush=True)
"""


def run_script(body: str, timeout: float = 30) -> tuple[subprocess.CompletedProcess[str], float]:
    script = _PRELUDE + textwrap.dedent(body)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=timeout, check=False
    )
    return done, time.monotonic() - started


def test_a_stop_swallowed_by_a_query_is_raised_again_at_the_next_safe_point() -> None:
    done, _ = run_script(
        """
        with stop_signals.stop_on_signals():
            signal_me(0.3)
            interrupted_query()
            print("still running", flush=True)
            stop_signals.raise_if_stopped()
            print("not stopped", flush=True)
        """
    )
    assert "swallowed: RuntimeError('Query interrupted')" in done.stdout, done.stdout + done.stderr
    assert "still running" in done.stdout
    assert "not stopped" not in done.stdout
    assert done.returncode == 128 + signal.SIGTERM, done.stderr


def test_ctrl_c_swallowed_by_a_query_is_raised_again_as_keyboard_interrupt() -> None:
    done, _ = run_script(
        """
        with stop_signals.stop_on_signals():
            signal_me(0.3, signal.SIGINT)
            interrupted_query()
            try:
                stop_signals.raise_if_stopped()
            except KeyboardInterrupt:
                print("KeyboardInterrupt", flush=True)
        """
    )
    assert "KeyboardInterrupt" in done.stdout, done.stdout + done.stderr


def test_a_run_that_goes_on_after_the_stop_is_ended_after_the_grace_period() -> None:
    done, elapsed = run_script(
        """
        stop_signals.GRACE_S = 1.0
        with stop_signals.stop_on_signals():
            signal_me(0.2)
            interrupted_query()
            time.sleep(60)  # no safe point checks the stop
            print("slept through it", flush=True)
        """
    )
    assert "slept through it" not in done.stdout
    assert done.returncode == 128 + signal.SIGTERM
    assert "stopped by SIGTERM: the run had not ended 1 s after the signal" in done.stderr
    assert "work committed so far is kept" in done.stderr
    assert elapsed < 30


def test_a_second_signal_does_not_wait_for_the_cleanup() -> None:
    done, elapsed = run_script(
        """
        with stop_signals.stop_on_signals():
            try:
                signal_me(0.2)
                time.sleep(60)
            finally:
                print("cleaning up", flush=True)
                signal_me(0.2)
                time.sleep(60)  # a slow cleanup
        """
    )
    assert "cleaning up" in done.stdout
    assert done.returncode == 128 + signal.SIGTERM
    assert "stopped by SIGTERM: second signal" in done.stderr
    assert elapsed < 30


def test_the_cli_reports_a_stop_seen_as_a_query_error_as_the_stop(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(*_args: object) -> int:
        monkeypatch.setattr(stop_signals, "_received", signal.SIGTERM)  # as the handler leaves it
        raise RuntimeError("Query interrupted")

    monkeypatch.setattr(cli, "_run_command", interrupted)
    code = cli.main(["--source", "hotpotqa", "--sample", "--workspace", str(tmp_path / "ws")])
    assert code == 128 + signal.SIGTERM
    err = capsys.readouterr().err
    assert "stopped by SIGTERM: work committed so far is kept" in err
    assert "Traceback" not in err


def test_without_a_stop_the_same_error_is_not_hidden(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def broken(*_args: object) -> int:
        raise RuntimeError("a real bug")

    monkeypatch.setattr(cli, "_run_command", broken)
    with pytest.raises(RuntimeError, match="a real bug"):
        cli.main(["--source", "hotpotqa", "--sample", "--workspace", str(tmp_path / "ws")])
