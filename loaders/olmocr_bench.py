"""olmOCR-bench loader: PDFs and their tests -> OCR markdown -> quality gate -> source items.

Input is an olmOCR-bench tree, local or the Hub dataset `allenai/olmOCR-bench` (only the
categories asked for are fetched):

    bench_data/<category>.jsonl              the tests, each naming `pdf` relative to pdfs/
    bench_data/pdfs/<category>/<name>.pdf    one page each in the benchmark

The table PDFs sit in `pdfs/tables/` while their tests are `table_tests.jsonl`. Any other
`<name>.jsonl` with its PDFs in `pdfs/<name>/` loads as a category of that name, so curators can
add their own documents. Each PDF is OCR'd (olmocr's pipeline, see `loaders.ocr`, or a folder of
markdown made earlier), its olmOCR-bench tests run on the markdown with olmocr's own test classes,
and the PDFs whose pass rate reaches `min_ocr_pass_rate` (SOB kept those passing at least half)
become source items; the rest come back as load problems with the reason.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.inside import inside
from core.models import SourceItem
from loaders.base import LoadProblem, LoadResult
from loaders.bench_tests import BENCH_TESTS_KEY, GateResult, bench_test_record, gate_tests, load_test_file, score_pages
from loaders.image_extra import require_image_extra
from loaders.ocr import CPU_SERVER, PdfOcr, read_markdown_dir, run_olmocr
from loaders.olmocr_draw import make_plan
from loaders.page_images import RenderError, render_pdf_pages

HUB_REPO = "allenai/olmOCR-bench"
HUB_ROOT = "bench_data"
DEFAULT_MIN_PASS_RATE = 0.5


@dataclass(frozen=True)
class Category:
    tests: str  # test file stem: `table_tests`
    folder: str  # folder under pdfs/: `tables`
    name: str  # SOB's name: `Tables`


# olmOCR-bench's seven categories under SOB's names.
BENCH_CATEGORIES: tuple[Category, ...] = (
    Category("headers_footers", "headers_footers", "Headers/Footers"),
    Category("multi_column", "multi_column", "Multi-Column"),
    Category("table_tests", "tables", "Tables"),
    Category("old_scans", "old_scans", "Old Scans"),
    Category("long_tiny_text", "long_tiny_text", "Long/Tiny Text"),
    Category("arxiv_math", "arxiv_math", "ArXiv Math"),
    Category("old_scans_math", "old_scans_math", "Old Scans Math"),
)


def sample_path() -> Path:
    return Path(__file__).parent / "samples" / "olmocr"


def category_for(test_stem: str) -> Category:
    for category in BENCH_CATEGORIES:
        if category.tests == test_stem:
            return category
    return Category(test_stem, test_stem, test_stem)


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _matches(category: Category, wanted: str) -> bool:
    return _norm(wanted) in {_norm(category.tests), _norm(category.folder), _norm(category.name)}


def resolve_categories(wanted: Iterable[str] | None, available: Sequence[Category]) -> list[Category]:
    """The categories asked for, by test file stem, pdf folder or SOB name (any case)."""
    if wanted is None:
        return list(available)
    chosen: list[Category] = []
    for name in wanted:
        found = [c for c in available if _matches(c, name)]
        if not found:
            names = ", ".join(f"{c.name} ({c.tests})" for c in available) or "none"
            raise ValueError(f"unknown olmOCR-bench category {name!r}; this input has: {names}")
        chosen.extend(c for c in found if c not in chosen)
    return chosen


def bench_root(path: Path) -> Path:
    """The folder holding `<category>.jsonl` and `pdfs/`: PATH, or PATH/bench_data."""
    if not path.exists():
        raise FileNotFoundError(f"olmOCR-bench input {path} does not exist")
    for candidate in (path / HUB_ROOT, path):
        if candidate.is_dir() and any(candidate.glob("*.jsonl")) and (candidate / "pdfs").is_dir():
            return candidate
    raise ValueError(
        f"{path} is not an olmOCR-bench tree: expected <category>.jsonl test files beside a pdfs/ folder "
        f"(or both inside {HUB_ROOT}/)"
    )


def fetch_hub(
    categories: Iterable[str] | None = None, pdfs: Iterable[str] | None = None, cache_dir: Path | None = None
) -> Path:
    """Download from `allenai/olmOCR-bench` only the asked-for categories' test files, and with
    `pdfs` (paths relative to pdfs/) only those PDFs; return the local bench_data/ folder."""
    from huggingface_hub import snapshot_download

    if pdfs is None:
        chosen = resolve_categories(categories, BENCH_CATEGORIES)
        patterns = [f"{HUB_ROOT}/{c.tests}.jsonl" for c in chosen]
    else:
        patterns = [f"{HUB_ROOT}/pdfs/{key}" for key in pdfs]
    local = snapshot_download(
        repo_id=HUB_REPO,
        repo_type="dataset",
        allow_patterns=patterns,
        cache_dir=str(cache_dir) if cache_dir else None,
    )
    return Path(local) / HUB_ROOT


@dataclass
class BenchPdf:
    key: str  # path relative to pdfs/: the source id
    path: Path
    category: Category
    tests: list[Any] = field(default_factory=list)
    origin: str = ""  # the test file that names it
    first_line: int = 0
    pages: int = 0


def pdf_page_count(path: Path) -> tuple[int, str | None]:
    """Pages of a PDF, or (0, why it cannot be opened)."""
    from pypdf import PdfReader

    try:
        with path.open("rb") as handle:
            if handle.read(5) != b"%PDF-":
                return 0, "not a PDF file (no %PDF- header)"
        reader = PdfReader(str(path))
        if reader.is_encrypted and not reader.decrypt(""):
            return 0, "the PDF is encrypted"
        count = len(reader.pages)
    except Exception as exc:  # pypdf raises many kinds on broken files
        return 0, f"cannot be opened: {type(exc).__name__}: {exc}"
    if count == 0:
        return 0, "the PDF has no pages"
    return count, None


def _first_test_lines(path: Path) -> dict[str, int]:
    """First line naming each PDF in a test file, and nothing more (cheap: no test is built)."""
    first: dict[str, int] = {}
    with path.open(encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            try:
                pdf = json.loads(line).get("pdf")
            except (json.JSONDecodeError, AttributeError):
                continue
            if isinstance(pdf, str):
                first.setdefault(pdf, line_no)
    return first


def _outside(test_file: Path, line_no: int, key: str, root: Path) -> LoadProblem:
    message = f"the test names the PDF {key!r}, which is not inside {root / 'pdfs'}; name it relative to pdfs/"
    raw = json.dumps({"pdf": key}, ensure_ascii=False)
    return LoadProblem(str(test_file), line_no, "pdf_outside_bench", message, raw)


def _category_of_pdf(key: str, test_category: Category) -> Category:
    folder = key.split("/", 1)[0] if "/" in key else None
    if folder is not None and folder != test_category.folder:
        for category in BENCH_CATEGORIES:
            if category.folder == folder:
                return category
    return test_category


def load_olmocr_bench(
    path: Path | None,
    *,
    workspace: Path,
    categories: Iterable[str] | None = None,
    markdown_dir: Path | None = None,
    ocr_server: str | None = None,
    min_ocr_pass_rate: float = DEFAULT_MIN_PASS_RATE,
    limit: int | None = None,
    quota: Mapping[str, int] | None = None,
    seed: int = 0,
    ocr_model: str | None = None,
    ocr_api_key: str | None = None,
    ocr_workers: int | None = None,
    page_images: bool = True,
    echo: Callable[[str], None] | None = None,
) -> LoadResult:
    """Load olmOCR-bench PDFs from `path` (a local tree) or the Hub (`path=None`).

    OCR comes from `markdown_dir` when given; otherwise olmocr's pipeline runs in
    `workspace/ocr` (resumable) with `ocr_server` = "cpu" (the Tesseract endpoint), an endpoint
    URL (`ocr_model`/`ocr_api_key` become olmocr's --model/--api_key), or None (olmocr starts
    vLLM on this machine's GPU). PDFs that pass at least `min_ocr_pass_rate` of their own
    olmOCR-bench tests become source items, with their pages rendered to PNG in the workspace
    (`page_images`); the others, and PDFs that cannot be opened, have no tests or no OCR, come
    back as problems with the reason.

    `limit` and `quota` count pages that passed (see `loaders.olmocr_draw`): PDFs are OCR'd in
    seeded rounds per category until each target is met or the category runs out; `notes` on
    the result say how each category fared.
    """
    if not 0.0 <= min_ocr_pass_rate <= 1.0:
        raise ValueError(f"--min-ocr-pass-rate must be between 0 and 1, got {min_ocr_pass_rate}")
    require_image_extra()  # before any download or OCR: one error line naming the install command
    say = echo or (lambda _line: None)
    quota_categories = resolve_quota(quota) if quota is not None else None
    if quota_categories is not None and categories is None:
        categories = [c.tests for c in quota_categories]
    # From the Hub the test files come first; only the drawn PDFs are downloaded (per round).
    root = bench_root(path) if path is not None else fetch_hub(categories)
    test_files = sorted(root.glob("*.jsonl"))
    available = [category_for(f.stem) for f in test_files]
    # A PDF in pdfs/<one of the seven>/ belongs to that category whatever test file names it.
    known = available + [c for c in BENCH_CATEGORIES if c not in available]
    chosen_stems = {c.tests for c in resolve_categories(categories, known)} if categories is not None else None
    result = LoadResult()

    # 1. The PDFs of the chosen categories that the test files name (a PDF's category is its
    #    folder under pdfs/ when that is one of the seven, else its test file's), and the PDFs on
    #    disk that no test names.
    pdfs: dict[str, BenchPdf] = {}
    for test_file in test_files:
        test_category = category_for(test_file.stem)
        for key, line_no in _first_test_lines(test_file).items():
            if inside(root / "pdfs", key) is None:  # never read, OCR'd or rendered
                result.problems.append(_outside(test_file, line_no, key, root))
                continue
            category = _category_of_pdf(key, test_category)
            if key not in pdfs and (chosen_stems is None or category.tests in chosen_stems):
                pdfs[key] = BenchPdf(key, root / "pdfs" / key, category, origin=str(test_file), first_line=line_no)
    if path is not None:
        chosen = [c for c in known if chosen_stems is None or c.tests in chosen_stems]
        _untested(root, chosen, pdfs, result, whole_tree=categories is None)

    # 2. The draw: seeded rounds per category until each target of passing pages is met.
    by_category: dict[str, list[str]] = {}
    labels: dict[str, str] = {}
    for key, pdf in pdfs.items():
        by_category.setdefault(pdf.category.tests, []).append(key)
        labels[pdf.category.tests] = pdf.category.name
    for category in quota_categories or []:
        labels.setdefault(category.tests, category.name)
    quota_by_stem = {c.tests: n for c, n in quota_categories.items()} if quota_categories else None
    plan = make_plan(by_category, labels, seed=seed, limit=limit, quota=quota_by_stem)
    passed: list[SourceItem] = []
    while batch := plan.next_round():
        selected = {k: pdfs[k] for k in batch}
        if path is None:
            pdf_root = fetch_hub(pdfs=selected) / "pdfs"
            for key, pdf in selected.items():
                pdf.path = pdf_root / key
        for item in _ocr_and_gate(
            selected,
            root,
            test_files,
            markdown_dir,
            workspace,
            result,
            min_ocr_pass_rate,
            ocr_server=ocr_server,
            ocr_model=ocr_model,
            ocr_api_key=ocr_api_key,
            ocr_workers=ocr_workers,
            echo=echo,
        ):
            key = item.source_id
            if plan.record_pass(pdfs[key].category.tests, key):
                passed.append(item)
            else:
                result.notes.append(
                    f"{key} passed the gate after its category's target was met; left out "
                    "(its OCR stays in the workspace for a larger run)"
                )
    if limit is not None or quota_categories is not None:
        result.notes[:0] = [f"draw (seed {seed}): {line}" for line in plan.summaries()]
        short = plan.ran_out()
        if short:
            result.notes.append("ran out before meeting the target: " + ", ".join(short))
    for note in result.notes:
        say(note)

    # 3. Page images for curators, for the kept pages only.
    if page_images:
        for item in passed:
            pdf = pdfs[item.source_id]
            try:
                images = render_pdf_pages(workspace, pdf.key, pdf.path, pdf.pages)
            except RenderError as exc:
                _reject(result, pdf, "page_image_failed", f"{pdf.key}: {exc}")
                continue
            item.metadata["page_images"] = [image.relative for image in images]
            result.items.append(item)
    else:
        result.items.extend(passed)
    result.items.sort(key=lambda it: it.source_id)
    return result


def resolve_quota(quota: Mapping[str, int]) -> dict[Category, int]:
    """Quota names (test file stem, pdf folder or SOB name, any case) -> olmOCR-bench categories."""
    resolved: dict[Category, int] = {}
    for name, count in quota.items():
        (category,) = resolve_categories([name], BENCH_CATEGORIES)
        if category in resolved:
            raise ValueError(f"--category-quota names {category.name} twice ({name!r})")
        resolved[category] = count
    return resolved


def _ocr_and_gate(
    selected: dict[str, BenchPdf],
    root: Path,
    test_files: list[Path],
    markdown_dir: Path | None,
    workspace: Path,
    result: LoadResult,
    min_ocr_pass_rate: float,
    *,
    ocr_server: str | None,
    ocr_model: str | None,
    ocr_api_key: str | None,
    ocr_workers: int | None,
    echo: Callable[[str], None] | None,
) -> list[SourceItem]:
    """Tests, readability, OCR and the gate for one round's PDFs; the items that passed."""
    # Tests (olmocr's classes), for these PDFs only.
    lines = 0
    for test_file in test_files:  # a PDF's tests may sit in any test file
        # test ids are unique within a file, as olmocr's load_tests checks them
        loaded = load_test_file(test_file, pdfs=set(selected))
        lines += loaded.lines
        result.problems.extend(loaded.problems)
        for key, tests in loaded.by_pdf.items():
            selected[key].tests.extend(tests)
    result.rows_read = max(result.rows_read, lines)  # every round reads the same files

    # PDFs that exist and open.
    readable: dict[str, BenchPdf] = {}
    for key, pdf in selected.items():
        if not pdf.path.is_file():
            _reject(result, pdf, "pdf_missing", f"{key}: its tests name a PDF that is not in {root / 'pdfs'}")
            continue
        pdf.pages, why = pdf_page_count(pdf.path)
        if why is not None:
            _reject(result, pdf, "pdf_unreadable", f"{key}: {why}")
            continue
        if not pdf.tests:
            _reject(result, pdf, "no_tests", f"{key}: none of its tests could be loaded")
            continue
        readable[key] = pdf
    if not readable:
        return []

    # OCR, then the gate.
    if markdown_dir is not None:
        ocr = read_markdown_dir(markdown_dir, {k: p.path for k, p in readable.items()})
        engine_label = "markdown"
    else:
        run = run_olmocr(
            {k: p.path for k, p in readable.items()},
            workspace / "ocr",
            server=ocr_server,
            model=ocr_model,
            api_key=ocr_api_key,
            workers=ocr_workers,
            echo=echo,
        )
        ocr, engine_label = run.results, run.server
    items: list[SourceItem] = []
    for key in sorted(readable, key=list(selected).index):
        item = _gate(readable[key], ocr[key], engine_label, min_ocr_pass_rate, result)
        if item is not None:
            items.append(item)
    return items


def _untested(
    root: Path, chosen: list[Category], pdfs: dict[str, BenchPdf], result: LoadResult, whole_tree: bool
) -> None:
    """PDFs under the chosen categories' folders (and, for the whole tree, anywhere under
    pdfs/) that no test names: each is a `no_tests` problem."""
    pdf_root = root / "pdfs"
    folders = [pdf_root / c.folder for c in chosen]
    found: list[Path] = []
    for folder in folders:
        if folder.is_dir():
            found.extend(folder.rglob("*.pdf"))
    if whole_tree:
        found.extend(pdf_root.rglob("*.pdf"))
    for path in sorted(set(found)):
        key = path.relative_to(pdf_root).as_posix()
        if key in pdfs:
            continue
        result.problems.append(
            LoadProblem(
                str(path),
                0,
                "no_tests",
                f"{key}: no olmOCR-bench test names this PDF, so its OCR cannot be checked "
                "(add tests for it to a <category>.jsonl)",
                key,
            )
        )


def _reject(result: LoadResult, pdf: BenchPdf, code: str, message: str, detail: dict[str, Any] | None = None) -> None:
    """A PDF-level problem: its origin is the PDF, its line the first test naming it in `pdf.origin`."""
    raw = json.dumps(
        {"pdf": pdf.key, "category": pdf.category.name, "tests": pdf.origin, **(detail or {})}, ensure_ascii=False
    )
    result.problems.append(LoadProblem(str(pdf.path), pdf.first_line, code, message, raw))


def _gate(pdf: BenchPdf, ocr: PdfOcr, engine: str, min_rate: float, result: LoadResult) -> SourceItem | None:
    if ocr.error is not None and ocr.error_code != "ocr_empty":
        _reject(result, pdf, ocr.error_code or "ocr_failed", f"{pdf.key}: {ocr.error}")
        return None
    tests = gate_tests(pdf.tests)
    if not tests:
        _reject(result, pdf, "no_tests", f"{pdf.key}: it has only baseline tests, so its OCR cannot be checked")
        return None
    gate: GateResult = score_pages(tests, ocr.pages)
    detail = {
        "ocr_pass_rate": round(gate.pass_rate, 4),
        "ocr_failed_tests": gate.failed_ids,
        "failures": gate.failed,
    }
    markdown = ocr.markdown
    if not any(ch.isalnum() for ch in markdown):
        _reject(result, pdf, "ocr_empty", f"{pdf.key}: the OCR markdown has no text (a blank page?)", detail)
        return None
    if gate.pass_rate < min_rate:
        _reject(
            result,
            pdf,
            "ocr_below_gate",
            f"{pdf.key}: OCR passed {gate.passed}/{gate.total} olmOCR-bench tests ({gate.pass_rate:.0%}), below "
            f"the gate of {min_rate:.0%}; failed: {', '.join(gate.failed_ids)}",
            detail,
        )
        return None
    metadata: dict[str, Any] = {
        "source_pdf": pdf.key,
        "source_category": pdf.category.name,
        "bench_category": pdf.category.tests,
        "pages": pdf.pages,
        "ocr_engine": "olmocr" if ocr.engine == "olmocr" else "markdown",
        "ocr_server": engine if ocr.engine == "olmocr" else None,
        "ocr_pass_rate": round(gate.pass_rate, 4),
        "ocr_tests": gate.total,
        "ocr_tests_passed": gate.passed,
        "ocr_failed_tests": gate.failed_ids,
        "ocr_fallback_pages": ocr.fallback_pages,
        # the page's own tests, to score the curator's corrected transcript the same way
        BENCH_TESTS_KEY: [bench_test_record(t) for t in tests],
    }
    if ocr.fallback_count:
        metadata["ocr_fallback_page_count"] = ocr.fallback_count
    return SourceItem(source="olmocr", source_id=pdf.key, context=markdown, metadata=metadata)


__all__ = [
    "BENCH_CATEGORIES",
    "CPU_SERVER",
    "HUB_REPO",
    "Category",
    "bench_root",
    "category_for",
    "fetch_hub",
    "load_olmocr_bench",
    "pdf_page_count",
    "resolve_categories",
    "sample_path",
]
