"""A judging run killed part-way and run again: every record judged exactly once, no call repeated
for a key that was cached, nothing lost."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from core.llm.cache import cache_key
from core.llm.client import LLMClient
from core.llm.gemini_backend import GeminiBackend, GeminiSettings
from core.models import RecordState
from core.store import Store
from judge.llm_judge import LLMJudge
from tests.llm.conftest import REPO_ROOT
from tests.llm.fakes import FakeGemini, ModelRequest, judge_answer, quoted_record

N = 60


def _run_worker(workspace: Path, url: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.llm.judge_worker", str(workspace), url, "--concurrency", "4", "--chunk", "10"],
        cwd=REPO_ROOT,
        env=os.environ.copy(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_killed_run_resumes_without_repeating_cached_calls(fake_gemini: FakeGemini, tmp_path: Path, seed) -> None:
    workspace = tmp_path / "ws"
    with Store.open(workspace) as store:
        records = seed(store, N)

    def answer(req: ModelRequest) -> str:
        number = int(quoted_record(req)["question"].split()[3])
        return judge_answer({"accuracy": 40} if number % 5 == 0 else {})(req)

    fake_gemini.answer = answer
    fake_gemini.latency = 0.03

    child = _run_worker(workspace, fake_gemini.url)
    deadline = time.monotonic() + 30
    while sum(fake_gemini.answered.values()) < N // 2:
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline, "the worker made no progress"
        time.sleep(0.005)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    before = Counter(fake_gemini.answered)

    # What the killed run left behind: some answers cached, some verdicts applied, nothing half-done.
    judge = LLMJudge(LLMClient(GeminiBackend(GeminiSettings()), "gemini-2.5-pro"))  # only builds requests
    keys = {r.record_id: cache_key("gemini", "gemini-2.5-pro", judge.request_for(r)) for r in records}
    users = {r.record_id: _user_hash(judge, r) for r in records}
    with Store.open(workspace) as store:
        cached = {k for (k,) in store.con.execute("SELECT cache_key FROM llm_cache").fetchall()}
        states_after_kill = Counter(s.state for s in store.records("hotpotqa"))
    assert 0 < len(cached) < N, "the kill should land in the middle of the run"
    assert states_after_kill[RecordState.VALIDATED] > 0

    rerun = _run_worker(workspace, fake_gemini.url)
    out, err = rerun.communicate(timeout=60)
    assert rerun.returncode == 0, err

    for record in records:
        user = users[record.record_id]
        if keys[record.record_id] in cached:
            assert fake_gemini.answered[user] == before[user], "a cached key was asked again"
        else:
            assert fake_gemini.answered[user] - before[user] == 1
    with Store.open(workspace) as store:
        states = Counter(s.state for s in store.records("hotpotqa"))
        assert states == {RecordState.ACCEPTED: N - N // 5, RecordState.REJECTED: N // 5}
        events = store.events(source="hotpotqa")
    judged = Counter(e["record_id"] for e in events if e["stage"] == "judge" and e["kind"] == "state_change")
    assert set(judged) == {r.record_id for r in records} and set(judged.values()) == {1}
    # Only answers not committed at the kill can have been asked twice: those in the cache's write
    # buffer (the worker flushes every 8) and those still in a worker thread (2 x concurrency).
    assert sum(fake_gemini.answered.values()) <= N + 8 + 8


def _user_hash(judge: LLMJudge, record) -> str:
    req = judge.request_for(record)
    return ModelRequest(model="", system="", user=req.user, schema={}).user_hash
