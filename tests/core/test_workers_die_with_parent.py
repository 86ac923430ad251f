"""A run killed while its worker processes check records leaves no process behind: not the workers, not
multiprocessing's fork server, not its resource tracker (they used to run for ever, 50 processes after a
series of kills)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def session_processes(session: int, leader: int) -> dict[int, str]:
    """pid -> command line of every live process in `session` but its leader (the killed run itself)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == leader:
            continue
        try:
            stat = (entry / "stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            if fields[0] == "Z" or int(fields[3]) != session:  # state, ..., session id
                continue
            found[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()[:200]
        except (FileNotFoundError, ProcessLookupError, ValueError):
            continue
    return found


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_workers_die_with_the_run(tmp_path: Path, how: signal.Signals) -> None:
    env = {**os.environ, "SOB_WORKERS": "2", "PYTHONPATH": str(REPO)}
    env.pop("GEMINI_API_KEY", None)
    env.pop("GOOGLE_API_KEY", None)
    log = tmp_path / "stderr.log"  # what the run said, shown if it does not end
    run = subprocess.Popen(
        [sys.executable, "-m", "build_split", "--source", "hotpotqa", "--workspace", tmp_path / "ws", "--sample"],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
        start_new_session=True,  # its session holds the run and everything it starts
    )
    session = run.pid
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and run.poll() is None:
            if any("forkserver" in cmd or "multiprocessing" in cmd for cmd in session_processes(session, 0).values()):
                break
            time.sleep(0.05)
        assert run.poll() is None, "the run ended before it started its workers"
        time.sleep(0.5)  # the workers are started and busy
        started = session_processes(session, run.pid)
        assert started, "no worker process was seen"
        os.kill(run.pid, how)
        try:
            run.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.kill(run.pid, signal.SIGUSR1)  # faulthandler: where each of its threads waits
            time.sleep(1)
            pytest.fail(f"the run did not end 30 s after {how.name}; it said:\n{log.read_text()[-6000:]}")
        left = started
        until = time.monotonic() + 10
        while left and time.monotonic() < until:
            time.sleep(0.1)
            left = session_processes(session, run.pid)
        assert not left, f"{len(left)} process(es) of the killed run still alive: {left}"
    finally:
        for pid in session_processes(session, 0):
            os.kill(pid, signal.SIGKILL)
        if run.poll() is None:
            run.kill()
            run.wait()
