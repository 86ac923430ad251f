"""A curator's own documents in a real Label Studio: the PDF's page image beside its OCR transcript, a text file
without one, and a submitted annotation (with the corrected transcript) pulled back as a record."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import authoring.labelstudio as ls
from annotation_ui_config import label_config
from authoring.page_tasks import LOCAL_FILES_URL
from core.models import RecordState
from core.store import Store
from loaders.documents import load_documents
from tests.authoring.test_labelstudio import server_tasks, task_of

REPO = Path(__file__).resolve().parents[2]
PDF = REPO / "loaders" / "samples" / "olmocr" / "bench_data" / "pdfs" / "tables" / "harbour_ferries.pdf"
SCHEMA = {
    "type": "object",
    "properties": {
        "route": {"type": "string", "description": "route code"},
        "destination": {"type": "string", "description": "where it goes"},
        "fare": {"type": "string", "description": "as printed"},
    },
    "required": ["route", "destination", "fare"],
    "additionalProperties": False,
}
ANSWER = {"route": "F3", "destination": "Ynys Bach", "fare": "11.00"}


def textarea(name: str, text: str) -> dict:
    return {"from_name": name, "to_name": "context", "type": "textarea", "value": {"text": [text]}}


def test_documents_tasks_show_the_pdf_pages_and_pull_the_corrected_transcript(
    store: Store, ls_session, tmp_path: Path
) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    shutil.copy(PDF, folder / "ferries.pdf")
    (folder / "note.txt").write_text("Ferry F3 runs on Sundays too.", encoding="utf-8")
    result = load_documents(folder, workspace=Path(store.path).parent, ocr_server="cpu")
    assert result.problems == []
    store.upsert_source_items(result.items)

    pushed = ls.push_tasks(store, ls_session, "documents")
    assert pushed.pushed == 2
    project = ls_session.client.projects.get(id=pushed.project_id)
    assert project.label_config.strip() == label_config("documents").strip()
    tasks = {t.data["source_id"]: t for t in server_tasks(ls_session, pushed.project_id)}
    (page,) = tasks["ferries.pdf"].data["pages"]
    assert page.startswith(LOCAL_FILES_URL) and page.endswith("page-1.png")
    assert tasks["note.txt"].data["pages"] == []  # a text file has no page image
    (prediction,) = tasks["ferries.pdf"].predictions  # the OCR transcript, prefilled for correction
    assert {r["from_name"] for r in prediction.result} == {"transcript"}

    ocr = next(item for item in result.items if item.source_id == "ferries.pdf").context
    corrected = ocr + "\nCorrected by the curator."
    annotation = [
        textarea("question", "Which route has the highest fare, where does it go, and what is the fare?"),
        textarea("json_schema", json.dumps(SCHEMA)),
        textarea("ground_truth", json.dumps(ANSWER)),
        textarea("transcript", corrected),
        {"from_name": "verdict", "to_name": "context", "type": "choices", "value": {"choices": ["accept"]}},
    ]
    ls_session.client.annotations.create(
        id=task_of(store, ls_session, "ferries.pdf", "documents"), result=annotation, lead_time=30.0
    )
    pulled = ls.pull_annotations(store, ls_session, "documents")
    assert pulled.counts["authored"] == 1
    (stored,) = list(store.records("documents"))
    assert stored.state == RecordState.AUTHORED
    assert stored.record.input.context == corrected.strip()  # the corrected transcript became the context
    assert stored.record.provenance.context_correction["chars_changed"] > 0
