"""`--serve` against a real Label Studio and hostile or unlucky neighbours (issue 35; issue 33 items 3 and 5): a
webhook for a task Label Studio does not hold, a forged webhook without the secret, a second service on the same
project, a project another workspace made."""

from __future__ import annotations

import dataclasses
import json
import socket
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from authoring import ls_state
from authoring.labelstudio import LabelStudioSession, ensure_project, lease, ownership, push_tasks
from authoring.labelstudio.webhooks import SECRET_HEADER, WebhookReceiver
from build_split import service
from build_split.options import RunOptions
from build_split.pipeline import RunSummary, run_once
from build_split.sources import sample_authored
from core.store import Store
from tests.authoring.test_serve import annotation, sample_line, wait_for_feedback

SAMPLE = sample_authored("hotpotqa")


def post(url: str, payload: object, secret: str | None) -> int:
    """POST a webhook as any local process could; the HTTP status."""
    import httpx

    headers = {SECRET_HEADER: secret} if secret is not None else {}
    return httpx.post(url, json=payload, headers=headers, timeout=30).status_code


def wait_for_line(lines: list[str], prefix: str, loop: threading.Thread, timeout_s: float = 120.0) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and loop.is_alive():
        found = next((line for line in lines if line.startswith(prefix)), None)
        if found is not None:
            return found
        time.sleep(0.05)
    raise AssertionError(f"no line starting {prefix!r} (loop alive: {loop.is_alive()}): {lines}")


def authored_count(ws: Path) -> int:
    with Store.open(ws) as store:
        return store.con.execute("SELECT count(*) FROM records WHERE state <> 'candidate'").fetchone()[0]


def test_a_webhook_for_an_unknown_task_is_skipped_and_a_forged_one_changes_nothing(
    tmp_path: Path, ls_session: LabelStudioSession
) -> None:
    ws = tmp_path / "ws"
    options = RunOptions(source="hotpotqa", workspace=ws, judge="heuristic", input=SAMPLE.parent / "sample.json")
    run_once(options, RunSummary(), ls_session, lambda _line: None, quiet=True)
    with Store.open(ws) as store:
        project = ls_state.get_project(store, ls_session.base_url, "hotpotqa")
        tasks = {t.source_id: t for t in ls_state.tasks_by_id(store, ls_session.base_url, project.project_id).values()}
    lines: list[str] = []
    refusals: list[str] = []
    stop = threading.Event()
    secret = "the-service-secret-of-this-test"
    with WebhookReceiver(secret=secret, log=refusals.append) as receiver:
        loop = threading.Thread(
            target=service._loop,
            args=(options.model_copy(update={"input": None}), ls_session, receiver, 600.0, lines.append, stop),
            daemon=True,
        )
        loop.start()
        # A task Label Studio never held: counted and skipped; the service goes on.
        assert post(receiver.url, {"action": "ANNOTATION_CREATED", "task": {"id": 424242}}, secret) == 200
        assert "unknown_task 1" in wait_for_line(lines, "webhook: pulled", loop)

        # A real annotation, announced by a forged webhook without the secret: refused, nothing pulled or stored.
        good = sample_line(0)
        task_id = tasks[good["source_id"]].task_id
        before = authored_count(ws)
        made = ls_session.client.annotations.create(
            id=task_id, result=annotation(good["question"], good["json_schema"], json.dumps(good["ground_truth"]))
        )
        forged = {"action": "ANNOTATION_CREATED", "task": {"id": task_id}}
        assert post(receiver.url, forged, None) == 403 and post(receiver.url, forged, "guess") == 403
        assert not receiver.wake.is_set() and receiver.received == 1  # the refusal happened before any wake
        assert authored_count(ws) == before and len(lines) == 1
        assert refusals[-2:] == [
            f"webhook refused from 127.0.0.1: no {SECRET_HEADER} header",
            f"webhook refused from 127.0.0.1: wrong {SECRET_HEADER} header",
        ]

        # The same webhook with the secret: the verdict comes back into the task.
        assert post(receiver.url, forged, secret) == 200
        text, _ = wait_for_feedback(ls_session, task_id, f"Verdict on annotation {made.id}")
        stop.set()
        receiver.wake.set()
        loop.join(timeout=60)
    assert ": accepted (" in text and not loop.is_alive() and authored_count(ws) == before + 1


