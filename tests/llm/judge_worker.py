"""Run the LLM judge stage on a workspace against a given Gemini endpoint (a child process for tests)."""

from __future__ import annotations

import argparse

from core.llm.cache import LLMCache
from core.llm.client import LLMClient
from core.llm.gemini_backend import GeminiBackend, GeminiSettings
from core.llm.retry import RetryPolicy
from core.store import Store
from judge.llm_judge import LLMJudge
from judge.llm_stage import run_llm_judging


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("workspace")
    parser.add_argument("base_url")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--chunk", type=int, default=10)
    args = parser.parse_args()
    with Store.open(args.workspace) as store:
        backend = GeminiBackend(GeminiSettings(base_url=args.base_url, timeout_s=5))
        client = LLMClient(
            backend,
            "gemini-2.5-pro",
            cache=LLMCache(store.con, flush_every=8),
            concurrency=args.concurrency,
            retry=RetryPolicy(max_attempts=4, initial_delay=0.01, max_delay=0.05),
        )
        counts = run_llm_judging(store, "hotpotqa", LLMJudge(client), 60, chunk=args.chunk)
        print(dict(counts))


if __name__ == "__main__":
    main()
