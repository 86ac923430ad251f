"""A curator's view of an olmOCR-bench page: headless Debian Chromium logs in to a real Label Studio,
sees the page image (rendered with pdftoppm, served as a Label Studio local file) beside the OCR
transcript, corrects one misread word, submits; the record goes through validation, the judge and a
release, and the released context holds the correction.

The page is the Lincoln letter of tests/data/olmocr_bench with its real olmOCR transcript, which reads
the date as "January 15th, 1864"; the page says "January 10th". Screenshots go to test-artifacts/.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from authoring import labelstudio as ls
from authoring import ls_state
from authoring.server import LabelStudioServer
from core.store import Store
from tests.authoring.test_labelstudio_browser import ARTIFACTS, browser, login, submit_and_wait  # noqa: F401 - fixture

SLICE = Path(__file__).resolve().parents[1] / "data" / "olmocr_bench"
QUESTION = "Who signed this letter, on what date, and which prisoners does it offer to exchange?"
SCHEMA = {
    "type": "object",
    "properties": {
        "signed_by": {"type": "string", "description": "Who signed the letter"},
        "date": {"type": "string", "description": "The date written at the head of the letter"},
        "offered_prisoner": {"type": "string", "description": "The prisoner offered in the exchange"},
        "exchanged_for": {"type": "string", "description": "The prisoner asked for in return"},
    },
    "required": ["signed_by", "date", "offered_prisoner", "exchanged_for"],
    "additionalProperties": False,
}
ANSWER = {
    "signed_by": "Abraham Lincoln",
    "date": "January 10th 1864",
    "offered_prisoner": "Brigadier General Trimble",
    "exchanged_for": "Major White",
}


def lincoln_item(workspace: Path):
    from loaders.olmocr_bench import load_olmocr_bench

    tree = workspace.parent / "bench"
    (tree / "pdfs").mkdir(parents=True)
    lines = [line for line in (SLICE / "dataset.jsonl").read_text().splitlines() if '"lincoln_letter.pdf"' in line]
    (tree / "old_scans.jsonl").write_text("\n".join(lines) + "\n")
    (tree / "pdfs" / "lincoln_letter.pdf").write_bytes((SLICE / "pdfs" / "lincoln_letter.pdf").read_bytes())
    (item,) = load_olmocr_bench(tree, workspace=workspace, markdown_dir=SLICE / "olmocr_pipeline").items
    return item


def page_image_widths(page: Any) -> list[int]:
    """Natural widths of the loaded images (Label Studio shows a fetched page as a blob: URL)."""
    return page.locator("img").evaluate_all("imgs => imgs.filter(i => i.complete).map(i => i.naturalWidth)")


def test_curator_sees_the_page_corrects_one_ocr_word_and_the_release_holds_it(
    browser: Any,  # noqa: F811 - the fixture imported above
    label_studio_server: LabelStudioServer,
    ls_session: ls.LabelStudioSession,
    tmp_path: Path,
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    workspace = tmp_path / "workspace"
    item = lincoln_item(workspace)
    assert "January 15th, 1864" in item.context and "January 10th" not in item.context
    draft = {"question": QUESTION, "json_schema": SCHEMA, "ground_truth": ANSWER, "model_version": "draft@v1"}
    with Store.open(workspace) as store:
        store.upsert_source_items([item])
        pushed = ls.push_tasks(store, ls_session, "olmocr", {item.source_id: draft})
        assert pushed.pushed == 1 and pushed.with_draft == 1
        project = ls_state.get_project(store, ls_session.base_url, "olmocr")
        (task_id,) = ls_state.tasks_by_id(store, ls_session.base_url, project.project_id)

        page = browser.new_page(viewport={"width": 1800, "height": 1100})
        login(page, label_studio_server)
        served: list[tuple[int, str, str]] = []
        page.on(
            "response",
            lambda r: (
                served.append((r.status, r.url, r.headers.get("content-type", "")))
                if "/data/local-files/" in r.url
                else None
            ),
        )
        page.goto(f"{label_studio_server.url}/projects/{project.project_id}/data?task={task_id}")
        # a prefilled editor's textarea is named "<control>:<region id>"
        transcript = page.locator('textarea[name^="transcript"]')
        transcript.wait_for(timeout=60_000)
        page.wait_for_function(
            "() => [...document.querySelectorAll('img')].some(i => i.complete && i.naturalWidth === 1297)",
            timeout=60_000,
        )
        page.wait_for_timeout(1000)
        page.screenshot(path=str(ARTIFACTS / "labelstudio_olmocr_page_task.png"))

        # The curator sees the page itself, as Label Studio serves it from the workspace ...
        ((status, url, kind),) = served
        assert status == 200 and kind == "image/png"
        assert "/data/local-files/?d=" in url and url.endswith("workspace/media/page-images/lincoln_letter/page-1.png")
        assert 1297 in page_image_widths(page)  # the rendered page (1297 x 1600), not a broken-image placeholder
        body = page.inner_text("body")
        assert "House rules: olmOCR-bench (page image and its OCR transcript)" in body
        assert "reading order" in body and "formula extraction" in body and "table lookup" in body
        # ... beside the OCR transcript, prefilled and editable, and the draft in the record editors
        assert transcript.input_value().strip() == item.context.strip()
        assert page.locator('textarea[name^="question"]').input_value() == QUESTION

        # One misread word corrected against the page, then accept and submit.
        transcript.fill(transcript.input_value().replace("15th,", "10th"))
        page.locator("label:has(input[type=radio][name=accept])").click()
        transcript.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "labelstudio_olmocr_corrected.png"))
        submit_and_wait(page)  # Label Studio has stored the annotation: the pull below finds it
        page.close()

        pulled = ls.pull_annotations(store, ls_session, "olmocr")
        assert pulled.counts["authored"] == 1 and pulled.counts["ocr_transcript_corrected"] == 1
        # reported: the corrected date still lacks the full stop the page shows, so one page test fails
        assert pulled.counts["corrected_transcript_fails_bench_tests"] == 1
        (stored,) = list(store.records("olmocr"))
        record = stored.record
        assert "January 10th 1864" in record.input.context and "January 15th" not in record.input.context
        correction = record.provenance.context_correction
        assert correction["chars_changed"] == 2 and "+January 10th 1864" in correction["diff"]
        # the page's own tests on the corrected text: the date test still wants the full stop the page shows
        assert (correction["bench_passed_ocr"], correction["bench_passed_corrected"], correction["bench_tests"]) == (
            2,
            2,
            3,
        )
        assert correction["bench_failed_corrected"] == ["lincoln_letter_minediff_00"]

        # validation (the date is grounded only in the corrected context), the judge, the release
        from core.version import TOOLKIT_VERSION
        from exports.release import write_release
        from judge.heuristic import HeuristicJudge
        from judge.stage import run_judging
        from validation.stage import run_validation

        validated = run_validation(store, "olmocr")
        assert validated.get("validated") == 1, (validated, [r.reasons for r in store.records("olmocr")])
        judge = HeuristicJudge()
        judged = run_judging(store, "olmocr", judge, 60)
        assert judged.get("accepted") == 1, judged
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
    assert rows.num_rows == 1 and rows[0]["source_pdf"] == "lincoln_letter.pdf"
    assert "January 10th 1864" in rows[0]["context"] and "January 15th" not in rows[0]["context"]
    card = (release.path / "README.md").read_text()
    assert "allenai/olmOCR-bench" in card and "olmOCR-mix-0225" not in card
