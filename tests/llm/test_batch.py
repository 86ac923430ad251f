"""Gemini batch jobs: submit, poll, map results back by key, never submit the same job twice."""

from __future__ import annotations

import json

import pytest

from core.llm.batch import PENDING_PREFIX, BatchRunner
from core.llm.cache import LLMCache
from core.models import RecordState
from core.store import Store
from judge.llm_judge import LLMJudge
from judge.llm_stage import run_llm_judging
from tests.llm.fakes import FakeGemini, ModelRequest, gemini_body, judge_answer

N = 5


def one_run(fake: FakeGemini, store: Store, make_client, **runner_options):
    """One `--batch` run of the judge stage, with a fresh client as a new process would have."""
    client = make_client(fake, store=store, defer_misses=True)
    runner = BatchRunner(store, client, stage="judge", source="hotpotqa", **runner_options)
    counts = run_llm_judging(store, "hotpotqa", LLMJudge(client), 60, batch=runner)
    return counts, runner, client


def jobs(store: Store) -> list[tuple[str, str, dict]]:
    rows = store.con.execute("SELECT job_name, state, keys FROM batch_jobs ORDER BY submitted_at").fetchall()
    return [(name, state, json.loads(keys)) for name, state, keys in rows]


def generate_calls(fake: FakeGemini) -> int:
    return sum(1 for r in fake.requests if r.path.endswith(":generateContent"))


def test_inline_job_submitted_polled_and_mapped_back(
    fake_gemini: FakeGemini, make_gemini_client, store: Store, seed
) -> None:
    seed(store, N)
    counts, _, _ = one_run(fake_gemini, store, make_gemini_client)
    assert counts == {"awaiting_batch": N, "batch_jobs_submitted": 1}
    [(name, state, keys)] = jobs(store)
    assert name.startswith("batches/") and state == "JOB_STATE_PENDING" and len(keys["keys"]) == N
    create = next(r for r in fake_gemini.requests if r.path.endswith(":batchGenerateContent"))
    assert create.path == "/v1/models/gemini-2.5-pro:batchGenerateContent"
    inline = create.body["batch"]["inputConfig"]["requests"]["requests"]
    assert {item["metadata"]["key"] for item in inline} == set(keys["keys"])
    assert "responseJsonSchema" in inline[0]["request"]["generationConfig"]
    assert store.state_counts("hotpotqa") == {"validated": N}

    counts, _, _ = one_run(fake_gemini, store, make_gemini_client)  # the job is still running
    assert counts == {"batch_jobs_running": 1, "awaiting_batch": N}
    assert fake_gemini.batch_creates == 1

    counts, _, client = one_run(fake_gemini, store, make_gemini_client)
    assert counts["batch_jobs_finished"] == 1 and counts["batch_answers"] == N and counts["accepted"] == N
    assert generate_calls(fake_gemini) == 0 and fake_gemini.batch_creates == 1
    assert jobs(store)[0][1] == "JOB_STATE_SUCCEEDED"
    line = next(line for line in client.tally.lines() if line.calls)
    assert line.calls == N and line.cost_usd > 0
    assert store.state_counts("hotpotqa") == {"accepted": N}


def test_large_batches_go_through_an_uploaded_file(
    fake_gemini: FakeGemini, make_gemini_client, store: Store, seed
) -> None:
    seed(store, N)
    fake_gemini.polls_before_done = 0
    one_run(fake_gemini, store, make_gemini_client, inline_max_bytes=10)
    create = next(r for r in fake_gemini.requests if r.path.endswith(":batchGenerateContent"))
    file_name = create.body["batch"]["inputConfig"]["fileName"]
    lines = [json.loads(x) for x in fake_gemini.files[file_name].decode().splitlines()]
    assert len(lines) == N and {"key", "request"} <= set(lines[0])
    assert any(r.path == "/upload/v1/files" for r in fake_gemini.requests)
    counts, _, _ = one_run(fake_gemini, store, make_gemini_client)
    assert counts["accepted"] == N and counts["batch_answers"] == N
    assert any(r.path.endswith(":download") for r in fake_gemini.requests)
    assert generate_calls(fake_gemini) == 0