def test_a_deleted_task_named_by_a_webhook_does_not_stop_the_cycle(tmp_path: Path, ls_session) -> None:
    ws = tmp_path / "ws"
    options = RunOptions(source="hotpotqa", workspace=ws, judge="heuristic", input=SAMPLE.parent / "sample.json")
    run_once(options, RunSummary(), ls_session, lambda _line: None, quiet=True)
    with Store.open(ws) as store:
        project = ls_state.get_project(store, ls_session.base_url, "hotpotqa")
        task_ids = sorted(ls_state.tasks_by_id(store, ls_session.base_url, project.project_id))
    ls_session.client.tasks.delete(id=task_ids[0])
    cycle = RunSummary()
    run_once(options.model_copy(update={"input": None}), cycle, ls_session, lambda _l: None, quiet=True,
             task_ids=[task_ids[0], task_ids[1]])  # fmt: skip
    assert cycle.label_studio.pull.counts["unknown_task"] == 1 and cycle.label_studio.pull.tasks_seen == 1


# -- two services, one project --------------------------------------------------------------------------------
def write_lease(session: LabelStudioSession, project_id: int, held: lease.Lease) -> None:
    project = session.client.projects.get(id=project_id)
    session.client.projects.update(id=project_id, description=lease.with_lease(project.description, held))


def test_a_second_service_is_refused_naming_the_first_and_takes_over_when_it_died(ls_session, store) -> None:
    project_id = ensure_project(store, ls_session, "hotpotqa").project_id
    since = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=5)
    first = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        write_lease(ls_session, project_id, lease.Lease(socket.gethostname(), first.pid, since, since))
        with pytest.raises(lease.ProjectServed) as raised:
            lease.take_lease(ls_session, project_id)
        message = str(raised.value)
        assert f"host {socket.gethostname()}, process {first.pid}, serving since {since:%Y-%m-%dT%H:%M:%SZ}" in message
        assert "\n" not in message
    finally:
        first.kill()
        first.wait()
    mine, note = lease.take_lease(ls_session, project_id)  # the first died: a clean takeover
    assert mine.is_mine() and note is not None and f"process {first.pid}" in note and "no longer runs" in note
    lease.release_lease(ls_session, project_id)
    assert lease.Lease.of(ls_session.client.projects.get(id=project_id).description) is None


def test_a_lease_from_another_host_holds_while_renewed_and_lapses_after(ls_session, store) -> None:
    project_id = ensure_project(store, ls_session, "hotpotqa").project_id
    now = datetime.now(UTC).replace(microsecond=0)
    write_lease(ls_session, project_id, lease.Lease("curation-host-2", 4242, now - timedelta(hours=1), now))
    with pytest.raises(lease.ProjectServed, match="host curation-host-2, process 4242"):
        lease.take_lease(ls_session, project_id)
    lapsed = now - timedelta(seconds=lease.STALE_AFTER_S + 60)
    write_lease(ls_session, project_id, lease.Lease("curation-host-2", 4242, lapsed, lapsed))
    mine, note = lease.take_lease(ls_session, project_id)
    assert mine.is_mine() and "last renewed" in (note or "")
    # The dead service comes back and renews: it learns it lost the project.
    write_lease(ls_session, project_id, lease.Lease("curation-host-2", 4242, lapsed, now))
    with pytest.raises(lease.ProjectServed, match="now served by host curation-host-2"):
        lease.renew_lease(ls_session, project_id, mine.since)


def test_the_lease_is_renewed_in_a_thread_of_its_own_and_one_found_taken_is_raised_in_the_service(
    ls_session, store
) -> None:
    project_id = ensure_project(store, ls_session, "hotpotqa").project_id
    mine, _ = lease.take_lease(ls_session, project_id)
    woken = threading.Event()
    with lease.LeaseKeeper(ls_session, project_id, mine.since, on_failure=woken.set, every_s=0.05) as keeper:
        deadline = time.monotonic() + 60
        while keeper.renewals < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
    assert keeper.renewals >= 2 and keeper.failure is None and not woken.is_set()
    held = lease.Lease.of(ls_session.client.projects.get(id=project_id).description)
    assert held is not None and held.is_mine() and held.since == mine.since
    # Another host's service took the project meanwhile: the next renewal learns it and wakes the service.
    now = datetime.now(UTC).replace(microsecond=0)
    write_lease(ls_session, project_id, lease.Lease("curation-host-2", 4242, now, now))
    with lease.LeaseKeeper(ls_session, project_id, mine.since, on_failure=woken.set, every_s=0.05) as keeper:
        assert woken.wait(timeout=60)
    with pytest.raises(lease.ProjectServed, match="now served by host curation-host-2"):
        keeper.raise_failure()
    assert lease.Lease.of(ls_session.client.projects.get(id=project_id).description).host == "curation-host-2"


