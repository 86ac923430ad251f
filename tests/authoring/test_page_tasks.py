"""The OCR transcript a curator corrects: the correction kept in provenance, the page's olmOCR-bench
tests on the corrected text, evidence spans carried over, page image URLs. Real page, real tests:
the Lincoln letter of tests/data/olmocr_bench, whose olmOCR transcript misreads the date."""

from __future__ import annotations

from pathlib import Path

import pytest

from authoring.page_tasks import (
    LOCAL_FILES_URL,
    PageImageError,
    apply_transcript,
    correction_outcomes,
    page_urls,
    remap_evidence,
    transcript_text,
)
from core.evidence import Evidence
from core.models import Reason, SourceItem
from loaders.olmocr_bench import load_olmocr_bench

SLICE = Path(__file__).resolve().parents[1] / "data" / "olmocr_bench"
OCR_DATE = "January 15th, 1864"  # what olmOCR read
PAGE_DATE = "January 10th 1864."  # what the page says (and olmOCR-bench's verified test)


@pytest.fixture(scope="module")
def lincoln(tmp_path_factory: pytest.TempPathFactory) -> tuple[SourceItem, Path]:
    tree = tmp_path_factory.mktemp("bench")
    (tree / "pdfs").mkdir()
    lines = [line for line in (SLICE / "dataset.jsonl").read_text().splitlines() if '"lincoln_letter.pdf"' in line]
    (tree / "old_scans.jsonl").write_text("\n".join(lines) + "\n")
    (tree / "pdfs" / "lincoln_letter.pdf").write_bytes((SLICE / "pdfs" / "lincoln_letter.pdf").read_bytes())
    workspace = tmp_path_factory.mktemp("ws")
    result = load_olmocr_bench(tree, workspace=workspace, markdown_dir=SLICE / "olmocr_pipeline")
    (item,) = result.items
    return item, workspace


def transcript(text: str) -> list[dict]:
    return [{"from_name": "transcript", "to_name": "context", "type": "textarea", "value": {"text": [text]}}]


def test_the_page_is_rendered_into_the_workspace_and_served_by_relative_url(lincoln) -> None:
    item, workspace = lincoln
    assert item.metadata["page_images"] == ["media/page-images/lincoln_letter/page-1.png"]
    png = workspace / item.metadata["page_images"][0]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from loaders.page_images import png_size

    assert max(png_size(png)) == 1600  # readable: the long side at 1600 pixels
    assert page_urls(item, workspace, workspace / "media") == [
        LOCAL_FILES_URL + "page-images/lincoln_letter/page-1.png"
    ]
    assert page_urls(item, workspace, workspace.parent) == [
        LOCAL_FILES_URL + f"{workspace.name}/media/page-images/lincoln_letter/page-1.png"
    ]
    with pytest.raises(PageImageError, match="not under Label Studio's local-files document root"):
        page_urls(item, workspace, workspace / "elsewhere")


def test_a_correction_that_fixes_the_page_passes_its_tests_and_is_kept_in_provenance(lincoln) -> None:
    item, _ = lincoln
    assert OCR_DATE in item.context and item.metadata["ocr_tests_passed"] == 2
    corrected = item.context.replace(OCR_DATE, PAGE_DATE)
    problems: list[Reason] = []
    new_item, _, summary = apply_transcript(item, transcript(corrected), {}, problems)
    assert not problems and new_item.context == corrected.strip() and new_item.source_id == item.source_id
    assert summary is not None and summary["kind"] == "ocr_transcript"
    assert summary["chars_changed"] == 3  # 5 -> 0, the comma out, the full stop in
    assert "-January 15th, 1864" in summary["diff"] and "+January 10th 1864." in summary["diff"]
    assert (summary["bench_tests"], summary["bench_passed_ocr"], summary["bench_passed_corrected"]) == (3, 2, 3)
    assert summary["bench_failed_corrected"] == [] and summary["bench_pass_rate_corrected"] == 1.0
    assert correction_outcomes(summary) == ["ocr_transcript_corrected"]


def test_a_wrong_correction_is_reported_by_the_pages_tests(lincoln) -> None:
    item, _ = lincoln
    wrong = item.context.replace("Brigadier General Trimble", "Brigadier General Tremble")
    new_item, _, summary = apply_transcript(item, transcript(wrong), {}, [])
    assert "Tremble" in new_item.context
    assert summary["bench_passed_ocr"] == 2 and summary["bench_passed_corrected"] == 1
    assert summary["bench_failed_corrected"] == ["lincoln_letter_minediff_00", "lincoln_letter_minediff_01"]
    assert correction_outcomes(summary) == ["ocr_transcript_corrected", "corrected_transcript_fails_bench_tests"]
    assert correction_outcomes(None) == []


def test_an_untouched_or_missing_transcript_keeps_the_ocr_and_an_emptied_one_goes_back(lincoln) -> None:
    item, _ = lincoln
    evidence = {"$.author": Evidence(quote="Abraham Lincoln", start=0, end=15)}
    for result in ([], transcript(item.context + "\n  ")):
        same, moved, summary = apply_transcript(item, result, evidence, [])
        assert same is item and summary is None and moved == evidence
    problems: list[Reason] = []
    same, _, summary = apply_transcript(item, transcript("  \n "), {}, problems)
    assert same is item and summary is None
    assert [p.code for p in problems] == ["empty_transcript"]
    assert transcript_text([{"from_name": "question", "value": {"text": ["q"]}}]) is None


def test_evidence_spans_follow_the_correction() -> None:
    original = "Dated January 15th, 1864 at Washington City by Abraham Lincoln"
    corrected = "Dated January 10th 1864. at Washington City by Abraham Lincoln"
    spans = {
        "$.date": Evidence(quote="January 15th, 1864", start=6, end=24),
        "$.city": Evidence(quote="Washington City", start=28, end=43),
        "$.author": Evidence(quote="Abraham Lincoln", start=47, end=62),
        "$.none": Evidence(kind="absent"),
    }
    for path, ev in spans.items():
        if ev.start is not None:
            assert original[ev.start : ev.end] == ev.quote, path
    moved = remap_evidence(spans, original, corrected)
    assert moved["$.date"].quote == "January 10th 1864"
    assert moved["$.city"].quote == "Washington City" and moved["$.author"].quote == "Abraham Lincoln"
    for path in ("$.date", "$.city", "$.author"):
        assert corrected[moved[path].start : moved[path].end] == moved[path].quote
    assert moved["$.none"] == spans["$.none"]