def test_a_run_killed_after_submitting_never_submits_again(
    fake_gemini: FakeGemini, make_gemini_client, store: Store, seed
) -> None:
    seed(store, N)

    def die(job) -> None:
        raise KeyboardInterrupt("killed between creating the job and storing its name")

    with pytest.raises(KeyboardInterrupt):
        one_run(fake_gemini, store, make_gemini_client, after_create=die)
    assert fake_gemini.batch_creates == 1
    assert jobs(store)[0][0].startswith(PENDING_PREFIX)

    counts, _, _ = one_run(fake_gemini, store, make_gemini_client)
    assert counts["batch_jobs_recovered"] == 1 and counts.get("batch_jobs_submitted", 0) == 0
    assert fake_gemini.batch_creates == 1
    [(name, _, _)] = jobs(store)
    assert name == next(iter(fake_gemini.batches))
    fake_gemini.polls_before_done = 0
    counts, _, _ = one_run(fake_gemini, store, make_gemini_client)
    assert counts["accepted"] == N and fake_gemini.batch_creates == 1


def test_a_failed_submission_is_checked_then_retried(
    fake_gemini: FakeGemini, make_gemini_client, store: Store, seed
) -> None:
    seed(store, N)
    fake_gemini.batch_create_failures = 10  # every retry of this run fails too
    counts, _, _ = one_run(fake_gemini, store, make_gemini_client)
    assert counts.get("batch_jobs_submitted", 0) == 0 and fake_gemini.batches == {}
    fake_gemini.batch_create_failures = 0
    counts, _, _ = one_run(fake_gemini, store, make_gemini_client)
    assert counts["batch_intents_dropped"] == 1 and counts["batch_jobs_submitted"] == 1
    assert len(fake_gemini.batches) == 1


def test_failing_batch_items_are_resent_then_left_in_judge_error(
    fake_gemini: FakeGemini, make_gemini_client, store: Store, seed
) -> None:
    seed(store, 2)
    fake_gemini.polls_before_done = 0
    fake_gemini.batch_item = lambda req: {"error": {"code": 13, "message": "internal"}}
    one_run(fake_gemini, store, make_gemini_client)
    for _ in range(2):
        counts, _, _ = one_run(fake_gemini, store, make_gemini_client)
        assert counts["batch_items_failed"] == 2 and counts["batch_jobs_submitted"] == 1
    counts, _, _ = one_run(fake_gemini, store, make_gemini_client)
    assert counts["judge_error"] == 2 and counts.get("batch_jobs_submitted", 0) == 0
    errors = list(store.records("hotpotqa", [RecordState.JUDGE_ERROR]))
    assert "3 batch jobs" in errors[0].reasons[0].message
    assert any(e["kind"] == "batch_item_failed" for e in store.events(source="hotpotqa"))
    # A later run without --batch asks online, and the records are judged.
    fake_gemini.batch_item = None
    client = make_gemini_client(fake_gemini, store=store)
    assert run_llm_judging(store, "hotpotqa", LLMJudge(client), 60) == {"accepted": 2}


def test_an_unparsable_batch_answer_is_asked_again(
    fake_gemini: FakeGemini, make_gemini_client, store: Store, seed
) -> None:
    seed(store, 1)
    fake_gemini.polls_before_done = 0
    fake_gemini.batch_item = lambda req: {"response": gemini_body("no json here")}
    one_run(fake_gemini, store, make_gemini_client)
    counts, _, _ = one_run(fake_gemini, store, make_gemini_client)
    assert counts["batch_answers"] == 1 and counts["batch_jobs_submitted"] == 1  # cached, unusable, resent
    assert LLMCache(store.con).count() == 0

    def good(req: ModelRequest) -> dict:
        return {"response": gemini_body(judge_answer()(req))}

    fake_gemini.batch_item = good
    counts, _, _ = one_run(fake_gemini, store, make_gemini_client)
    assert counts["accepted"] == 1