def test_a_service_whose_lease_was_taken_stops_without_another_cycle(
    tmp_path: Path, ls_session: LabelStudioSession, monkeypatch
) -> None:
    ws = tmp_path / "ws"
    options = RunOptions(source="hotpotqa", workspace=ws, judge="heuristic", input=SAMPLE.parent / "sample.json")
    run_once(options, RunSummary(), ls_session, lambda _line: None, quiet=True)
    with Store.open(ws) as store:
        project_id = ensure_project(store, ls_session, "hotpotqa").project_id
    mine, _ = lease.take_lease(ls_session, project_id)
    now = datetime.now(UTC).replace(microsecond=0)
    write_lease(ls_session, project_id, lease.Lease("curation-host-2", 4242, now, now))
    monkeypatch.setattr(lease, "RENEW_S", 0.05)
    lines: list[str] = []
    raised: list[BaseException] = []

    def serve() -> None:
        try:
            service._loop(options, ls_session, receiver, 600.0, lines.append, holding=(project_id, mine.since))
        except BaseException as exc:  # noqa: BLE001 - what the service stops with is the assertion
            raised.append(exc)

    with WebhookReceiver() as receiver:
        loop = threading.Thread(target=serve, daemon=True)
        loop.start()
        loop.join(timeout=60)
    assert not loop.is_alive() and lines == []
    assert len(raised) == 1 and isinstance(raised[0], lease.ProjectServed), raised


# -- a project another workspace made ---------------------------------------------------------------------------
def test_a_project_of_another_workspace_is_never_written_without_adopt(tmp_path: Path, ls_settings) -> None:
    from tests.authoring.test_labelstudio import make_items

    items = make_items(2)
    with Store.open(tmp_path / "alice") as alice:
        made = ensure_project(alice, LabelStudioSession(ls_settings), "hotpotqa")
    session = LabelStudioSession(ls_settings)
    with Store.open(tmp_path / "bob") as bob:
        bob.upsert_source_items(items)
        with pytest.raises(ownership.ForeignProject) as raised:
            push_tasks(bob, session, "hotpotqa", {})
        message = str(raised.value)
        assert f"project {made.project_id}" in message and "--adopt" in message and "\n" not in message
        assert session.client.projects.get(id=made.project_id).task_number == 0  # nothing written
        adopted = LabelStudioSession(dataclasses.replace(ls_settings, adopt=True))
        assert ensure_project(bob, adopted, "hotpotqa").project_id == made.project_id
        push_tasks(bob, adopted, "hotpotqa", {})
    assert session.client.projects.get(id=made.project_id).task_number == len(items)
    with Store.open(tmp_path / "alice") as alice, pytest.raises(ownership.ForeignProject):
        ensure_project(alice, LabelStudioSession(ls_settings), "hotpotqa")  # now Bob's: Alice needs --adopt too


def test_a_project_made_by_hand_with_the_toolkits_title_needs_adopt(tmp_path: Path, ls_settings) -> None:
    session = LabelStudioSession(ls_settings)
    title = ls_settings.project_title.format(source="hotpotqa")
    by_hand = session.client.projects.create(title=title, description="a team's own project")
    with Store.open(tmp_path / "ws") as store:
        with pytest.raises(ownership.ForeignProject, match="made by no workspace of this toolkit"):
            ensure_project(store, session, "hotpotqa")
        adopted = ensure_project(store, LabelStudioSession(dataclasses.replace(ls_settings, adopt=True)), "hotpotqa")
    description = session.client.projects.get(id=by_hand.id).description
    assert adopted.project_id == by_hand.id and description.startswith("a team's own project")
    assert ownership.owner(description) == (tmp_path / "ws" / ownership.IDENTITY_FILENAME).read_text().strip()
