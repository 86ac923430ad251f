"""`--serve` against a real Label Studio: a curator's submission gets its verdict written back into the task with
no toolkit command run in between, `--status` works meanwhile, and SIGTERM ends the service cleanly."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from authoring import ls_state
from build_split.sources import sample_authored
from core.store import Store

LABEL_STUDIO_BACKENDS = ("sqlite", "postgresql")  # the server's core runs on both (conftest.py)

REPO = Path(__file__).resolve().parents[2]
SAMPLE = sample_authored("hotpotqa")


def sample_line(index: int) -> dict:
    return json.loads(SAMPLE.read_text(encoding="utf-8").splitlines()[index])


def textarea(name: str, text: str) -> dict:
    return {"from_name": name, "to_name": "context", "type": "textarea", "value": {"text": [text]}}


def annotation(question: str, schema: object, truth: str) -> list[dict]:
    return [
        textarea("question", question),
        textarea("json_schema", json.dumps(schema)),
        textarea("ground_truth", truth),
        {"from_name": "verdict", "to_name": "context", "type": "choices", "value": {"choices": ["accept"]}},
    ]


def feedback_of(session, task_id: int) -> str:
    return (session.client.tasks.get(id=task_id).data or {}).get("feedback") or ""


def wait_for_feedback(session, task_id: int, prefix: str, timeout_s: float = 60.0) -> tuple[str, float]:
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        text = feedback_of(session, task_id)
        if text.startswith(prefix):
            return text, time.monotonic() - started
        time.sleep(0.1)
    raise AssertionError(f"no feedback starting {prefix!r} within {timeout_s} s: {feedback_of(session, task_id)!r}")


def test_serve_writes_the_verdict_back_while_status_works(tmp_path: Path, label_studio_server, ls_session) -> None:
    ws = tmp_path / "ws"
    title = f"serve {uuid.uuid4().hex[:8]}: {{source}}"
    env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "LABEL_STUDIO_URL": label_studio_server.url,
        "LABEL_STUDIO_API_KEY": label_studio_server.api_key,
        "LABEL_STUDIO_PROJECT_TITLE": title,
        "SOB_WORKERS": "0",
    }
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        env.pop(name, None)
    service = subprocess.Popen(
        [sys.executable, "-m", "build_split", "--source", "hotpotqa", "--workspace", str(ws), "--judge", "heuristic"]
        + ["--input", str(SAMPLE.parent / "sample.json"), "--serve", "--poll-seconds", "120"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = []
        while not any(line.startswith("serving:") for line in lines):
            line = service.stdout.readline()  # type: ignore[union-attr]
            assert line, f"the service ended: {''.join(lines)}{service.stderr.read()}"  # type: ignore[union-attr]
            lines.append(line)
        assert lines[-1].startswith("serving: webhooks to http://127.0.0.1:"), "".join(lines)
        with Store.open(ws) as store:  # between cycles the store is free
            project = ls_state.get_project(store, label_studio_server.url, "hotpotqa")
            tasks = {
                t.source_id: t
                for t in ls_state.tasks_by_id(store, label_studio_server.url, project.project_id).values()
            }

        # A good answer: accepted, and the curator reads so in the task.
        good = sample_line(0)
        made = ls_session.client.annotations.create(
            id=tasks[good["source_id"]].task_id,
            result=annotation(good["question"], good["json_schema"], json.dumps(good["ground_truth"])),
        )
        text, took = wait_for_feedback(ls_session, tasks[good["source_id"]].task_id, f"Verdict on annotation {made.id}")
        assert text.startswith(f"Verdict on annotation {made.id}: accepted (heuristic; accuracy ")
        assert took < 30

        # An answer that does not fit its schema: sent back with the error and its JSON path.
        bad = sample_line(1)
        truth = dict(bad["ground_truth"], unexpected_field=1)
        task_id = tasks[bad["source_id"]].task_id
        ls_session.client.annotations.create(
            id=task_id, result=annotation(bad["question"], bad["json_schema"], json.dumps(truth))
        )
        deadline = time.monotonic() + 60
        while "unexpected_field" not in feedback_of(ls_session, task_id) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "$" in feedback_of(ls_session, task_id) and "unexpected_field" in feedback_of(ls_session, task_id)

        # Another terminal: --status while the service runs.
        status = subprocess.run(
            [sys.executable, "-m", "build_split", "--source", "hotpotqa", "--workspace", str(ws), "--status"],
            cwd=REPO,
            env={**env, "SOB_WORKSPACE_WAIT": "30"},
            capture_output=True,
            text=True,
            timeout=90,
        )
        assert status.returncode == 0 and "accepted 1" in status.stdout, status.stdout + status.stderr

        # A forged webhook to the service's receiver (no secret header): refused, nothing woken.
        import httpx

        hook_url = lines[-1].split("webhooks to ", 1)[1].split(",", 1)[0]
        forged = {"action": "ANNOTATION_CREATED", "task": {"id": tasks[good["source_id"]].task_id}}
        assert httpx.post(hook_url, json=forged, timeout=30).status_code == 403

        # A second service on the same project: refused, naming the first.
        second = subprocess.run(
            [sys.executable, "-m", "build_split", "--source", "hotpotqa", "--workspace", str(ws), "--serve"]
            + ["--judge", "heuristic"],
            cwd=REPO,
            env={**env, "SOB_WORKSPACE_WAIT": "60"},
            capture_output=True,
            text=True,
            timeout=120,
        )
        last = second.stderr.strip().splitlines()[-1]
        assert second.returncode == 2 and f"process {service.pid}, serving since" in last, second.stderr
    finally:
        service.send_signal(signal.SIGTERM)
        code = service.wait(timeout=60)
    err = service.stderr.read()  # type: ignore[union-attr]
    assert code == 128 + signal.SIGTERM and "stopped by SIGTERM" in err, err
    assert ls_session.client.webhooks.list(project=str(project.project_id)) == []  # the service's hook is gone


def test_polling_brings_the_verdict_when_no_webhook_comes(tmp_path: Path, ls_session) -> None:
    """A Label Studio the webhooks cannot reach: the service's own check every poll_s seconds does the work."""
    import threading

    from build_split import service
    from build_split.options import RunOptions
    from build_split.pipeline import RunSummary, run_once

    ws = tmp_path / "ws"
    options = RunOptions(source="hotpotqa", workspace=ws, judge="heuristic", input=SAMPLE.parent / "sample.json")
    run_once(options, RunSummary(), ls_session, lambda _line: None, quiet=True)
    with Store.open(ws) as store:
        project = ls_state.get_project(store, ls_session.base_url, "hotpotqa")
        tasks = {t.source_id: t for t in ls_state.tasks_by_id(store, ls_session.base_url, project.project_id).values()}
    cycle_options = options.model_copy(update={"input": None})
    lines: list[str] = []
    stop = threading.Event()
    with service.WebhookReceiver() as receiver:  # never registered: no webhook will wake it
        loop = threading.Thread(
            target=service._loop, args=(cycle_options, ls_session, receiver, 0.5, lines.append, stop), daemon=True
        )
        loop.start()
        good = sample_line(0)
        made = ls_session.client.annotations.create(
            id=tasks[good["source_id"]].task_id,
            result=annotation(good["question"], good["json_schema"], json.dumps(good["ground_truth"])),
        )
        text, _ = wait_for_feedback(ls_session, tasks[good["source_id"]].task_id, f"Verdict on annotation {made.id}")
        stop.set()
        receiver.wake.set()
        loop.join(timeout=30)
        assert receiver.received == 0 and any(line.startswith("poll: pulled authored 1") for line in lines), lines
    assert ": accepted (" in text and not loop.is_alive()
