"""Requests for the store left in `.waiting/` (issue 35: a request file of a killed `--status` slowed a release
from 8.3 s to 127 s without a word). Real processes: a killed one (a zombie until reaped), a live one that never
takes the store, and a pid that now belongs to another process."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from core import workspace_access
from core.store import Store


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen(["sleep", "300"])
    yield process
    process.kill()
    process.wait()


def leave_request(workspace: Path, pid: int, started: str | None) -> Path:
    folder = workspace / workspace_access.REQUESTS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{pid}-0badc0de"
    path.write_text(f"{pid} {started or ''}".strip(), encoding="utf-8")
    return path


def test_a_request_of_a_killed_process_is_removed_not_waited_for(
    tmp_path: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    path = leave_request(tmp_path, sleeper.pid, workspace_access.process_start(sleeper.pid))
    assert workspace_access.waiting_requests(tmp_path) == [path]  # alive: a real request
    sleeper.kill()  # kill -9, not reaped yet: a zombie, which signal 0 still finds
    # SIGKILL lands asynchronously: wait until it has ended, without reaping it (it stays a zombie).
    os.waitid(os.P_PID, sleeper.pid, os.WEXITED | os.WNOWAIT)
    assert workspace_access.waiting_requests(tmp_path) == []
    assert not path.exists()


def test_a_request_whose_pid_now_belongs_to_another_process_is_removed(tmp_path: Path) -> None:
    path = leave_request(tmp_path, os.getppid(), "1")  # a live pid, started at another time than recorded
    assert workspace_access.waiting_requests(tmp_path) == []
    assert not path.exists()


def test_a_live_requester_that_never_takes_the_store_is_named_and_not_waited_for_again(
    tmp_path: Path,
    sleeper: subprocess.Popen[bytes],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(workspace_access, "HANDOVER_S", 1.5)
    monkeypatch.setattr(workspace_access, "_unanswered", set())
    leave_request(tmp_path, sleeper.pid, workspace_access.process_start(sleeper.pid))
    with Store.open(tmp_path) as store:
        assert store.let_waiting_in() is True
        err = capsys.readouterr().err
        assert f"note: letting process {sleeper.pid} (request in .waiting/) use workspace {tmp_path}" in err
        assert f"process {sleeper.pid} (request in .waiting/) did not take workspace" in err
        assert store.let_waiting_in() is False  # the same request is not waited for a second time
        assert store.con.execute("SELECT 1").fetchone() == (1,)
