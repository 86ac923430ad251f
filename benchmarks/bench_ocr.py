"""Benchmark: PDFs through olmocr's real pipeline, then olmOCR-bench's tests on the markdown.

OCRs every readable PDF of an olmOCR-bench tree (default: the real slice in tests/data/olmocr_bench,
else the embedded sample) in a fresh workspace, renders every page to PNG for curators (pdftoppm), and
prints pages per minute for render + OCR, pages per second of the OCR and the
peak memory of the whole process tree (this process, olmocr's pipeline, and its OCR server:
Tesseract processes on the CPU, vLLM on a GPU), plus the peak GPU memory when `nvidia-smi` is
there, and the mean olmOCR-bench pass rate of the output.

    python benchmarks/bench_ocr.py                        # GPU with vLLM if present, else the CPU endpoint
    python benchmarks/bench_ocr.py --ocr-server cpu       # force the Tesseract endpoint
    python benchmarks/bench_ocr.py --ocr-server http://host:8000/v1 --model olmocr
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from loaders.bench_tests import gate_tests, load_test_file, score_pages  # noqa: E402
from loaders.ocr import gpu_available, run_olmocr  # noqa: E402
from loaders.olmocr_bench import bench_root, pdf_page_count, sample_path  # noqa: E402
from loaders.page_images import DEFAULT_LONG_SIDE, render_pdf_pages  # noqa: E402

SLICE = Path(__file__).resolve().parents[1] / "tests" / "data" / "olmocr_bench"  # the real slice, in the repo


class PeakMemory:
    """Samples the RSS of this process and all its descendants (and GPU memory if it can)."""

    def __init__(self, interval: float = 0.05) -> None:
        self.interval = interval
        self.peak_tree_mb = 0.0
        self.peak_process_mb = 0.0
        self.peak_gpu_mb: float | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._nvidia = shutil.which("nvidia-smi")

    def _gpu_used_mb(self) -> float | None:
        try:
            out = subprocess.run(
                [self._nvidia, "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                capture_output=True,
                text=True,
                timeout=5,
                check=True,
            ).stdout
            return sum(float(x) for x in out.split())
        except Exception:
            return None

    def _run(self) -> None:
        me = psutil.Process()
        last_gpu = 0.0
        while not self._stop.is_set():
            total = 0.0
            for proc in [me, *me.children(recursive=True)]:
                try:
                    rss = proc.memory_info().rss / 2**20
                except psutil.Error:
                    continue
                total += rss
                self.peak_process_mb = max(self.peak_process_mb, rss)
            self.peak_tree_mb = max(self.peak_tree_mb, total)
            if self._nvidia and time.monotonic() - last_gpu > 1.0:
                last_gpu = time.monotonic()
                used = self._gpu_used_mb()
                if used is not None:
                    self.peak_gpu_mb = max(self.peak_gpu_mb or 0.0, used)
            self._stop.wait(self.interval)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", type=Path, help="olmOCR-bench tree (default: the shared slice, else the sample)")
    parser.add_argument(
        "--ocr-server",
        default="auto",
        help="auto (default: olmocr's own vLLM on a GPU, else cpu), cpu, gpu, or an endpoint URL",
    )
    parser.add_argument("--model", help="model name sent to an --ocr-server URL (olmocr's --model)")
    parser.add_argument("--limit", type=int, help="OCR only the first N PDFs")
    parser.add_argument("--no-score", action="store_true", help="skip the olmOCR-bench tests on the output")
    args = parser.parse_args()

    source = args.input or (SLICE if SLICE.is_dir() else sample_path())
    root = bench_root(source)
    server: str | None
    if args.ocr_server == "auto":
        server = None if gpu_available() and shutil.which("vllm") else "cpu"
    elif args.ocr_server == "gpu":
        server = None
    else:
        server = args.ocr_server
    pdf_root = root / "pdfs"
    pdfs: dict[str, Path] = {}
    pages = 0
    for path in sorted(pdf_root.rglob("*.pdf")):
        count, why = pdf_page_count(path)
        if why is None:
            pdfs[path.relative_to(pdf_root).as_posix()] = path
            pages += count
        if args.limit and len(pdfs) >= args.limit:
            break

    print(f"input:       {root} ({len(pdfs)} PDFs, {pages} pages)")
    print(f"ocr server:  {server or 'olmocr starts vLLM on this GPU'}")
    with tempfile.TemporaryDirectory(prefix="bench-ocr-") as tmp, PeakMemory() as memory:
        started = time.perf_counter()
        run = run_olmocr(pdfs, Path(tmp) / "ocr", server=server, model=args.model)
        seconds = time.perf_counter() - started
        # What curators need beside the OCR: every page rendered to PNG with pdftoppm for Label Studio.
        render_started = time.perf_counter()
        for key, path in pdfs.items():
            render_pdf_pages(Path(tmp), key, path, pdf_page_count(path)[0])
        render_seconds = time.perf_counter() - render_started
    ok = [r for r in run.results.values() if r.error is None]
    print(f"wall time:   {seconds:.1f} s (pipeline start-up included)")
    print(f"throughput:  {pages / seconds:.2f} pages/s ({seconds / max(pages, 1):.2f} s/page)")
    print(
        f"page images: {render_seconds:.1f} s for {pages} pages (pdftoppm, long side {DEFAULT_LONG_SIDE} px, "
        f"{render_seconds / max(pages, 1):.2f} s/page)"
    )
    total = seconds + render_seconds
    print(
        f"render + OCR: {pages * 60 / total:.1f} pages per minute ({server or 'vllm'}; OCR {seconds:.1f} s + "
        f"render {render_seconds:.1f} s)"
    )
    print(f"documents:   {len(ok)} with text, {len(run.results) - len(ok)} without")
    print(
        f"peak memory: {memory.peak_tree_mb:.0f} MiB RSS for the process tree (largest single process "
        f"{memory.peak_process_mb:.0f} MiB)"
    )
    if memory.peak_gpu_mb is not None:
        print(f"peak GPU:    {memory.peak_gpu_mb:.0f} MiB used (nvidia-smi, all GPUs)")

    if not args.no_score:
        tests: dict[str, list] = {}
        for test_file in sorted(root.glob("*.jsonl")):
            for key, group in load_test_file(test_file, pdfs=set(pdfs)).by_pdf.items():
                tests.setdefault(key, []).extend(group)
        rates = [
            score_pages(gate_tests(tests[key]), run.results[key].pages).pass_rate
            for key in pdfs
            if key in tests and gate_tests(tests[key])
        ]
        if rates:
            kept = sum(r >= 0.5 for r in rates)
            print(
                f"olmOCR-bench: mean pass rate {sum(rates) / len(rates):.1%} over {len(rates)} PDFs (own tests only); "
                f"{kept} pass the 0.5 gate"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
