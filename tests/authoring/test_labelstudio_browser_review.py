"""A curator in headless Chromium marks evidence on the context and answers the reviewer's flags in a real
Label Studio: the draft's spans are prefilled, a new span is selected with the mouse under a field's label,
the reviewer pass (local fake Gemini) flags a field, the flag shows above the editors, and a dismissal
with a note lets the record move on. Screenshots go to test-artifacts/: look at them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from authoring import labelstudio as ls
from authoring import ls_state
from authoring.server import LabelStudioServer
from core.llm.cache import LLMCache
from core.llm.client import LLMClient
from core.llm.gemini_backend import GeminiBackend, GeminiSettings
from core.models import RecordState, SourceItem
from core.store import Store
from judge.review_stage import run_review
from judge.reviewer import LLMReviewer
from tests.authoring.test_labelstudio_browser import (  # noqa: F401 - browser is a fixture
    ARTIFACTS,
    browser,
    login,
    open_task,
    submit_and_wait,
)
from tests.llm.fakes import FakeGemini, review_answer
from validation.stage import run_validation

CONTEXT = (
    "Ingrid Solvang directed Marrow Creek Observatory from 1958 to 1977. Before that she studied astronomy at "
    "the University of Oslo, and in 1949 she moved to Elsford."
)
QUESTION = "Where did the director of Marrow Creek Observatory study, and from when did she direct it?"
SCHEMA = {
    "type": "object",
    "properties": {
        "director": {"type": "string", "description": "who directed the observatory"},
        "university": {"type": "string", "description": "where the director studied"},
        "first_year": {"type": "integer", "description": "the first year of the directorship"},
    },
    "required": ["director", "university", "first_year"],
}
ANSWER = {"director": "Ingrid Solvang", "university": "University of Oslo", "first_year": 1958}
DISMISSAL = "R1 dismissed: the question asks from when she directed it, so 1958 is the one answer"


@pytest.fixture
def fake_gemini(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGemini]:
    monkeypatch.setenv("GEMINI_API_KEY", "test-key-not-real")
    server = FakeGemini()
    server.answer = review_answer(
        lambda record: [{"code": "answer_not_unique", "path": "$.first_year", "reason": "1958 or 1977?"}]
    )
    yield server
    server.close()


def select_words(page: Any, words: str) -> None:
    """Drag the mouse over `words` in the context, as a curator selects text."""
    box = page.evaluate(
        """words => {
          const el = [...document.querySelectorAll('.lsf-richtext__line')].find(e => e.textContent.includes(words));
          const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            const i = n.textContent.indexOf(words);
            if (i >= 0) {
              const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + words.length);
              const b = r.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom];
            }
          }
          return null;
        }""",
        words,
    )
    assert box is not None, f"{words!r} is not on the page"
    left, top, right, bottom = box
    page.mouse.move(left + 2, (top + bottom) / 2)
    page.mouse.down()
    page.mouse.move(right - 2, (top + bottom) / 2, steps=8)
    page.mouse.up()
    page.wait_for_timeout(500)


def highlights(page: Any) -> list[str]:
    return page.locator("span.htx-highlight").evaluate_all("els => els.map(e => e.innerText.trim())")


def test_curator_marks_evidence_and_dismisses_a_reviewer_flag_in_the_browser(
    browser: Any,  # noqa: F811 - the fixture
    label_studio_server: LabelStudioServer,
    ls_session: ls.LabelStudioSession,
    fake_gemini: FakeGemini,
    tmp_path: Path,
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    item = SourceItem(
        source="hotpotqa", source_id="h1", context=CONTEXT, question=QUESTION, answer="University of Oslo"
    )
    proposed = {"$.director": "Ingrid Solvang", "$.first_year": {"kind": "normalised", "quote": "1958"}}
    draft = {"question": QUESTION, "json_schema": SCHEMA, "ground_truth": ANSWER, "model_version": "flash@draft-v2"}
    with Store.open(tmp_path / "workspace") as store:
        store.upsert_source_items([item])
        ls.push_tasks(store, ls_session, "hotpotqa", {"h1": draft | {"evidence": proposed}})
        project = ls_state.get_project(store, ls_session.base_url, "hotpotqa")
        (row,) = ls_state.tasks_by_id(store, ls_session.base_url, project.project_id).values()

        page = browser.new_page(viewport={"width": 1600, "height": 1100})
        login(page, label_studio_server)
        open_task(page, label_studio_server, project.project_id, row.task_id)
        # One label per field of the draft's answer; the draft's spans are already marked.
        for label in ("director", "university", "first_year"):
            assert page.locator(".lsf-label", has_text=label).count() >= 1
        assert sorted(highlights(page)) == ["1958", "Ingrid Solvang"]

        # The curator marks where the university comes from: its label, then the words.
        page.locator(".lsf-label", has_text="university").first.click()
        select_words(page, "University of Oslo")
        assert "University of Oslo" in highlights(page)
        page.screenshot(path=str(ARTIFACTS / "labelstudio_evidence_marking.png"))
        page.locator("label:has(input[type=radio][name=accept])").click()
        submit_and_wait(page, "Submit")

        assert ls.pull_annotations(store, ls_session, "hotpotqa").counts["authored"] == 1
        (stored,) = store.records("hotpotqa")
        evidence = stored.record.output.evidence
        uni = evidence["$.university"]
        assert (uni.kind, uni.quote, CONTEXT[uni.start : uni.end]) == (
            "span",
            "University of Oslo",
            "University of Oslo",
        )
        assert evidence["$.director"].quote == "Ingrid Solvang" and evidence["$.first_year"].quote == "1958"
        assert run_validation(store, "hotpotqa") == {"validated": 1}

        # The reviewer pass flags the first year; the flag is shown above the editors.
        backend = GeminiBackend(GeminiSettings(base_url=fake_gemini.url))
        client = LLMClient(backend, "gemini-2.5-flash", cache=LLMCache(store.con))
        assert run_review(store, "hotpotqa", LLMReviewer(client)) == {"flagged": 1, "flags": 1}
        assert ls.bounce_review_flags(store, ls_session, "hotpotqa") == 1
        open_task(page, label_studio_server, project.project_id, row.task_id)
        flags_box = page.locator(".sob-flags").inner_text()
        assert "R1 [answer_not_unique] $.first_year: 1958 or 1977?" in flags_box
        assert "Sent back by the reviewer pass" in page.locator(".sob-feedback").inner_text()
        assert sorted(highlights(page)) == ["1958", "Ingrid Solvang", "University of Oslo"]  # the spans stay
        page.screenshot(path=str(ARTIFACTS / "labelstudio_reviewer_flags.png"))

        # The curator dismisses the flag with a note (a new text is added with its Add button) and updates.
        editors = page.locator("textarea")
        resolutions = editors.nth(editors.count() - 1)
        resolutions.fill(DISMISSAL)
        page.get_by_role("button", name="Add").last.click()
        page.wait_for_timeout(500)
        page.screenshot(path=str(ARTIFACTS / "labelstudio_flag_resolution.png"), full_page=True)
        submit_and_wait(page, "Update")
        page.close()

        assert ls.pull_annotations(store, ls_session, "hotpotqa").counts["authored"] == 1
        (stored,) = store.records("hotpotqa")
        assert stored.state == RecordState.AUTHORED
        (flag,) = stored.record.provenance.review.flags
        assert (flag.status, flag.note) == ("dismissed", DISMISSAL.split(": ", 1)[1])
