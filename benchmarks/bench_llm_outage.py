"""Benchmark: how long the LLM judge stage takes to give up on a dead or broken server.

N validated records are judged with the CLI's default LLM settings (concurrency 8, 6 attempts per
request with backoff from 1 s, circuit breaker after 20 consecutive server failures) through the
real google-genai SDK, against (a) a port where nothing listens (server down) and (b) a local fake
Gemini that answers every request 503, and (c) one that refuses the key (HTTP 400 API_KEY_INVALID).
Prints the seconds until the stage stopped, the HTTP requests sent and where the records are.

    python benchmarks/bench_llm_outage.py --records 2000
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.bench_llm_judge import make_records  # noqa: E402
from core.llm.cache import LLMCache  # noqa: E402
from core.llm.failures import LLMStopped  # noqa: E402
from core.llm.settings import LLMSettings, make_client  # noqa: E402
from core.models import RecordState  # noqa: E402
from core.store import StateChange, Store  # noqa: E402
from core.verdicts import ValidationReport  # noqa: E402
from judge.llm_judge import LLMJudge  # noqa: E402
from judge.llm_stage import run_llm_judging  # noqa: E402
from tests.llm.fakes import FakeGemini, Reply, gemini_error, key_invalid  # noqa: E402


def always_503(server: FakeGemini) -> None:
    server.answer = lambda req: Reply(503, gemini_error(503, "overloaded"))


def refuse_key(server: FakeGemini) -> None:
    server.fault = key_invalid(400)


def case(name: str, records: int, setup: Callable[[FakeGemini], None] | None) -> None:
    server = FakeGemini()
    if setup is None:
        server.down()
    else:
        setup(server)
    settings = LLMSettings(backend="gemini", model="gemini-2.5-pro", base_url=server.url)  # CLI defaults
    report = ValidationReport(passed=True).model_dump(mode="json")
    with tempfile.TemporaryDirectory(prefix="sob-bench-outage-") as tmp, Store.open(Path(tmp) / "ws") as store:
        batch = make_records(records)
        store.upsert_records(batch, RecordState.AUTHORED, "import")
        store.apply([StateChange(r.record_id, RecordState.VALIDATED, "validation", validation=report) for r in batch])
        judge = LLMJudge(make_client(settings, cache=LLMCache(store.con)))
        started = time.perf_counter()
        try:
            run_llm_judging(store, "hotpotqa", judge, 60)
            stopped = "not stopped"
        except LLMStopped as stop:
            stopped = f"stopped ({stop.kind})"
        elapsed = time.perf_counter() - started
        states = store.state_counts("hotpotqa")
    sent = "n/a (connection refused)" if setup is None else str(len(server.requests))
    server.close()
    print(f"{name}: {records} records, {stopped} after {elapsed:.1f} s; HTTP requests {sent}; records {states}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=2000)
    args = parser.parse_args()
    os.environ.setdefault("GEMINI_API_KEY", "bench-key-not-real")
    print("without the breaker each record would make 6 attempts with 1+2+4+8+16 s of backoff")
    case("server down", args.records, None)
    case("every request 503", args.records, always_503)
    case("key refused (400 API_KEY_INVALID)", args.records, refuse_key)


if __name__ == "__main__":
    main()
