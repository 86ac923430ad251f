"""A team host's Label Studio: served by gunicorn's worker processes on PostgreSQL (`--label-studio-workers 2`),
with the toolkit's round trip through it and a clean stop."""

from __future__ import annotations

import re
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

from authoring import labelstudio as ls
from authoring.server import LabelStudioServer, LabelStudioServerError, free_port, main, port_in_use
from build_split.options import RunOptions
from core.models import RecordState
from core.store import Store
from tests.authoring.test_labelstudio import annotate, load, make_draft, make_items, task_of

LABEL_STUDIO_BACKENDS = ("postgresql-workers",)  # conftest.py: two gunicorn processes in front of PostgreSQL


def test_two_worker_processes_serve_the_api_the_ui_and_the_round_trip(
    label_studio_server: LabelStudioServer, ls_session, store: Store
) -> None:
    assert label_studio_server.process is not None
    master = psutil.Process(label_studio_server.process.pid)
    assert "gunicorn" in " ".join(master.cmdline())
    assert len(master.children()) == 2  # the two workers
    # The curators' UI: the login page and the static files it links to.
    with urllib.request.urlopen(f"{label_studio_server.url}/user/login/") as page:  # noqa: S310 - loopback
        html = page.read().decode("utf-8")
    asset = re.search(r'(?:src|href)="(/static/[^"?]+\.(?:js|css))', html)
    assert asset is not None, html[:500]
    with urllib.request.urlopen(label_studio_server.url + asset.group(1)) as static:  # noqa: S310 - loopback
        assert static.status == 200 and static.read(64)
    # The toolkit's push, a curator's submission, the pull: as on the development server.
    load(store, make_items(2))
    assert ls.push_tasks(store, ls_session, "hotpotqa", {"hotpotqa-000": make_draft(0)}).pushed == 2
    annotate(ls_session, task_of(store, ls_session, "hotpotqa-000"), question="Where did she study?")
    assert ls.pull_annotations(store, ls_session, "hotpotqa").counts["authored"] == 1
    assert [s.state for s in store.records("hotpotqa")] == [RecordState.AUTHORED]


def test_a_stopped_worker_server_leaves_no_process_and_frees_its_port(tmp_path: Path) -> None:
    """Its own server on SQLite: started, stopped, nothing left behind."""
    server = LabelStudioServer(tmp_path / "ls", port=free_port(), workers=2, startup_timeout_s=600)
    server.start()
    assert server.process is not None
    master = psutil.Process(server.process.pid)
    assert len(master.children()) == 2  # the workers (what they start themselves comes and goes)
    group = [master.pid, *(p.pid for p in master.children(recursive=True))]
    server.stop()
    deadline = time.monotonic() + 30  # the limit only ends a broken test; the stop itself waits for the group
    while any(psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE for pid in group):
        assert time.monotonic() < deadline, "a worker outlived the stop"
        time.sleep(0.1)
    assert not port_in_use(server.host, server.port)


def test_workers_without_gunicorn_or_a_started_server_are_clear_errors(tmp_path: Path, capsys) -> None:
    fake_bin = tmp_path / "bin" / "label-studio"
    fake_bin.parent.mkdir()
    fake_bin.write_text("#!/bin/sh\nexit 0\n")
    fake_bin.chmod(0o755)
    with pytest.raises(LabelStudioServerError, match="needs gunicorn beside"):
        LabelStudioServer(tmp_path / "ls", port=free_port(), binary=fake_bin, workers=2).start()
    assert main(["--workspace", str(tmp_path / "ws"), "--workers", "0"]) == 2
    assert "--workers must be at least 1" in capsys.readouterr().err
    with pytest.raises(ValueError, match="add --start-label-studio"):
        RunOptions(source="hotpotqa", workspace=tmp_path / "ws", label_studio_workers=2)
