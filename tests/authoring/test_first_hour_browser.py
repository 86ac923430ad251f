"""The README's first hour, followed in order in one workspace, with a curator in headless Chromium.

Step 2 builds the text sample (its authored records come from a file); step 3's `--status` and `--rejections` say
where each held record is fixed; step 4 serves Label Studio (the session's server, given by LABEL_STUDIO_URL instead
of `--start-label-studio`, which would start a second one): every held or rejected record is a task, prefilled, with
its flags above the editors and `state` / `open_flags` columns. The curator dismisses the flags of one record and
fixes one value of the other, and each is accepted within 2 s of its submission, with no toolkit command run in
between (the `--serve` loop alone). Screenshots go to test-artifacts/."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from authoring import labelstudio as ls
from authoring.server import LabelStudioServer
from build_split.cli import main
from tests.authoring.test_labelstudio_browser import ARTIFACTS, browser, login, open_task  # noqa: F401 - fixture

REPO = Path(__file__).resolve().parents[2]
DISMISSAL = "dismissed: the observatory's records name the maker; this context leaves it out"
# From the click to the `state` column saying accepted, with no command run in between. The figure is printed (the
# latency target is the benchmark's: benchmarks/bench_labelstudio.py); the bound here only says the service's own
# webhook cycle did it, not a later poll, so that a loaded machine cannot fail it (SOB_VERDICT_WITHIN_S changes it).
VERDICT_WITHIN_S = float(os.environ.get("SOB_VERDICT_WITHIN_S", "10.0"))  # under the 15 s poll


def first_hour_commands() -> list[list[str]]:
    """The README's `python -m build_split` commands of "A curator's first hour", in reading order, up to step 5."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## A curator's first hour", 1)[1].split("\n6. ", 1)[0]
    lines = [line.split("#", 1)[0].strip() for line in re.findall(r"^\s*(python -m build_split .*)$", section, re.M)]
    return [shlex.split(line)[1:] for line in lines]  # without "python"


