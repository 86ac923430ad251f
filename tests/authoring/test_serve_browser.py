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
from tests.authoring.test_labelstudio_browser import (  # noqa: F401 - browser is a fixture
    ARTIFACTS,
    browser,
    hotpot_item,
    login,
    open_task,
    submit_and_wait,
)

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
        submit_and_wait(page)
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


def test_an_adjudicator_settles_two_answers_in_the_browser_while_the_service_runs(
    browser: Any,  # noqa: F811 - the fixture
    label_studio_server,
    two_curators,
    tmp_path: Path,
) -> None:
    """Overlap 2 under --serve: two curators' differing answers make an adjudication task that shows both side by
    side; the adjudicator's answer, submitted in Chromium, becomes the ground truth and gets its verdict."""
    import copy

    from authoring.labelstudio.adjudication import key as adjudication_key
    from build_split.pipeline import print_history
    from core.models import make_record_id
    from loaders.hotpotqa import load_hotpotqa
    from tests.authoring.test_two_curators import SAMPLE_ITEMS, annotate, sample_line

    (ada_id, ada), (bo_id, bo) = two_curators
    right = sample_line(1)  # two books and their authors' nationalities
    wrong = copy.deepcopy(right)
    wrong["ground_truth"]["books"][1]["nationality"] = "English"
    title = f"adjudicate {uuid.uuid4().hex[:8]}: {{source}}"
    settings = ls.LabelStudioSettings(
        url=label_studio_server.url, api_key=label_studio_server.api_key, project_title=title, overlap=2
    )
    session = ls.LabelStudioSession(settings)
    ws = tmp_path / "ws"
    item = next(i for i in load_hotpotqa(SAMPLE_ITEMS).items if i.source_id == right["source_id"])
    with Store.open(ws) as store:
        store.upsert_source_items([item])
        ls.push_tasks(store, session, "hotpotqa")
        project = ls_state.get_project(store, session.base_url, "hotpotqa")
        (task_id,) = ls_state.tasks_by_id(store, session.base_url, project.project_id)
    annotate(session, task_id, wrong, ada_id)
    annotate(session, task_id, right, bo_id)

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
        + ["--serve", "--overlap", "2", "--poll-seconds", "300"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    page = browser.new_page(viewport={"width": 1600, "height": 1200})
    try:
        lines: list[str] = []
        while not any(text.startswith("serving:") for text in lines):
            text = service.stdout.readline()  # type: ignore[union-attr]
            assert text, f"the service ended: {''.join(lines)}{service.stderr.read()}"  # type: ignore[union-attr]
            lines.append(text)
        with Store.open(ws) as store:
            adjudication = ls_state.get_project(store, session.base_url, adjudication_key("hotpotqa"))
            (adjudication_task,) = ls_state.tasks_by_id(store, session.base_url, adjudication.project_id)

        login(page, label_studio_server)
        open_task(page, label_studio_server, adjudication.project_id, adjudication_task)
        page.wait_for_selector(".differs", timeout=30_000)
        page.locator(".differs").first.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "labelstudio_adjudication_task.png"))
        marked = page.locator(".differs")
        assert marked.count() == 2  # the one differing field, once in each answer
        assert '"English"' in marked.nth(0).inner_text() and '"Scottish"' in marked.nth(1).inner_text()
        body = page.inner_text("body")
        assert "First curator's answer" in body and "Second curator's answer" in body and ada in body and bo in body
        editors = page.locator("textarea")
        assert json.loads(editors.nth(2).input_value()) == wrong["ground_truth"]  # prefilled with the first answer
        editors.nth(2).fill(json.dumps(right["ground_truth"], indent=1))
        page.locator("label:has(input[type=radio][name=accept])").click()
        submit_and_wait(page)
        submitted = time.monotonic()
        feedback = ""
        while time.monotonic() - submitted < 90:
            feedback = (session.client.tasks.get(id=adjudication_task).data or {}).get("feedback") or ""
            if feedback.startswith("Verdict on annotation"):
                break
            time.sleep(0.2)
        assert feedback.startswith("Verdict on annotation") and ": accepted (heuristic; " in feedback, feedback
        print(f"adjudication in the browser -> verdict on its task: {time.monotonic() - submitted:.2f} s")
    finally:
        page.close()
        service.send_signal(signal.SIGTERM)
        code = service.wait(timeout=60)
    assert code == 128 + signal.SIGTERM, service.stderr.read()  # type: ignore[union-attr]
    record_id = make_record_id("hotpotqa", right["source_id"], right["question"])
    with Store.open(ws) as store:
        (stored,) = [s for s in store.records("hotpotqa") if s.record.record_id == record_id]
        assert stored.record.output.ground_truth == right["ground_truth"]  # the adjudicated answer
        history: list[str] = []
        print_history(store, "hotpotqa", record_id, history.append)
    revs = [h for h in history if h.startswith("rev ")]
    assert [r.split(")")[0] for r in revs] == [
        "rev 1 (first curator's answer, kept",
        "rev 2 (second curator's answer, kept",
        "rev 3 (applied",
    ], history
    assert revs[0].split(" by ")[1].startswith(ada) and revs[1].split(" by ")[1].startswith(bo)
