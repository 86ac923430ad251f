"""The olmOCR-bench loader: tests, the quality gate, categories, the Hub fetch and the sample."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from core.models import SourceItem
from loaders.bench_tests import find_chromium, load_test_file, score_pages, with_default_baseline
from loaders.olmocr_bench import (
    BENCH_CATEGORIES,
    bench_root,
    load_olmocr_bench,
    pdf_page_count,
    resolve_categories,
    sample_path,
)
from tests.ci import missing as missing_part


def require(*tools: str, chromium: bool = False) -> None:
    """A missing tool skips the test on a developer's machine and fails it in CI."""
    missing = [t for t in tools if shutil.which(t) is None]
    if chromium and find_chromium() is None:
        missing.append("chromium")
    try:
        import olmocr.bench.tests  # noqa: F401
    except ImportError as exc:
        missing.append(f"olmocr's bench test classes ({exc}; pip install -e '.[image]')")
    if missing:
        message = f"needs {', '.join(missing)} (apt-get install -y poppler-utils tesseract-ocr chromium)"
        missing_part(message)


@pytest.fixture(scope="module")
def slice_dir(test_data: Path) -> Path:
    return test_data / "olmocr_bench"


@pytest.fixture(scope="module")
def shipped(slice_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    """The real slice scored on the real olmOCR output shipped with it (no OCR run)."""
    require(chromium=True)
    return load_olmocr_bench(
        slice_dir, workspace=tmp_path_factory.mktemp("ws"), markdown_dir=slice_dir / "olmocr_pipeline"
    )


def by_id(items: list[SourceItem]) -> dict[str, SourceItem]:
    return {item.source_id: item for item in items}


# -- the real slice -----------------------------------------------------------------------------


def test_real_tests_load_with_olmocrs_classes(slice_dir: Path) -> None:
    require(chromium=True)  # its math tests render their equations in Chromium when built
    loaded = load_test_file(slice_dir / "dataset.jsonl")
    assert not loaded.problems and loaded.lines == 99
    tests = [t for group in loaded.by_pdf.values() for t in group]
    assert Counter(t.type for t in tests) == {"present": 30, "absent": 24, "table": 20, "order": 13, "math": 12}
    assert len(loaded.by_pdf) == 20 and "headers_footers/ff0f0b22c55d8b90dd77d153f48e144fc9db_pg2.pdf" in loaded.by_pdf
    blanks = load_test_file(slice_dir / "blanks.jsonl")
    assert [t.type for t in blanks.by_pdf["blank_book_pg1.pdf"]] == ["baseline"]


def test_shipped_olmocr_markdown_is_scored_on_each_pages_own_tests(shipped, slice_dir: Path) -> None:
    items = by_id(shipped.items)
    # 21 PDFs: 18 pass the gate; the blank book page has only a baseline test, one olmOCR answer
    # came back empty, and test-graphical-text passes 1 of its 3 real tests (olmocr's benchmark,
    # which adds a default baseline test, would count 2/4 = 50% and keep it)
    assert len(items) == 18 and shipped.rows_read == 100
    assert sorted((p.code, json.loads(p.raw)["pdf"]) for p in shipped.problems) == [
        ("no_tests", "blank_book_pg1.pdf"),
        ("ocr_below_gate", "test-graphical-text.pdf"),
        ("ocr_empty", "headers_footers/ffaac214730d2b8c2ec842e3618ccb9c4259_pg1.pdf"),
    ]
    below = next(p for p in shipped.problems if p.code == "ocr_below_gate")
    assert "1/3" in below.message and json.loads(below.raw)["ocr_pass_rate"] == 0.3333
    rates = {k: (i.metadata["ocr_tests_passed"], i.metadata["ocr_tests"]) for k, i in items.items()}
    assert rates["multi_column_miss.pdf"] == (10, 10)
    assert rates["earnings.pdf"] == (4, 5)
    assert rates["mathfuncs.pdf"] == (6, 7) and items["mathfuncs.pdf"].metadata["ocr_failed_tests"] == ["mathfuncs_06"]
    assert rates["mattsnotes.pdf"] == (4, 5)  # three pages: each test runs on its own page's markdown
    assert sum(p for p, _ in rates.values()) == 84 and sum(t for _, t in rates.values()) == 94
    # no baseline test is counted anywhere
    assert all(t["type"] != "baseline" for i in items.values() for t in i.metadata["ocr_bench_tests"])
    meta = items["headers_footers/ff3d6e051903fe5ca9bc172ece14964c5632_pg1.pdf"].metadata
    assert meta["source_pdf"] == "headers_footers/ff3d6e051903fe5ca9bc172ece14964c5632_pg1.pdf"
    assert meta["source_category"] == "Headers/Footers" and meta["ocr_pass_rate"] == 0.5
    assert meta["ocr_failed_tests"] == ["ff3d6e051903fe5ca9bc172ece14964c5632_01a"]
    assert meta["ocr_engine"] == "markdown" and meta["pages"] == 1
    assert items["earnings.pdf"].metadata["source_category"] == "dataset"  # a test file outside the seven
    assert items["mattsnotes.pdf"].context.startswith(
        (slice_dir / "olmocr_pipeline" / "mattsnotes_pg1_repeat1.md").read_text()
    )


def test_the_gate_rejects_pdfs_below_the_pass_rate_with_the_failed_tests(slice_dir: Path, tmp_path: Path) -> None:
    require(chromium=True)
    result = load_olmocr_bench(
        slice_dir, workspace=tmp_path, markdown_dir=slice_dir / "olmocr_pipeline", min_ocr_pass_rate=0.8
    )
    below = {json.loads(p.raw)["pdf"]: p for p in result.problems if p.code == "ocr_below_gate"}
    assert set(below) == {
        "buildingnotes.pdf",
        "lincoln_letter.pdf",
        "test-graphical-text.pdf",
        "headers_footers/ff3d6e051903fe5ca9bc172ece14964c5632_pg1.pdf",
    }
    problem = below["buildingnotes.pdf"]
    assert problem.origin.endswith("pdfs/buildingnotes.pdf") and problem.line_no > 0
    assert json.loads(problem.raw)["tests"].endswith("dataset.jsonl")  # the line is that file's
    assert "2/3" in problem.message and "building_notes_02" in problem.message
    assert json.loads(problem.raw)["ocr_pass_rate"] == 0.6667
    assert all(i.metadata["ocr_pass_rate"] >= 0.8 for i in result.items) and len(result.items) == 15
    with pytest.raises(ValueError, match="between 0 and 1"):
        load_olmocr_bench(slice_dir, workspace=tmp_path, min_ocr_pass_rate=50)


def test_the_real_pipeline_on_the_cpu_endpoint_through_the_loader(slice_dir: Path, tmp_path: Path) -> None:
    """Two real single-page PDFs of the slice, OCR'd by olmocr against the Tesseract endpoint."""
    require("tesseract", "pdftoppm", chromium=True)
    tree = tmp_path / "bench"
    (tree / "pdfs").mkdir(parents=True)
    keep = {"multi_column_miss.pdf", "small_page_size.pdf"}
    with (slice_dir / "dataset.jsonl").open() as src, (tree / "dataset.jsonl").open("w") as dst:
        dst.writelines(line for line in src if line.strip() and json.loads(line)["pdf"] in keep)
    for name in keep:
        shutil.copy(slice_dir / "pdfs" / name, tree / "pdfs" / name)
    result = load_olmocr_bench(tree, workspace=tmp_path / "ws", ocr_server="cpu", min_ocr_pass_rate=0.0)
    items = by_id(result.items)
    assert set(items) == keep and not result.problems
    for item in items.values():
        assert item.metadata["ocr_engine"] == "olmocr" and item.metadata["ocr_server"] == "cpu"
        assert 0.0 < item.metadata["ocr_pass_rate"] <= 1.0
    assert "Corporate social responsibility" in items["multi_column_miss.pdf"].context
    assert (tmp_path / "ws" / "ocr" / "results").is_dir()  # olmocr's workspace lives under the toolkit's


# -- broken inputs ------------------------------------------------------------------------------


def _blank_pdf(path: Path) -> None:
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(width=612, height=792)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        writer.write(handle)


def _tree_with_problems(tmp_path: Path) -> Path:
    """The sample's table page plus: a corrupt PDF, a file that is no PDF, an empty page, a PDF
    no test names, a test naming a missing PDF, and bad test lines."""
    tree = tmp_path / "bench"
    shutil.copytree(sample_path() / "bench_data", tree, ignore=shutil.ignore_patterns("multi_column*", "headers_*"))
    (tree / "pdfs" / "tables" / "corrupt.pdf").write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog >>\ngarbage")
    (tree / "pdfs" / "tables" / "notapdf.pdf").write_bytes(b"<html>not a pdf</html>")
    (tree / "pdfs" / "tables" / "untested.pdf").write_bytes(
        (tree / "pdfs" / "tables" / "harbour_ferries.pdf").read_bytes()
    )
    _blank_pdf(tree / "pdfs" / "receipts" / "blank.pdf")
    lines = [
        {"pdf": "tables/corrupt.pdf", "page": 1, "id": "c1", "type": "present", "text": "anything"},
        {"pdf": "tables/notapdf.pdf", "page": 1, "id": "n1", "type": "present", "text": "anything"},
        {"pdf": "tables/gone.pdf", "page": 1, "id": "g1", "type": "present", "text": "anything"},
        {"pdf": "tables/harbour_ferries.pdf", "page": 1, "id": "harbour_ferries_title", "type": "present", "text": "x"},
        {"pdf": "tables/harbour_ferries.pdf", "page": 1, "id": "w1", "type": "wobbly", "text": "x"},
    ]
    with (tree / "table_tests.jsonl").open("a") as handle:
        handle.writelines(json.dumps(line) + "\n" for line in lines)
        handle.write("{not json\n")
    (tree / "receipts.jsonl").write_text(
        json.dumps({"pdf": "receipts/blank.pdf", "page": 1, "id": "r1", "type": "present", "text": "Total due"}) + "\n"
    )
    return tree


def test_broken_pdfs_missing_tests_and_an_empty_page_are_rejected_with_reasons(tmp_path: Path) -> None:
    require("tesseract", "pdftoppm")
    tree = _tree_with_problems(tmp_path)
    result = load_olmocr_bench(tree, workspace=tmp_path / "ws", ocr_server="cpu")
    assert [i.source_id for i in result.items] == ["tables/harbour_ferries.pdf"]
    item = result.items[0]
    assert item.metadata["source_category"] == "Tables" and item.metadata["bench_category"] == "table_tests"
    assert item.metadata["ocr_pass_rate"] >= 0.5 and item.metadata["ocr_server"] == "cpu"
    codes = Counter(p.code for p in result.problems)
    assert codes == {
        "pdf_unreadable": 2,
        "pdf_missing": 1,
        "no_tests": 1,
        "ocr_empty": 1,
        "duplicate_test_id": 1,
        "bad_test": 1,
        "malformed_json": 1,
    }
    messages = {p.code: p for p in result.problems}
    assert "tables/untested.pdf" in messages["no_tests"].message
    assert "Total due" not in item.context
    assert json.loads(messages["ocr_empty"].raw)["category"] == "receipts"  # a curator's own category
    unreadable = sorted(p.message for p in result.problems if p.code == "pdf_unreadable")
    assert "tables/corrupt.pdf: cannot be opened" in unreadable[0] and "no %PDF- header" in unreadable[1]
    # every problem has its own (file name, line) so the store keeps each one
    keys = [(Path(p.origin).name, p.line_no) for p in result.problems]
    assert len(keys) == len(set(keys))


def test_pdf_page_count(tmp_path: Path) -> None:
    _blank_pdf(tmp_path / "blank.pdf")
    assert pdf_page_count(tmp_path / "blank.pdf") == (1, None)
    (tmp_path / "empty.pdf").write_bytes(b"")
    assert pdf_page_count(tmp_path / "empty.pdf")[0] == 0


def test_default_baseline_and_scoring_per_page() -> None:
    require()
    from olmocr.bench.tests import load_single_test

    present = load_single_test({"pdf": "a.pdf", "page": 2, "id": "p", "type": "present", "text": "second page"})
    tests = with_default_baseline("a.pdf", [present])
    assert [t.type for t in tests] == ["present", "baseline"] and tests[1].id == "a.pdf_baseline"
    gate = score_pages(tests, {1: "first page", 2: "the second page"})
    assert (gate.passed, gate.total, gate.pass_rate) == (2, 2, 1.0)
    gate = score_pages(tests, {1: "the second page"})  # the text is on the wrong page
    assert gate.failed_ids == ["p"] and gate.pass_rate == 0.5


# -- categories, the draw and the Hub -----------------------------------------------------------


def test_categories_by_bench_name_folder_or_sob_name() -> None:
    assert [c.name for c in BENCH_CATEGORIES] == [
        "Headers/Footers",
        "Multi-Column",
        "Tables",
        "Old Scans",
        "Long/Tiny Text",
        "ArXiv Math",
        "Old Scans Math",
    ]
    for spelling in ("Tables", "tables", "table_tests"):
        assert [c.tests for c in resolve_categories([spelling], BENCH_CATEGORIES)] == ["table_tests"]
    assert [c.folder for c in resolve_categories(["long/tiny text", "Old Scans Math"], BENCH_CATEGORIES)] == [
        "long_tiny_text",
        "old_scans_math",
    ]
    with pytest.raises(ValueError, match="unknown olmOCR-bench category 'receipts'"):
        resolve_categories(["receipts"], BENCH_CATEGORIES)


def test_bench_root_accepts_the_tree_or_its_bench_data(tmp_path: Path) -> None:
    assert bench_root(sample_path()) == sample_path() / "bench_data"
    assert bench_root(sample_path() / "bench_data") == sample_path() / "bench_data"
    with pytest.raises(ValueError, match="not an olmOCR-bench tree"):
        bench_root(tmp_path)
    with pytest.raises(FileNotFoundError):
        bench_root(tmp_path / "missing")


def test_category_filter_and_limit_happen_before_ocr(tmp_path: Path) -> None:
    require()
    empty_md = tmp_path / "md"
    empty_md.mkdir()
    only_tables = load_olmocr_bench(sample_path(), workspace=tmp_path, categories=["Tables"], markdown_dir=empty_md)
    assert [json.loads(p.raw)["pdf"] for p in only_tables.problems] == ["tables/harbour_ferries.pdf"]
    assert only_tables.problems[0].code == "markdown_missing"
    # --limit counts pages that pass: with no markdown none passes, so every PDF is tried in turn
    one = load_olmocr_bench(sample_path(), workspace=tmp_path, limit=1, seed=3, markdown_dir=empty_md)
    assert len(one.problems) == 3 and not one.items
    assert "ran out before meeting the target" in one.notes[-1]
    again = load_olmocr_bench(sample_path(), workspace=tmp_path, limit=1, seed=3, markdown_dir=empty_md)
    assert again.problems == one.problems


def test_hub_fetch_asks_only_for_the_chosen_categories(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require()
    import huggingface_hub

    calls: list[dict] = []

    def fake_snapshot_download(**kwargs):
        calls.append(kwargs)
        local = tmp_path / "hub"
        shutil.copytree(sample_path() / "bench_data", local / "bench_data", dirs_exist_ok=True)
        return str(local)

    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_snapshot_download)
    md = tmp_path / "md"
    (md / "tables").mkdir(parents=True)
    (md / "tables" / "harbour_ferries_pg1_repeat1.md").write_text(
        "Saltmouth Harbour Ferry Timetable, Summer 2024\n\n"
        "| Route | Destination |\n|---|---|\n| F1 | Gull Island |\n| F2 | Brannock Point |\n"
    )
    result = load_olmocr_bench(
        None, workspace=tmp_path / "ws", categories=["Tables"], markdown_dir=md, min_ocr_pass_rate=0.2
    )
    common = {"repo_id": "allenai/olmOCR-bench", "repo_type": "dataset", "cache_dir": None}
    # the chosen categories' tests first, then only the PDFs drawn from them
    assert calls == [
        {**common, "allow_patterns": ["bench_data/table_tests.jsonl"]},
        {**common, "allow_patterns": ["bench_data/pdfs/tables/harbour_ferries.pdf"]},
    ]
    assert [i.source_id for i in result.items] == ["tables/harbour_ferries.pdf"]


# -- the embedded sample ------------------------------------------------------------------------


def test_embedded_sample_passes_the_gate_through_the_cpu_endpoint(tmp_path: Path) -> None:
    require("tesseract", "pdftoppm")
    result = load_olmocr_bench(sample_path(), workspace=tmp_path, ocr_server="cpu")
    items = by_id(result.items)
    assert not result.problems and result.rows_read == 16
    assert {k: i.metadata["source_category"] for k, i in items.items()} == {
        "tables/harbour_ferries.pdf": "Tables",
        "multi_column/wend_valley_news.pdf": "Multi-Column",
        "headers_footers/glassworkers_minutes.pdf": "Headers/Footers",
    }
    assert all(i.metadata["ocr_pass_rate"] >= 0.5 for i in items.values())
    news = items["multi_column/wend_valley_news.pdf"].context
    assert news.index("Market days remain Tuesday") < news.index("Observatory open nights.")  # column order
    assert "| Ynys Bach | 09:30 | 17:00 | 11.00 |" in items["tables/harbour_ferries.pdf"].context
    # every authored record's string answers can be found in the OCR text it was written against
    for line in (sample_path() / "authored.jsonl").read_text().splitlines():
        record = json.loads(line)
        assert record["source_id"] in items
        assert len(record["json_schema"]["properties"]) >= 3
        ocr_text = " ".join(items[record["source_id"]].context.split()).casefold()
        answers = list(string_leaves(record["ground_truth"]))
        assert answers, record["question"]
        missing = [a for a in answers if " ".join(a.split()).casefold() not in ocr_text]
        assert not missing, f"{record['source_id']}: answers not in the OCR text: {missing}"


def string_leaves(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    return [leaf for child in value for leaf in string_leaves(child)] if isinstance(value, list) else []


def test_sample_pdfs_are_small_and_generated_beside_their_script() -> None:
    pdfs = sorted((sample_path() / "bench_data" / "pdfs").rglob("*.pdf"))
    assert [p.relative_to(sample_path() / "bench_data" / "pdfs").as_posix() for p in pdfs] == [
        "headers_footers/glassworkers_minutes.pdf",
        "multi_column/wend_valley_news.pdf",
        "tables/harbour_ferries.pdf",
    ]
    assert all(p.stat().st_size < 64_000 and pdf_page_count(p) == (1, None) for p in pdfs)
    assert (sample_path() / "make_sample.py").is_file()
