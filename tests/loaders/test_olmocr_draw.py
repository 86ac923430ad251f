"""The olmOCR-bench draw: --limit and quotas count pages that passed the gate, SOB's mix, seeded rounds.

Runs on the real slice in tests/data/olmocr_bench, with its real olmOCR output, its PDFs placed
in the seven category folders of an olmOCR-bench tree (`categorised`).
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from loaders.bench_tests import find_chromium
from loaders.olmocr_bench import load_olmocr_bench
from loaders.olmocr_draw import SOB_MIX, largest_remainder, mix_quota, parse_quota, seeded_order
from tests.ci import missing

SLICE = Path(__file__).resolve().parents[1] / "data" / "olmocr_bench"
# Where each root-level PDF of the slice goes; headers_footers/ PDFs stay where they are.
FOLDERS = {
    "multi_column_miss.pdf": "multi_column",
    "olmo2-pg4.pdf": "multi_column",
    "discoverworld_crazy_table4.pdf": "tables",
    "earnings.pdf": "tables",
    "math_2503_04086.pdf": "arxiv_math",
    "mathfuncs.pdf": "arxiv_math",
    "mathfuncs_colswitch.pdf": "arxiv_math",
    "openstax_caculus_pg_273.pdf": "arxiv_math",
    "lincoln_letter.pdf": "old_scans",
    "buildingnotes.pdf": "old_scans",
    "mattsnotes.pdf": "old_scans",
    "small_page_size.pdf": "long_tiny_text",
    "test-graphical-text.pdf": "long_tiny_text",
}
TEST_FILE = {"tables": "table_tests"}


def require_chromium() -> None:
    if find_chromium() is None:
        missing("needs chromium for olmocr's math tests (apt-get install -y chromium)")


@pytest.fixture(scope="module")
def categorised(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real slice as an olmOCR-bench tree: <category>.jsonl beside pdfs/<folder>/<name>.pdf."""
    tree = tmp_path_factory.mktemp("bench")
    lines: dict[str, list[str]] = {}
    for raw in (SLICE / "dataset.jsonl").read_text().splitlines():
        if not raw.strip():
            continue
        test = json.loads(raw)
        original = test["pdf"]
        folder = FOLDERS.get(original) or original.split("/")[0]
        key = original if "/" in original else f"{folder}/{original}"
        test["pdf"] = key
        lines.setdefault(TEST_FILE.get(folder, folder), []).append(json.dumps(test))
        target = tree / "pdfs" / key
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(SLICE / "pdfs" / original, target)
    for stem, rows in lines.items():
        (tree / f"{stem}.jsonl").write_text("\n".join(rows) + "\n")
    return tree


def load(tree: Path, tmp_path: Path, **kwargs):
    return load_olmocr_bench(
        tree, workspace=tmp_path, markdown_dir=SLICE / "olmocr_pipeline", page_images=False, **kwargs
    )


def per_category(result) -> Counter[str]:
    return Counter(item.metadata["bench_category"] for item in result.items)


def test_a_quota_counts_pages_that_passed_and_says_which_category_ran_out(categorised: Path, tmp_path: Path) -> None:
    result = load(categorised, tmp_path, quota={"headers_footers": 3, "Long/Tiny Text": 2, "tables": 1}, seed=0)
    # Long/Tiny Text has two PDFs and one of them fails the gate (1 of its 3 tests): it runs out
    assert per_category(result) == {"headers_footers": 3, "long_tiny_text": 1, "table_tests": 1}
    assert all(item.metadata["ocr_pass_rate"] >= 0.5 for item in result.items)
    assert "draw (seed 0): Long/Tiny Text: 1/2 (2 of 2 PDFs tried) - ran out, 1 short" in result.notes
    assert result.notes[-1] == "ran out before meeting the target: Long/Tiny Text"
    assert any(n.startswith("draw (seed 0): Headers/Footers: 3/3 (") for n in result.notes)
    # only the quota's categories are touched: no other PDF is OCR'd or rejected
    tried = {json.loads(p.raw)["pdf"].split("/")[0] for p in result.problems if p.raw.startswith("{")}
    assert tried <= {"headers_footers", "long_tiny_text", "tables"}
    assert "long_tiny_text/test-graphical-text.pdf" in {json.loads(p.raw)["pdf"] for p in result.problems}


