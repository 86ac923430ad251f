"""The whole path for a curator's own documents: drafts and judge prompts through the real SDK (fake server),
and scoring a documents release."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotation_ui_config import label_config
from authoring.drafts import load_drafts, run_drafting
from build_split.cli import main as build_split
from core.models import SourceItem
from core.store import Store
from judge.llm_judge import LLMJudge
from scoring.cli import main as score
from scoring.inputs import load_release
from tests.llm.conftest import make_record
from tests.llm.fakes import FakeGemini

CONTEXT = "INVOICE BW-2291\nBrightwater Print Co.\nBill to: Fenwick Garden Society\nTotal due 240.00"
SCHEMA = {
    "type": "object",
    "properties": {
        "invoice_number": {"type": "string", "description": "as printed"},
        "seller": {"type": "string", "description": "who issued it"},
        "total_due": {"type": "string", "description": "as printed"},
    },
    "required": ["invoice_number", "seller", "total_due"],
    "additionalProperties": False,
}
TRUTH = {"invoice_number": "BW-2291", "seller": "Brightwater Print Co.", "total_due": "240.00"}


def test_a_document_is_drafted_with_its_own_prompt(fake_gemini: FakeGemini, make_gemini_client, store: Store) -> None:
    item = SourceItem(
        source="documents", source_id="bills/invoice.txt", context=CONTEXT, metadata={"file": "bills/invoice.txt"}
    )
    store.upsert_source_items([item])
    fake_gemini.answer = lambda req: json.dumps(
        {"question": "Who issued invoice BW-2291 and what is due?", "json_schema": json.dumps(SCHEMA),
         "ground_truth": json.dumps(TRUTH)}
    )  # fmt: skip
    client = make_gemini_client(fake_gemini, store=store, model="gemini-2.5-flash")
    assert run_drafting(store, "documents", client) == {"drafted": 1}
    user = fake_gemini.requests[0].body["contents"][0]["parts"][0]["text"]
    assert 'one of the curator\'s own documents ("bills/invoice.txt"' in user
    assert f"<context>\n{json.dumps(CONTEXT)}\n</context>" in user
    draft = load_drafts(store.con, "documents")["bills/invoice.txt"]
    assert draft.status == "drafted" and draft.question == "Who issued invoice BW-2291 and what is due?"
    assert draft.prompt_version.startswith("draft/documents/draft_system-")


def test_the_judge_names_the_material_and_label_studio_shows_pages() -> None:
    record = make_record(1, source="documents", context=CONTEXT)
    request = LLMJudge(client=type("C", (), {"name": "gemini:gemini-2.5-pro"})()).request_for(record)
    assert "document (the curator's own)" in request.user
    assert 'valueList="$pages"' in label_config("documents")  # the PDF's pages beside the transcript


@pytest.fixture
def documents_release(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf"))
    ws = tmp_path / "ws"
    args = ["--source", "documents", "--sample", "--release", "0.1.0", "--allow-unreviewed"]
    assert build_split([*args, "--judge", "heuristic", "--no-review", "--workspace", str(ws), "--quiet"]) == 0
    return ws / "releases" / "documents" / "0.1.0"


def test_a_documents_release_is_scored(
    documents_release: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    release = load_release(documents_release)
    assert release.modality == "text" and set(release.records)
    wrong = sorted(release.records)[0]
    lines = [
        {"record_id": rid, "response": {} if rid == wrong else record.ground_truth}
        for rid, record in sorted(release.records.items())
    ]
    predictions = tmp_path / "model-a.jsonl"
    predictions.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    capsys.readouterr()
    argv = ["--release", str(documents_release), "--predictions", str(predictions), "--json", "--bootstrap", "0"]
    assert score(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["release"]["config"] == "documents" and report["modality"] == "text" and report["records"] == 5
    (model,) = report["models"]
    assert model["model"] == "model-a" and model["n"] == 5
    assert model["overall"]["value_accuracy"]["mean"] == pytest.approx(0.8)  # four answers right, one empty
