"""Benchmark: LLM judge calls through the real google-genai SDK against a local fake Gemini server.

The server answers each generateContent in --latency seconds and rejects --rate-limited of them
with 429 + Retry-After. N validated records are judged by the judge stage (cache in the store,
verdicts applied in chunks) at --concurrency; throughput is compared with the bound
concurrency / latency. The same records are then judged again: every answer comes from the cache.

    python benchmarks/bench_llm_judge.py --calls 2000 --latency 0.3 --rate-limited 0.05 --concurrency 32
"""

from __future__ import annotations

import argparse
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

from core.llm.cache import LLMCache  # noqa: E402
from core.llm.settings import LLMSettings, make_client  # noqa: E402
from core.llm.usage import UsageTally  # noqa: E402
from core.models import Record, RecordState, SourceItem  # noqa: E402
from core.store import StateChange, Store  # noqa: E402
from core.verdicts import ValidationReport  # noqa: E402
from judge.llm_judge import LLMJudge  # noqa: E402
from judge.llm_stage import run_llm_judging  # noqa: E402


class ServerProcess:
    """The fake Gemini server (tests/llm/fakes.py) in its own process, so its work does not share
    this process's interpreter lock with the client being measured."""

    def __init__(self, latency: float, rate_limited: float, retry_after: str) -> None:
        command = [sys.executable, "-m", "tests.llm.fakes", "gemini", "--latency", str(latency)]
        command += ["--rate-limited", str(rate_limited), "--retry-after", retry_after]
        self.proc = subprocess.Popen(command, cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()

    def stats(self) -> dict[str, int]:
        with urllib.request.urlopen(f"{self.url}/_stats") as response:
            return json.load(response)

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


SCHEMA = {
    "type": "object",
    "properties": {
        "person": {"type": "string", "description": "who"},
        "born": {"type": "integer", "description": "birth year"},
        "answer": {"type": "string", "description": "the final answer"},
    },
    "required": ["person", "born", "answer"],
}


def make_records(n: int) -> list[Record]:
    records = []
    for i in range(n):
        year = 1900 + i % 100
        item = SourceItem(
            source="hotpotqa",
            source_id=f"b{i:06d}",
            context=f"Person {i} was born in {year} in a town by the sea. " * 20,
            question=f"When was person {i} born?",
            answer=str(year),
        )
        truth = {"person": f"Person {i}", "born": year, "answer": str(year)}
        records.append(Record.build(item, item.question or "", SCHEMA, truth))
    return records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--rate-limited", type=float, default=0.05, help="fraction of calls answered 429")
    parser.add_argument("--retry-after", default="1", help="Retry-After seconds sent with each 429")
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()

    os.environ.setdefault("GEMINI_API_KEY", "bench-key-not-real")
    server = ServerProcess(args.latency, args.rate_limited, args.retry_after)
    settings = LLMSettings(
        backend="gemini",
        model="gemini-2.5-pro",
        base_url=server.url,
        concurrency=args.concurrency,
        timeout_s=30,
        max_attempts=8,
    )
    records = make_records(args.calls)
    report = ValidationReport(passed=True).model_dump(mode="json")
    with tempfile.TemporaryDirectory(prefix="sob-bench-llm-") as tmp, Store.open(Path(tmp) / "ws") as store:
        store.upsert_records(records, RecordState.AUTHORED, "import")
        store.apply([StateChange(r.record_id, RecordState.VALIDATED, "validation", validation=report) for r in records])

        tally = UsageTally()
        judge = LLMJudge(make_client(settings, cache=LLMCache(store.con), tally=tally))
        started = time.perf_counter()
        counts = run_llm_judging(store, "hotpotqa", judge, 60)
        elapsed = time.perf_counter() - started
        stats = server.stats()
        http_requests = stats["model_calls"]
        limited = http_requests - stats["answered"]

        rate = args.calls / elapsed
        bound = args.concurrency / args.latency
        print(f"judge stage: {args.calls} records in {elapsed:.2f} s -> {dict(counts)}")
        print(f"HTTP requests: {http_requests} ({limited} answered 429 with Retry-After {args.retry_after} s)")
        print(f"throughput: {rate:.1f} calls/s; bound concurrency/latency = {bound:.1f} calls/s; {rate / bound:.1%}")
        for line in tally.report():
            print(line)

        # Immediate re-run of the stage: nothing is waiting.
        before = server.stats()["model_calls"]
        again = run_llm_judging(store, "hotpotqa", judge, 60)
        # And judging the very same records again: every answer comes from the cache.
        started = time.perf_counter()
        rejudged = sum(1 for _ in judge.judge_iter(records, 60))
        cached_elapsed = time.perf_counter() - started
        print(
            f"re-run: stage {dict(again) or 'nothing waiting'}; re-judging {rejudged} records took "
            f"{cached_elapsed:.2f} s; calls on re-run: {server.stats()['model_calls'] - before}"
        )
    server.close()


if __name__ == "__main__":
    main()
