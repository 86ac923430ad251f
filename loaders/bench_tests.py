"""olmOCR-bench tests on OCR markdown, with olmocr's own test classes (`olmocr.bench.tests`).

Test files are JSONL, one test a line (`present`, `absent`, `order`, `table`, `math`,
`baseline`), each naming its PDF (relative to `pdfs/`) and page. Scoring follows olmocr's
`bench/benchmark.py`: a test runs on the markdown of its own page. olmocr's benchmark also gives
every PDF with no `baseline` test a default one (`with_default_baseline`); the toolkit's quality
gate does not count baseline tests (`gate_tests`).

Math tests render KaTeX in Chromium when they are built. olmocr drives Chromium through
Playwright, whose own browser download is never used here: the Playwright launcher is pointed
at Debian's `chromium` (`/usr/bin/chromium`, or the path in `SOB_CHROMIUM`).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loaders.base import LoadProblem
from loaders.image_extra import missing_image_extra

CHROMIUM_ENV = "SOB_CHROMIUM"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


class BenchSetupError(ValueError):
    """A missing tool the curator can install; the message says how."""


def find_chromium() -> str | None:
    configured = os.environ.get(CHROMIUM_ENV)
    if configured:
        return configured if Path(configured).exists() else None
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


_patched_for: str | None = None


def use_system_chromium(path: str | None = None) -> str:
    """Make olmocr's KaTeX renderer launch the system Chromium instead of Playwright's download."""
    global _patched_for
    chromium = path or find_chromium()
    if chromium is None:
        raise BenchSetupError(
            "math tests render equations in Chromium, and none was found: apt-get install -y chromium "
            f"(or set {CHROMIUM_ENV} to a Chromium binary)"
        )
    if _patched_for == chromium:
        return chromium
    from olmocr.bench.katex import render

    def launch_system_chromium(owner: Any) -> None:
        playwright = render.sync_playwright().start()
        browser = playwright.chromium.launch(executable_path=chromium)
        owner.p, owner.browser, owner._closed = playwright, browser, False
        owner._finalizer = weakref.finalize(owner, render._cleanup_playwright, playwright, browser)

    render._BrowserOwner.__init__ = launch_system_chromium  # type: ignore[method-assign]
    _patched_for = chromium
    return chromium


def _bench_module() -> Any:
    try:
        from olmocr.bench import tests
    except ImportError as exc:
        raise missing_image_extra(exc) from exc
    return tests


@dataclass
class BenchTestFile:
    """The tests of one JSONL file, grouped by PDF, with the lines that could not be used."""

    path: Path
    by_pdf: dict[str, list[Any]] = field(default_factory=dict)
    problems: list[LoadProblem] = field(default_factory=list)
    lines: int = 0


def load_test_file(path: Path, seen_ids: set[str] | None = None, pdfs: set[str] | None = None) -> BenchTestFile:
    """Build every test of `path` with `olmocr.bench.tests.load_single_test`.

    A bad line (malformed JSON, unknown type, invalid fields, a repeated id) becomes a problem
    and the rest still load. With `pdfs`, only tests of those PDFs are built (math tests are
    costly to build: each renders its equation).
    """
    bench = _bench_module()
    seen = seen_ids if seen_ids is not None else set()
    result = BenchTestFile(path)
    chromium_ready = False
    with path.open(encoding="utf-8") as handle:
        for line_no, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            result.lines += 1
            line = raw.rstrip("\n")

            def problem(code: str, message: str, line_no: int = line_no, line: str = line) -> None:
                result.problems.append(LoadProblem(str(path), line_no, code, message, line[:2000]))

            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                problem("malformed_json", str(exc))
                continue
            if not isinstance(data, dict) or not isinstance(data.get("pdf"), str):
                problem("bad_test", "expected a JSON object with a `pdf` field")
                continue
            if pdfs is not None and data["pdf"] not in pdfs:
                continue
            if data.get("type") == "math" and not chromium_ready:
                use_system_chromium()
                chromium_ready = True
            try:
                test = bench.load_single_test(data)
            except (bench.ValidationError, TypeError, KeyError, ValueError) as exc:
                problem("bad_test", f"{type(exc).__name__}: {exc}")
                continue
            if test.id in seen:
                problem("duplicate_test_id", f"test id {test.id!r} appears twice; the first is kept")
                continue
            seen.add(test.id)
            result.by_pdf.setdefault(test.pdf, []).append(test)
    return result


BENCH_TESTS_KEY = "ocr_bench_tests"  # source item metadata: the page's own tests, as JSON records


def gate_tests(tests: list[Any]) -> list[Any]:
    """The tests the quality gate counts: the page's own, without baseline tests.

    olmOCR-bench's scorer adds a default baseline test (the page is not blank, not repeating) to
    every PDF; in a pass rate that test lifts a page passing 1 of 3 real tests to 2/4 = 50%. Blank
    output is rejected on its own, so the gate leaves baseline tests out of the rate.
    """
    return [t for t in tests if t.type != "baseline"]


def bench_test_record(test: Any) -> dict[str, Any]:
    """A test as the JSON record it was loaded from (fields that are unset left out)."""
    return {k: v for k, v in dataclasses.asdict(test).items() if v is not None}


def bench_tests_from_records(records: list[dict[str, Any]]) -> list[Any]:
    """Rebuild tests kept with `bench_test_record` (math tests render their equation again in Chromium)."""
    bench = _bench_module()
    if any(r.get("type") == "math" for r in records):
        use_system_chromium()
    return [bench.load_single_test(dict(r)) for r in records]


def with_default_baseline(pdf: str, tests: list[Any]) -> list[Any]:
    """olmOCR-bench adds a default baseline test to every PDF that has none."""
    if any(t.type == "baseline" for t in tests):
        return list(tests)
    bench = _bench_module()
    return [*tests, bench.BaselineTest(id=f"{pdf}_baseline", pdf=pdf, page=1, type="baseline")]


@dataclass(frozen=True)
class GateResult:
    pass_rate: float
    passed: int
    total: int
    failed: list[dict[str, str]]  # {"id", "type", "explanation"}

    @property
    def failed_ids(self) -> list[str]:
        return [f["id"] for f in self.failed]


def score_pages(tests: list[Any], pages: dict[int, str]) -> GateResult:
    """Run each test on the markdown of its page; a page with no markdown counts as empty."""
    passed = 0
    failed: list[dict[str, str]] = []
    for test in tests:
        content = pages.get(int(test.page), "")
        try:
            ok, explanation = test.run(content)
        except Exception as exc:  # a test that crashes has not passed; say why
            ok, explanation = False, f"{type(exc).__name__}: {exc}"
        if ok:
            passed += 1
        else:
            failed.append({"id": test.id, "type": test.type, "explanation": str(explanation)[:300]})
    total = len(tests)
    return GateResult(passed / total if total else 0.0, passed, total, failed)
