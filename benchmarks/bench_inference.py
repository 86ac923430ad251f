"""Benchmark: `python -m scoring.run`'s inference on a release through the real google-genai SDK against a local
Gemini stand-in that answers each call in --latency seconds (100 ms by default).

A release of --records records is built from the scoring tests' record maker; the run asks every record at
--concurrency, and its throughput is compared with the bound concurrency / latency (target: at least 85%). The
same run again answers from the response file and the cache: no call.

    .venv/bin/python benchmarks/bench_inference.py --records 1000 --latency 0.1 --concurrency 20
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from core.store import Store  # noqa: E402
from exports import write_release  # noqa: E402
from scoring.run.backends import RunSettings, make_run_backend  # noqa: E402
from scoring.run.runner import RunOptions, run_inference  # noqa: E402
from tests.scoring.conftest import JUDGE, accept, make_record  # noqa: E402


class ServerProcess:
    """The Gemini stand-in (tests/llm/fakes.py) in its own process: its work does not share this process's GIL."""

    def __init__(self, latency: float) -> None:
        command = [sys.executable, "-m", "tests.llm.fakes", "gemini", "--latency", str(latency)]
        self.proc = subprocess.Popen(command, cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()

    def stats(self) -> dict[str, int]:
        with urllib.request.urlopen(f"{self.url}/_stats") as response:
            return json.load(response)

    def cpu_seconds(self) -> float:
        """The stand-in's own CPU so far: on this machine it shares the cores with the client."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def _stamp(answers: list[float], _progress: str) -> None:
    answers.append(time.perf_counter())


def cpu_seconds() -> float:
    """CPU of this process and of its finished children (the worker processes of --processes; the stand-in
    server is still running, so it is not counted)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--processes", type=int, default=1, help="scoring.run's --processes (worker processes)")
    args = parser.parse_args()
    os.environ["GEMINI_API_KEY"] = "bench-key-not-real"
    with tempfile.TemporaryDirectory(prefix="bench-inference-") as tmp:
        workspace = Path(tmp) / "ws"
        with Store.open(workspace) as store:
            accept(store, [make_record(i) for i in range(args.records)])
            release = write_release(store, "hotpotqa", "1.0.0", workspace, plots=False, **JUDGE).path
        server = ServerProcess(args.latency)
        try:
            settings = RunSettings(provider="gemini", base_url=server.url, max_connections=max(args.concurrency, 20))
            options = RunOptions(
                model_id="gemini-2.5-flash",
                settings=settings,
                output_root=Path(tmp) / "runs",
                concurrency=args.concurrency,
                processes=args.processes,
            )
            figures = {}
            for label in ("first run", "second run"):
                with Store.open(Path(tmp) / "cache") as store:
                    before, server_cpu = server.stats()["model_calls"], server.cpu_seconds()
                    started, cpu_started = time.perf_counter(), cpu_seconds()
                    factory = functools.partial(make_run_backend, settings, options.model_id)
                    answers: list[float] = []  # when each record was answered
                    report = run_inference(release, options, store, factory, functools.partial(_stamp, answers))
                    took, cpu = time.perf_counter() - started, cpu_seconds() - cpu_started
                    calls = server.stats()["model_calls"] - before
                    # Once started: from the first answer (the probe call, after the SDK and any worker processes
                    # are up) to the last. The end-to-end rate above also carries that one-time start.
                    steady = (len(answers) - 1) / (answers[-1] - answers[0]) if len(answers) > 1 else 0.0
                    first = answers[0] - started if answers else 0.0
                    figures[label] = (took, calls, report, cpu, server.cpu_seconds() - server_cpu, steady, first)
        finally:
            server.close()
    took, calls, report, cpu, server_cpu, steady, first = figures["first run"]
    bound = args.concurrency / args.latency
    rate = calls / took
    print(
        f"records: {args.records}, latency {args.latency * 1000:.0f} ms, concurrency {args.concurrency}, "
        f"processes {args.processes}"
    )
    print(
        f"first run: {calls} calls in {took:.2f} s = {rate:.1f} calls/s end to end, {rate / bound:.1%} of {bound:.0f}/s"
    )
    print(
        f"  once started ({first:.2f} s to the first answer: SDK import, workers, the probe call): "
        f"{steady:.1f} calls/s = {steady / bound:.1%} of the bound"
    )
    print(f"  complete: {report.complete}, answered {report.answered}, not JSON {report.not_json}")
    # The client's own CPU per call (mostly the SDK's, worker processes included): at the bound it needs bound x this.
    per_call = cpu / max(calls, 1)
    print(f"  client CPU: {per_call * 1000:.1f} ms per call; the bound needs {per_call * bound:.2f} core(s)")
    print(f"  stand-in CPU: {server_cpu / max(calls, 1) * 1000:.1f} ms per call (on the same cores)")
    print(f"  load average when done: {os.getloadavg()[0]:.1f} on {os.cpu_count()} core(s)")
    took2, calls2, report2, *_ = figures["second run"]
    print(f"second run: {calls2} calls in {took2:.2f} s (complete: {report2.complete})")


if __name__ == "__main__":
    main()