def run_cli(args: list[str], ws: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main([*args[2:], "--workspace", str(ws)]) == 0, capsys.readouterr()
    return capsys.readouterr().out


def held_tasks(session: ls.LabelStudioSession, title: str) -> tuple[int, dict[str, Any]]:
    """The project's id and its tasks by record id (read through Label Studio's API: the service holds the store)."""
    (project,) = [p for p in session.client.projects.list(title=title) if p.title == title]
    tasks = list(session.client.tasks.list(project=project.id, fields="all"))
    return project.id, {task.data["record_id"]: task for task in tasks if task.data.get("record_id")}


def wait_for_annotation(session: ls.LabelStudioSession, task_id: int) -> None:
    """Label Studio stored the submission (the Submit button hides before its request is answered)."""
    deadline = time.monotonic() + 60
    while not session.client.tasks.get(id=task_id).annotations:
        assert time.monotonic() < deadline, f"task {task_id}: no annotation stored"
        time.sleep(0.05)


def wait_for_state(session: ls.LabelStudioSession, task_id: int, state: str, since: float) -> float:
    """Seconds from `since` until the task's `state` column says `state` (the service wrote the verdict)."""
    data: dict[str, Any] = {}
    while time.monotonic() - since < 60:
        data = session.client.tasks.get(id=task_id).data or {}
        if data.get("state") == state:
            return time.monotonic() - since
        time.sleep(0.05)
    raise AssertionError(f"task {task_id} never became {state}: {data.get('state')} / {data.get('feedback')}")


def submit(page: Any, session: ls.LabelStudioSession, task_id: int) -> float:
    page.locator("label:has(input[type=radio][name=accept])").click()
    page.get_by_role("button", name="Submit").click()
    submitted = time.monotonic()
    wait_for_annotation(session, task_id)
    return submitted


def resolve_flags(page: Any, text: str) -> None:
    editors = page.locator("textarea")
    editors.nth(editors.count() - 1).fill(text)  # Flag resolutions: the last editor, added with its Add button
    page.get_by_role("button", name="Add").last.click()
    page.wait_for_timeout(300)


def test_the_readme_first_hour_in_order_in_one_workspace(
    browser: Any,  # noqa: F811 - the fixture
    label_studio_server: LabelStudioServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    for key in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "LABEL_STUDIO_URL", "LABEL_STUDIO_API_KEY"):
        monkeypatch.delenv(key, raising=False)  # offline, as the first hour is
    build, status, rejections, serve = first_hour_commands()
    assert build[-4:] == ["--sample", "--release", "0.1.0", "--allow-unreviewed"] and status[-1] == "--status"
    assert rejections[-1] == "--rejections" and serve[-2:] == ["--start-label-studio", "--serve"]
    ws = tmp_path / "workspace"

    # Step 2: the sample's authored records come from a file; two are held for a person.
    out = run_cli(build, ws, capsys)
    assert "needs_review 2" in out
    # Step 3: where each is fixed, before Label Studio: the file, with its path and line.
    sample_file = REPO / "loaders" / "samples" / "hotpotqa" / "authored.jsonl"
    assert f"fix in {sample_file} line " in run_cli(status, ws, capsys)
    listed = run_cli(rejections, ws, capsys)
    held = re.findall(r"^needs_review (\w{12}) (sob-sample-\d+): (.*)$", listed, re.M)
    assert {source_id for _, source_id, _ in held} == {"sob-sample-0001", "sob-sample-0007"}, listed

    # Step 4: the service, on the session's Label Studio.
    title = f"first hour {uuid.uuid4().hex[:8]}: {{source}}"
    session = ls.LabelStudioSession(
        ls.LabelStudioSettings(url=label_studio_server.url, api_key=label_studio_server.api_key)
    )
    env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "LABEL_STUDIO_URL": label_studio_server.url,
        "LABEL_STUDIO_API_KEY": label_studio_server.api_key,
        "LABEL_STUDIO_PROJECT_TITLE": title,
        "SOB_WORKERS": "0",
    }
    args = [a for a in serve if a != "--start-label-studio"] + ["--workspace", str(ws)]
    service = subprocess.Popen(
        [sys.executable, *args], cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    page = browser.new_page(viewport={"width": 1600, "height": 1100})
    try:
        lines: list[str] = []
        while not any(text.startswith("serving:") for text in lines):
            text = service.stdout.readline()  # type: ignore[union-attr]
            assert text, f"the service ended: {''.join(lines)}{service.stderr.read()}"  # type: ignore[union-attr]
            lines.append(text)
        report = "".join(lines)
        # Every held or rejected record is a task (the two held, the two rejected), prefilled from the record.
        assert "pushed 4 task(s) (0 with a draft, 4 of held or rejected records)" in report, report
        project_id, tasks = held_tasks(session, title.format(source="hotpotqa"))
        telescope, longer = (next(t for rid, t in tasks.items() if rid.startswith(h[0])) for h in held)
        assert len(tasks) == 4
        for task in (telescope, longer):
            assert task.data["state"] == "needs_review" and task.data["open_flags"].startswith("R1 ")
            assert task.data["review_flags"].startswith("R1 [")
        assert telescope.data["open_flags"] == "R1 ungrounded_value $.maker; R2 ungrounded_value $.maker_country"
        assert "rejected" in {t.data["state"] for t in tasks.values()}

        # The curator opens the telescope record: its flags above the editors, its answer in them.
        login(page, label_studio_server)
        open_task(page, label_studio_server, project_id, telescope.id)
        assert "R1 [ungrounded_value] $.maker" in page.locator(".sob-flags").inner_text()
        assert "held in needs_review" in page.locator(".sob-feedback").inner_text()
        editors = page.locator("textarea")
        assert editors.nth(0).input_value() == held[0][2]
        assert json.loads(editors.nth(2).input_value())["maker"] == "Carl Zeiss Jena"
        page.screenshot(path=str(ARTIFACTS / "labelstudio_first_hour_held_task.png"))
        resolve_flags(page, f"R1 {DISMISSAL}\nR2 {DISMISSAL}")
        took = wait_for_state(session, telescope.id, "accepted", submit(page, session, telescope.id))
        sys.__stdout__.write(f"\ndismissal in the browser -> accepted on the task: {took:.2f} s\n")
        assert took <= VERDICT_WITHIN_S

        # The other: the seed answer was right, so the curator fixes the one value and says so.
        open_task(page, label_studio_server, project_id, longer.id)
        answer_editor = page.locator("textarea").nth(2)
        answer = json.loads(answer_editor.input_value())
        assert answer["longer"] == "Brannock Bridge"
        answer_editor.fill(json.dumps(answer | {"longer": "Hollin Canal"}, indent=2))
        resolve_flags(page, "R1 fixed")
        took = wait_for_state(session, longer.id, "accepted", submit(page, session, longer.id))
        sys.__stdout__.write(f"\na fixed value in the browser -> accepted on the task: {took:.2f} s\n")
        assert took <= VERDICT_WITHIN_S
        data = session.client.tasks.get(id=longer.id).data
        assert data["open_flags"] == "none" and data["feedback"].startswith("Verdict on annotation")
        open_task(page, label_studio_server, project_id, longer.id)
        page.screenshot(path=str(ARTIFACTS / "labelstudio_first_hour_accepted.png"))
    finally:
        page.close()
        service.send_signal(signal.SIGTERM)
        code = service.wait(timeout=60)
        sys.__stdout__.write(service.stdout.read())  # type: ignore[union-attr] - the service's cycles, for a failure's report
    assert code == 128 + signal.SIGTERM, service.stderr.read()  # type: ignore[union-attr]

    # Both are accepted in the store, the dismissal's note kept; --rejections gives the rejected ones' task URLs.
    listed = run_cli(rejections, ws, capsys)
    assert not re.search(r"^needs_review ", listed, re.M), listed
    assert f"fix in Label Studio {label_studio_server.url}/projects/{project_id}/data?task=" in listed
    status_out = run_cli(status, ws, capsys)
    assert "accepted 8" in status_out, status_out