def test_limit_means_pages_that_passed_and_tops_up_from_other_categories(categorised: Path, tmp_path: Path) -> None:
    require_chromium()
    # At a 0.9 gate exactly ten pages of the slice pass; Tables and Old Scans have none.
    result = load(categorised, tmp_path, limit=8, min_ocr_pass_rate=0.9, seed=1)
    assert len(result.items) == 8 and all(i.metadata["ocr_pass_rate"] >= 0.9 for i in result.items)
    assert {"table_tests", "old_scans"}.isdisjoint(per_category(result))
    everything = load(categorised, tmp_path, min_ocr_pass_rate=0.9)
    assert len(everything.items) == 10 and not any(n.startswith("draw") for n in everything.notes)
    more_than_there = load(categorised, tmp_path, limit=12, min_ocr_pass_rate=0.9, seed=1)
    assert len(more_than_there.items) == 10 and "ran out" in more_than_there.notes[-1]


def test_the_same_seed_draws_the_same_pages_and_another_seed_others(categorised: Path, tmp_path: Path) -> None:
    picks = {
        seed: [i.source_id for i in load(categorised, tmp_path, quota={"headers_footers": 2}, seed=seed).items]
        for seed in (0, 0, 1, 2, 3)
    }
    assert len(picks[0]) == 2
    assert load(categorised, tmp_path, quota={"headers_footers": 2}, seed=0).items[0].source_id == picks[0][0]
    assert len({tuple(p) for p in picks.values()}) > 1


def test_sob_mix_is_scaled_to_the_limit_and_short_categories_are_named(categorised: Path, tmp_path: Path) -> None:
    require_chromium()
    assert sum(SOB_MIX.values()) == 209 and mix_quota("SOB") == SOB_MIX
    scaled = largest_remainder(SOB_MIX, 20)
    assert scaled == {
        "headers_footers": 7,
        "multi_column": 6,
        "table_tests": 3,
        "old_scans": 2,
        "long_tiny_text": 1,
        "arxiv_math": 1,
        "old_scans_math": 0,
    }
    result = load(categorised, tmp_path, quota=mix_quota("sob"), limit=20, seed=0)
    # the slice holds 6 passing Headers/Footers pages, 2 Multi-Column and 2 Tables: those run out
    assert per_category(result) == {
        "headers_footers": 6,
        "multi_column": 2,
        "table_tests": 2,
        "old_scans": 2,
        "long_tiny_text": 1,
        "arxiv_math": 1,
    }
    assert result.notes[-1] == "ran out before meeting the target: Headers/Footers, Multi-Column, Tables"
    # a quota is not topped up from other categories: ArXiv Math keeps its one page
    assert "draw (seed 0): ArXiv Math: 1/1 (1 of 4 PDFs tried)" in result.notes


def test_quota_spelling_errors_are_clear(categorised: Path, tmp_path: Path) -> None:
    assert parse_quota("headers_footers=67, multi_column=62") == {"headers_footers": 67, "multi_column": 62}
    for bad, message in [
        ("headers_footers", "name=N pairs"),
        ("tables=many", "not a whole number"),
        ("tables=-1", "cannot be negative"),
        ("tables=1,tables=2", "twice"),
        ("tables=0", "no pages at all"),
    ]:
        with pytest.raises(ValueError, match=message):
            parse_quota(bad)
    with pytest.raises(ValueError, match="unknown --mix 'olmo'"):
        mix_quota("olmo")
    with pytest.raises(ValueError, match="unknown olmOCR-bench category 'receipts'"):
        load(categorised, tmp_path, quota={"receipts": 3})
    with pytest.raises(ValueError, match="names Tables twice"):
        load(categorised, tmp_path, quota={"tables": 1, "table_tests": 2})


def test_seeded_order_is_stable_when_pdfs_are_added() -> None:
    base = seeded_order(["a.pdf", "b.pdf", "c.pdf"], 7)
    grown = seeded_order(["a.pdf", "b.pdf", "c.pdf", "d.pdf"], 7)
    assert [k for k in grown if k != "d.pdf"] == base
