"""The life of a Label Studio the toolkit starts: it never outlives the toolkit, and its failures are one line.

The toolkit runs as a real `python -m build_split` process with a real Label Studio. Its data dir starts as a
copy of the session server's migrated database, so a start takes seconds instead of the first start's minute.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from authoring import server_guard
from authoring.server import LabelStudioServer, LabelStudioServerError, find_label_studio_bin, free_port
from tests.ci import missing

REPO = Path(__file__).resolve().parents[2]


def _needs_label_studio() -> None:
    try:
        find_label_studio_bin()
    except LabelStudioServerError as exc:
        missing(str(exc))


def _copy_migrated(server: LabelStudioServer, workspace: Path) -> Path:
    """A workspace whose Label Studio data dir is a consistent copy of the running session server's."""
    data_dir = workspace / "label-studio"
    data_dir.mkdir(parents=True)
    with (
        sqlite3.connect(server.data_dir / "label_studio.sqlite3") as src,
        sqlite3.connect(data_dir / "label_studio.sqlite3") as dst,
    ):
        src.backup(dst)
    shutil.copy2(server.data_dir / "credentials.json", data_dir / "credentials.json")
    return data_dir


def _processes_of(data_dir: Path) -> list[int]:
    """Every process whose command line names this data dir (a Label Studio serving it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if str(data_dir).encode() in argv and any(b"label-studio" in part for part in argv):
            found.append(int(entry.name))
    return found


def _gone(data_dir: Path, timeout_s: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not _processes_of(data_dir):
            return True
        time.sleep(0.2)
    return False


def _as_from_a_terminal() -> None:
    """Ctrl-C reaches a command started from a terminal. A test run started in the background by a shell without
    job control (`cmd &` in a CI script) inherits SIGINT ignored, and Python then never raises KeyboardInterrupt:
    the child gets SIGINT's default back, as a curator's shell gives it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _toolkit(workspace: Path, *args: str) -> subprocess.Popen[str]:
    """The toolkit in a subprocess whose output goes to files: a pipe nobody reads could fill up and block the
    toolkit in a write, which a user's terminal never does."""
    env = dict(os.environ, PYTHONUNBUFFERED="1", LABEL_STUDIO_BIN=str(find_label_studio_bin()))
    # The data dir is a copy of the session server's, projects of other tests' workspaces included: a project of
    # its own, as a fresh server would give it (another workspace's project is not written without --adopt).
    env["LABEL_STUDIO_PROJECT_TITLE"] = f"server-life {uuid.uuid4().hex[:8]}: {{source}}"
    for name in ("LABEL_STUDIO_URL", "LABEL_STUDIO_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        env.pop(name, None)
    out_path, err_path = workspace.parent / "toolkit.stdout", workspace.parent / "toolkit.stderr"
    with out_path.open("w") as out, err_path.open("w") as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "build_split", "--source", "hotpotqa", "--workspace", str(workspace), *args],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=err,
            text=True,
            preexec_fn=_as_from_a_terminal,
        )
    process.out_path, process.err_path = out_path, err_path  # type: ignore[attr-defined]
    return process


def _out(process: subprocess.Popen[str]) -> str:
    return process.out_path.read_text(encoding="utf-8", errors="replace")  # type: ignore[attr-defined]


def _err(process: subprocess.Popen[str]) -> str:
    return process.err_path.read_text(encoding="utf-8", errors="replace")  # type: ignore[attr-defined]


def _wait_for_line(process: subprocess.Popen[str], needle: str, timeout_s: float = 180.0) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and process.poll() is None:
        if needle in _out(process):
            return _out(process)
        time.sleep(0.2)
    if needle in _out(process):
        return _out(process)
    process.kill()
    process.wait()
    raise AssertionError(f"never printed {needle!r}: {_out(process)}{_err(process)}")


def _exit_code(process: subprocess.Popen[str], timeout_s: float) -> int:
    """The toolkit's exit code; if it does not end in time, the failure shows where each of its threads waits
    (the toolkit prints its stacks on SIGUSR1)."""
    try:
        return process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGUSR1)
        time.sleep(2)
        process.kill()
        process.wait(timeout=30)
        message = f"the toolkit did not end within {timeout_s:.0f} s of the signal; its stacks:\n{_err(process)}"
        raise AssertionError(message) from None


@pytest.fixture
def kept_run(tmp_path: Path, label_studio_server: LabelStudioServer) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    """A toolkit run serving curators with its own Label Studio (`--keep-label-studio`), up and waiting."""
    workspace = tmp_path / "ws"
    data_dir = _copy_migrated(label_studio_server, workspace)
    process = _toolkit(
        workspace,
        "--sample",
        "--start-label-studio",
        "--keep-label-studio",
        "--label-studio-port",
        str(free_port()),
    )
    _wait_for_line(process, "keeps running")
    assert _processes_of(data_dir), "Label Studio should be serving"
    try:
        yield process, data_dir
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for pid in _processes_of(data_dir):  # never leave one behind, even when the test fails
            os.killpg(pid, signal.SIGKILL)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_to_the_toolkit_stops_its_label_studio(kept_run, sig: signal.Signals) -> None:
    process, data_dir = kept_run
    process.send_signal(sig)
    code = _exit_code(process, timeout_s=90)
    err = _err(process)
    assert code == 128 + sig and f"stopped by {sig.name}" in err, err
    assert _gone(data_dir, timeout_s=5), f"Label Studio left running: {_processes_of(data_dir)}"
    assert not (data_dir / server_guard.PID_FILENAME).exists()


