"""A curator's view: headless Debian Chromium logs in, opens pushed tasks, edits one and submits it.

Screenshots go to test-artifacts/ (gitignored): look at them.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from authoring import labelstudio as ls
from authoring import ls_state
from authoring.server import LabelStudioServer
from core.models import RecordState, SourceItem, make_record_id
from core.store import Store
from tests.ci import missing

CHROMIUM = os.environ.get("CHROMIUM_BIN", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "loaders" / "samples" / "hotpotqa" / "sample.json"
ARTIFACTS = REPO / "test-artifacts"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("playwright is not installed: pip install -e '.[test]' (never `playwright install`)")
    if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
        missing(f"{CHROMIUM} not found: apt-get install -y chromium chromium-driver")
    with sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


def submit_and_wait(page: Any, button: str = "Submit") -> dict[str, Any]:
    """Click Submit (or Update) and wait for Label Studio's answer to the request that stores the annotation.

    The page hides its button before that request is answered; a test that goes on as soon as the button is gone
    (or after a fixed pause) pulls before the annotation exists on a busy server. The answer is the event.
    """
    method = "POST" if button == "Submit" else "PATCH"

    def stores_the_annotation(response: Any) -> bool:
        url = response.url.split("?", 1)[0]
        return response.request.method == method and "/api/" in url and "annotations" in url and "draft" not in url

    with page.expect_response(stores_the_annotation, timeout=120_000) as answered:
        page.locator("button", has_text=button).last.click()
    response = answered.value
    assert response.ok, f"Label Studio answered HTTP {response.status} to {button}: {response.text()[:300]}"
    return response.json()


def hotpot_item() -> SourceItem:
    from loaders.hotpotqa import load_hotpotqa

    return load_hotpotqa(SAMPLE).items[0]


def ami_item() -> SourceItem:
    lines = []
    speakers = ["FXX001", "MXX002", "MXX003", "FXX004"]
    for i in range(80):
        start = 1.8 + 6.1 * i
        speaker = speakers[i % 4]
        lines.append(f"[{start:7.2f}] {speaker}: SO WE GO WITH THE RECHARGEABLE BATTERY AND A USB CHARGER ITEM {i}")
    return SourceItem(
        source="ami",
        source_id="XX0001a",
        context="\n".join(lines),
        metadata={"meeting_id": "XX0001a", "speakers": speakers, "duration_s": 512.4},
    )


def login(page: Any, server: LabelStudioServer) -> None:
    creds = server.credentials
    page.goto(f"{server.url}/user/login/")
    page.fill("input[name=email]", creds.username)
    page.fill("input[name=password]", creds.password)
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/user/login" not in url, timeout=30_000)


def open_task(page: Any, server: LabelStudioServer, project_id: int, task_id: int) -> None:
    page.goto(f"{server.url}/projects/{project_id}/data?task={task_id}")
    page.wait_for_selector("textarea", timeout=60_000)
    # The editors fill in from the prediction after the task loads.
    page.wait_for_function("document.querySelectorAll('textarea').length >= 4", timeout=30_000)
    page.wait_for_timeout(1000)


def test_curator_sees_context_and_prefilled_editors_then_submits(
    browser: Any, label_studio_server: LabelStudioServer, ls_session: ls.LabelStudioSession, tmp_path: Path
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    item = hotpot_item()
    schema = {
        "type": "object",
        "properties": {
            "director": {"type": "string", "description": "Who directed Marrow Creek Observatory, 1958 to 1977"},
            "director_studied_at": {"type": "string", "description": "The university the director studied at"},
            "moved_to_elsford_in": {"type": "integer", "description": "The year the director moved to Elsford"},
        },
        "required": ["director", "director_studied_at", "moved_to_elsford_in"],
    }
    answer = {"director": "Ingrid Solvang", "director_studied_at": "University of Oslo", "moved_to_elsford_in": 1949}
    draft = {
        "question": item.question,
        "json_schema": schema,
        "ground_truth": answer,
        "model_version": "gemini-2.5-flash@draft-v1",
    }
    with Store.open(tmp_path / "workspace") as store:
        store.upsert_source_items([item, ami_item()])
        ls.push_tasks(store, ls_session, "hotpotqa", {item.source_id: draft})
        ls.push_tasks(store, ls_session, "ami")
        projects = {s: ls_state.get_project(store, ls_session.base_url, s) for s in ("hotpotqa", "ami")}
        task_ids = {
            s: next(iter(ls_state.tasks_by_id(store, ls_session.base_url, p.project_id))) for s, p in projects.items()
        }

        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        login(page, label_studio_server)
        open_task(page, label_studio_server, projects["hotpotqa"].project_id, task_ids["hotpotqa"])
        page.screenshot(path=str(ARTIFACTS / "labelstudio_hotpotqa_task.png"))

        body = page.inner_text("body")
        assert "Marrow Creek Observatory" in body  # the context
        assert "House rules: HotpotQA (text)" in body and "Last feedback from the toolkit" in body
        assert "University of Oslo" in body  # metadata table (seed answer)
        editors = page.locator("textarea")
        values = [editors.nth(i).input_value() for i in range(editors.count())]
        assert values[0] == item.question
        assert json.loads(values[1]) == schema
        assert json.loads(values[2]) == answer
        assert values[3] == ""  # notes
        for verdict in ("accept", "reject", "needs_discussion"):
            assert page.locator(f".lsf-choices input[type=radio][name={verdict}]").count() == 1

        # The curator edits the question, accepts and submits; the next pull takes it.
        editors.nth(0).fill("Which university did the observatory's 1958-1977 director attend?")
        page.locator("label:has(input[type=radio][name=accept])").click()
        submit_and_wait(page)
        authored = ls.pull_annotations(store, ls_session, "hotpotqa").counts["authored"]
        assert authored == 1
        (stored,) = list(store.records("hotpotqa"))
        assert stored.state == RecordState.AUTHORED
        assert stored.record.record_id == make_record_id(
            "hotpotqa", item.source_id, "Which university did the observatory's 1958-1977 director attend?"
        )
        assert stored.record.input.json_schema == schema and stored.record.output.ground_truth == answer
        assert stored.record.provenance.annotator == label_studio_server.credentials.username

        # A long transcript stays readable: a scrolling, monospace box; empty editors without a draft.
        open_task(page, label_studio_server, projects["ami"].project_id, task_ids["ami"])
        page.screenshot(path=str(ARTIFACTS / "labelstudio_ami_task.png"))
        box = page.locator(".sob-context").first
        style = box.evaluate(
            "el => { const s = getComputedStyle(el);"
            " return [s.overflowY, s.fontFamily, el.scrollHeight > el.clientHeight] }"
        )
        assert style[0] == "auto" and "monospace" in style[1] and style[2] is True
        assert "House rules: AMI meetings" in page.inner_text("body")
        editors = page.locator("textarea")
        assert all(editors.nth(i).input_value() == "" for i in range(editors.count()))
        page.close()
