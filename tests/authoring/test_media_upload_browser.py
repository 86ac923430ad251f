"""Page images on a Label Studio that cannot read the workspace: the toolkit knows the server by URL and token
only, its workspace lies outside what the server may serve as local files, and the server's media root is its
own data dir. The page is uploaded through the API (no task made of it), a curator sees it in Chromium beside
the OCR transcript, corrects one misread word, and the correction reaches the release. A second push uploads
nothing again."""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageStat

from authoring import labelstudio as ls
from authoring import ls_state
from authoring.media_upload import media_key
from authoring.server import LabelStudioServer
from core.store import Store
from tests.authoring.test_labelstudio_browser import ARTIFACTS, browser, login, submit_and_wait  # noqa: F401 - the fixture
from tests.authoring.test_labelstudio_image_browser import ANSWER, QUESTION, SCHEMA, lincoln_item


@pytest.fixture
def outside_workspace(label_studio_server: LabelStudioServer) -> Iterator[Path]:
    """A workspace in a folder of its own, not under the server's local-files document root."""
    folder = Path(tempfile.mkdtemp(prefix="sob-remote-ws-"))
    try:
        workspace = folder / "workspace"
        with pytest.raises(ValueError):
            workspace.resolve().relative_to(label_studio_server.files_root)
        yield workspace
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_server_without_the_workspace_shows_the_uploaded_page_and_the_correction_is_released(
    browser: Any,  # noqa: F811 - the fixture imported above
    label_studio_server: LabelStudioServer,
    outside_workspace: Path,
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    workspace = outside_workspace
    # URL and token only: no local-files root, nothing about where the server keeps its files
    title = f"media upload {uuid.uuid4().hex[:8]}: {{source}}"
    settings = ls.LabelStudioSettings(url=label_studio_server.url, api_key=label_studio_server.api_key)
    session = ls.LabelStudioSession(dataclasses.replace(settings, project_title=title))
    item = lincoln_item(workspace)
    draft = {"question": QUESTION, "json_schema": SCHEMA, "ground_truth": ANSWER, "model_version": "draft@v1"}
    with Store.open(workspace) as store:
        store.upsert_source_items([item])
        assert ls.push_tasks(store, session, "olmocr", {item.source_id: draft}).pushed == 1
        project = ls_state.get_project(store, session.base_url, "olmocr")
        (task_id,) = ls_state.tasks_by_id(store, session.base_url, project.project_id)
        assert session.media_modes[project.project_id] == "upload"  # auto: the server refused the local folder
        media = ls_state.get_project(store, session.base_url, media_key("olmocr"))
        (url,) = session.client.tasks.get(id=task_id).data["pages"]
        assert url.startswith(f"/data/upload/{media.project_id}/") and url.endswith(".png")
        # the upload made no task, and lies in the server's own media root, not in the workspace
        assert len(list(session.client.tasks.list(project=project.project_id))) == 1
        assert list(session.client.tasks.list(project=media.project_id)) == []
        (uploaded,) = (label_studio_server.data_dir / "media" / "upload" / str(media.project_id)).iterdir()
        assert uploaded.read_bytes() == (workspace / item.metadata["page_images"][0]).read_bytes()
        uploads = store.con.execute("SELECT count(*) FROM ls_media").fetchone()[0]

        page = browser.new_page(viewport={"width": 1800, "height": 1100})
        login(page, label_studio_server)
        served: list[tuple[int, str]] = []
        page.on("response", lambda r: served.append((r.status, r.url)) if "/data/upload/" in r.url else None)
        page.goto(f"{label_studio_server.url}/projects/{project.project_id}/data?task={task_id}")
        transcript = page.locator('textarea[name^="transcript"]')
        transcript.wait_for(timeout=60_000)
        page.wait_for_function(
            "() => [...document.querySelectorAll('img')].some(i => i.complete && i.naturalWidth > 0)", timeout=60_000
        )
        shot = ARTIFACTS / "labelstudio_uploaded_page_task.png"
        page.screenshot(path=str(shot))
        assert (200, label_studio_server.url + url) in served
        widths = page.locator("img").evaluate_all("imgs => imgs.filter(i => i.complete).map(i => i.naturalWidth)")
        assert 1297 in widths  # the rendered page (1297 x 1600), not a broken-image placeholder
        with Image.open(shot) as image:  # the screenshot shows something: not one flat colour
            low, high = zip(*ImageStat.Stat(image.convert("L")).extrema, strict=True)
            assert high[0] - low[0] > 100

        transcript.fill(transcript.input_value().replace("15th,", "10th"))
        page.locator("label:has(input[type=radio][name=accept])").click()
        submit_and_wait(page)  # Label Studio has stored the annotation (its button hides before): the pull finds it
        page.close()

        pulled = ls.pull_annotations(store, session, "olmocr")
        assert pulled.counts["authored"] == 1 and pulled.counts["ocr_transcript_corrected"] == 1
        # pushing again sends no image twice
        assert ls.push_tasks(store, session, "olmocr", {item.source_id: draft}).pushed == 0
        assert store.con.execute("SELECT count(*) FROM ls_media").fetchone()[0] == uploads == 1

        from core.version import TOOLKIT_VERSION
        from exports.release import write_release
        from judge.heuristic import HeuristicJudge
        from judge.stage import run_judging
        from validation.stage import run_validation

        assert run_validation(store, "olmocr").get("validated") == 1
        judge = HeuristicJudge()
        assert run_judging(store, "olmocr", judge, 60).get("accepted") == 1
        release = write_release(
            store,
            "olmocr",
            "0.1.0",
            workspace,
            judge_name=judge.name,
            judge_version=judge.version,
            threshold=60,
            toolkit_version=TOOLKIT_VERSION,
            plots=False,
        )
    from datasets import load_dataset

    rows = load_dataset(str(release.path), "image", split="train")
    assert rows.num_rows == 1 and "January 10th 1864" in rows[0]["context"] and "January 15th" not in rows[0]["context"]


def test_local_files_asked_for_on_a_server_that_cannot_read_the_workspace_is_one_clear_error(
    label_studio_server: LabelStudioServer, outside_workspace: Path
) -> None:
    from authoring.page_tasks import PageImageError

    settings = ls.LabelStudioSettings(url=label_studio_server.url, api_key=label_studio_server.api_key)
    title = f"local {uuid.uuid4().hex[:8]}: {{source}}"
    session = ls.LabelStudioSession(dataclasses.replace(settings, media="local-files", project_title=title))
    item = lincoln_item(outside_workspace)
    with Store.open(outside_workspace) as store:
        store.upsert_source_items([item])
        with pytest.raises(PageImageError, match="--label-studio-media upload"):
            ls.push_tasks(store, session, "olmocr")
