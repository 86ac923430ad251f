"""A curator submits in Chromium while `--serve` runs: the verdict appears on the task with no toolkit command run
in between (the webhook wakes the service, which pulls, validates, judges and writes the verdict back).

Screenshots go to test-artifacts/ (gitignored)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from authoring import labelstudio as ls
from authoring import ls_state
from build_split.sources import sample_authored
from core.store import Store
from tests.authoring.test_labelstudio_browser import ARTIFACTS, browser, hotpot_item, login, open_task  # noqa: F401

REPO = Path(__file__).resolve().parents[2]


def test_a_browser_submission_gets_its_verdict_while_the_service_runs(
    browser: Any,  # noqa: F811 - the fixture
    label_studio_server,
    tmp_path: Path,
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    item = hotpot_item()
    line = next(
        json.loads(text)
        for text in sample_authored("hotpotqa").read_text(encoding="utf-8").splitlines()
        if json.loads(text)["source_id"] == item.source_id
    )
    draft = {k: line[k] for k in ("question", "json_schema", "ground_truth")} | {"model_version": "draft@v1"}
    title = f"serve-browser {uuid.uuid4().hex[:8]}: {{source}}"
    settings = ls.LabelStudioSettings(
        url=label_studio_server.url, api_key=label_studio_server.api_key, project_title=title
    )
    session = ls.LabelStudioSession(settings)
    ws = tmp_path / "ws"
    with Store.open(ws) as store:
        store.upsert_source_items([item])
        ls.push_tasks(store, session, "hotpotqa", {item.source_id: draft})
        project = ls_state.get_project(store, session.base_url, "hotpotqa")
        (task_id,) = ls_state.tasks_by_id(store, session.base_url, project.project_id)

    env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "LABEL_STUDIO_URL": label_studio_server.url,
        "LABEL_STUDIO_API_KEY": label_studio_server.api_key,
        "LABEL_STUDIO_PROJECT_TITLE": title,
        "SOB_WORKERS": "0",
    }
    service = subprocess.Popen(
        [sys.executable, "-m", "build_split", "--source", "hotpotqa", "--workspace", str(ws), "--judge", "heuristic"]
        + ["--serve", "--poll-seconds", "300"],  # a poll would come too late: only the webhook can bring the verdict
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    try:
        lines: list[str] = []
        while not any(text.startswith("serving:") for text in lines):
            text = service.stdout.readline()  # type: ignore[union-attr]
            assert text, f"the service ended: {''.join(lines)}{service.stderr.read()}"  # type: ignore[union-attr]
            lines.append(text)
        assert lines[-1].startswith("serving: webhooks to http://127.0.0.1:"), "".join(lines)

        login(page, label_studio_server)
        open_task(page, label_studio_server, project.project_id, task_id)
        page.locator("label:has(input[type=radio][name=accept])").click()
        page.get_by_role("button", name="Submit").click()
        submitted = time.monotonic()

        # No toolkit command from here on: the service alone writes the verdict into the task.
        feedback = ""
        while time.monotonic() - submitted < 90:
            feedback = (session.client.tasks.get(id=task_id).data or {}).get("feedback") or ""
            if feedback.startswith("Verdict on annotation"):
                break
            time.sleep(0.2)
        took = time.monotonic() - submitted
        assert feedback.startswith("Verdict on annotation") and ": accepted (heuristic; " in feedback, feedback
        print(f"browser submission -> verdict on the task: {took:.2f} s")

        # The curator sees it in the task without anyone re-running anything.
        open_task(page, label_studio_server, project.project_id, task_id)
        page.wait_for_function("document.body.innerText.includes('Verdict on annotation')", timeout=30_000)
        page.get_by_text("Verdict on annotation").first.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "labelstudio_serve_verdict.png"))
        assert "accepted (heuristic" in page.inner_text("body")
    finally:
        page.close()
        service.send_signal(signal.SIGTERM)
        code = service.wait(timeout=60)
    assert code == 128 + signal.SIGTERM, service.stderr.read()  # type: ignore[union-attr]