def test_sigusr1_shows_where_a_running_toolkit_waits_and_it_goes_on(kept_run) -> None:
    process, data_dir = kept_run
    time.sleep(2)  # the line is out; let the toolkit reach its wait
    process.send_signal(signal.SIGUSR1)
    time.sleep(1)
    assert process.poll() is None, "SIGUSR1 only prints the stacks"
    process.send_signal(signal.SIGTERM)
    code = _exit_code(process, timeout_s=90)
    err = _err(process)
    assert code == 128 + signal.SIGTERM, err
    assert "serve_until_interrupted" in err and "Thread 0x" in err, err


def test_sigkill_of_the_toolkit_takes_its_label_studio_down(kept_run) -> None:
    process, data_dir = kept_run
    # While it serves the curators the store is free: --status from another terminal answers at once.
    workspace = data_dir.parent
    status = subprocess.run(
        [sys.executable, "-m", "build_split", "--source", "hotpotqa", "--workspace", str(workspace), "--status"],
        cwd=REPO,
        env={**os.environ, "SOB_WORKSPACE_WAIT": "0"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert status.returncode == 0 and "records by state:" in status.stdout, status.stderr
    process.kill()
    process.wait(timeout=30)
    assert _gone(data_dir), f"Label Studio outlived a SIGKILLed toolkit: {_processes_of(data_dir)}"


def test_the_next_start_stops_an_orphan_it_recorded(tmp_path: Path, label_studio_server: LabelStudioServer) -> None:
    """A server whose toolkit died without taking it down (the death signal lost): the record finds it."""
    workspace = tmp_path / "ws"
    data_dir = _copy_migrated(label_studio_server, workspace)
    port = free_port()
    orphan = LabelStudioServer(data_dir, port=port).start()
    record = server_guard.ServerRecord.read(data_dir)
    assert record is not None and record.pid == orphan.process.pid  # type: ignore[union-attr]
    gone_owner = subprocess.Popen(["true"])  # noqa: S607 - a pid that has just ended
    gone_owner.wait()
    server_guard.ServerRecord(pid=record.pid, port=port, owner_pid=gone_owner.pid).write(data_dir)
    orphan.process = None  # this test forgets it, as a killed toolkit would
    assert _processes_of(data_dir)

    run = _toolkit(workspace, "--sample", "--start-label-studio", "--label-studio-port", str(port))
    run.wait(timeout=300)
    out, err = _out(run), _err(run)
    assert run.returncode == 0, err
    assert f"stopped a Label Studio that a killed run left running (process group {record.pid}, port {port})" in out
    # The run stopped its own server too, and says so instead of giving a URL that leads nowhere.
    assert "Label Studio: stopped with this run;" in out and "--keep-label-studio" in out
    assert f"127.0.0.1:{port}/projects" not in out.split("Label Studio: stopped with this run")[-1]
    assert _gone(data_dir, timeout_s=5)


def test_a_busy_port_is_one_error_line(tmp_path: Path) -> None:
    _needs_label_studio()  # the port is checked once the executable is found
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        run = _toolkit(tmp_path / "ws", "--sample", "--start-label-studio", "--label-studio-port", str(port))
        run.wait(timeout=120)
    out, err = _out(run), _err(run)
    assert run.returncode == 2
    assert [line for line in err.splitlines() if not line.startswith("note:")] == [
        f"error: port {port} on 127.0.0.1 is already in use (Label Studio would silently move to another port): "
        "stop what uses it, or pick another port with --label-studio-port N"
    ]
    assert "Traceback" not in out + err


def test_a_missing_label_studio_is_one_error_line_with_the_install_command(tmp_path: Path) -> None:
    # As after `make demo` alone: no LABEL_STUDIO_BIN, none on PATH, no .venv-labelstudio beside the checkout.
    env = {"PATH": "/usr/bin:/bin", "LABEL_STUDIO_BIN": "", "HOME": str(tmp_path), "PYTHONPATH": str(REPO)}
    args = [
        "--source",
        "hotpotqa",
        "--judge",
        "heuristic",
        "--sample",
        "--start-label-studio",
        "--workspace",
        str(tmp_path / "ws"),
    ]
    script = (
        "import sys, pathlib, authoring.server as server; server.REPO = pathlib.Path(sys.argv[1]); "
        "from build_split.cli import main; sys.exit(main(sys.argv[2:]))"
    )
    run = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path), *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: Label Studio is not installed"), run.stderr
    assert "`bash scripts/install_label_studio.sh`" in lines[0]
    assert "Traceback" not in run.stderr
