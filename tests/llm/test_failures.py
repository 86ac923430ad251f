"""LLM failures are named and never lost: outages stay retryable, a refused key stops the stage at
its first call, a circuit breaker ends an outage early, malformed replies are cached as failures,
and the run's exit code and one-line summary say what happened. Real SDKs, local fake servers."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import build_split.pipeline as pipeline
from authoring.drafts import load_drafts, run_drafting
from build_split.cli import main
from build_split.exit_codes import LLM_REFUSED, LLM_UNAVAILABLE
from core.llm.failures import LLMStopped
from core.llm.retry import RetryPolicy
from core.models import RecordState
from core.store import Store
from judge.llm_judge import LLMJudge
from judge.llm_stage import run_llm_judging
from tests.llm.conftest import make_record
from tests.llm.fakes import (
    FakeGemini,
    FirstAsked,
    ModelRequest,
    Reply,
    gemini_error,
    judge_answer,
    key_invalid,
    quoted_record,
)
from tests.llm.test_drafts import GOOD_SCHEMA, GOOD_TRUTH, hotpot, reply

ALWAYS_RETRY = RetryPolicy(max_attempts=3, initial_delay=0.01, max_delay=0.02)


@pytest.fixture
def fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's clients with short backoffs (the policy under test is the same, only faster)."""
    original = pipeline.llm_settings

    def quick(*args, **kwargs):
        return original(*args, **kwargs).model_copy(update={"initial_backoff_s": 0.01, "max_backoff_s": 0.02})

    monkeypatch.setattr(pipeline, "llm_settings", quick)


def sample_args(ws: Path, fake: FakeGemini) -> list[str]:
    # --no-review: the judge alone (the reviewer pass has its own tests)
    return ["--source", "hotpotqa", "--sample", "--workspace", str(ws), "--llm-base-url", fake.url, "--no-review"]


# -- drafts -----------------------------------------------------------------------------------------
def test_a_draft_that_meets_an_outage_is_drafted_by_the_next_run(
    fake_gemini: FakeGemini, make_gemini_client, store: Store
) -> None:
    store.upsert_source_items([hotpot(1), hotpot(2)])
    fake_gemini.answer = lambda req: Reply(500, gemini_error(500, "backend exploded"))
    client = make_gemini_client(fake_gemini, store=store, retry=ALWAYS_RETRY)
    counts = run_drafting(store, "hotpotqa", client)
    assert counts == {"not_drafted_transient": 2}
    assert load_drafts(store.con, "hotpotqa") == {}  # nothing final stored: both stay to be drafted

    fake_gemini.answer = lambda req: reply("q?", GOOD_SCHEMA, GOOD_TRUTH)
    calls = len(fake_gemini.requests)
    counts = run_drafting(store, "hotpotqa", make_gemini_client(fake_gemini, store=store))
    assert len(fake_gemini.requests) > calls and sum(counts.values()) == 2
    assert not any(key.startswith("not_drafted") for key in counts)
    assert set(load_drafts(store.con, "hotpotqa")) == {"h1", "h2"}


def test_drafting_against_a_server_that_is_down_stops_and_stores_nothing(make_gemini_client, store: Store) -> None:
    store.upsert_source_items([hotpot(i) for i in range(1, 30)])
    gone = FakeGemini()
    gone.down()
    client = make_gemini_client(gone, store=store, retry=ALWAYS_RETRY)
    client.breaker.max_consecutive = 5
    with pytest.raises(LLMStopped) as stopped:
        run_drafting(store, "hotpotqa", client)
    assert stopped.value.kind == "breaker" and "5 times in a row" in str(stopped.value)
    assert load_drafts(store.con, "hotpotqa") == {}
    assert stopped.value.counts["not_drafted_transient"] >= 1


# -- the circuit breaker and the first call -----------------------------------------------------------
def test_the_circuit_breaker_ends_an_outage_in_seconds(make_gemini_client, store: Store, seed) -> None:
    seed(store, 200)
    gone = FakeGemini()
    gone.down()
    client = make_gemini_client(gone, store=store, concurrency=8, retry=RetryPolicy(max_attempts=6, initial_delay=0.2))
    started = time.monotonic()
    with pytest.raises(LLMStopped) as stopped:
        run_llm_judging(store, "hotpotqa", LLMJudge(client), 60)
    assert time.monotonic() - started < 15  # without the breaker: 200 records x 6 attempts with backoff
    assert stopped.value.kind == "breaker"
    counts = store.state_counts("hotpotqa")
    assert sum(counts.values()) == 200  # no record lost
    assert counts["validated"] >= 150  # never sent: left as they were
    failed = list(store.records("hotpotqa", [RecordState.JUDGE_ERROR]))
    assert 1 <= len(failed) <= 20 + 8 and failed[0].reasons[0].code == "judge_unavailable"  # + calls in flight


def test_throttling_does_not_open_the_breaker(fake_gemini: FakeGemini, make_gemini_client) -> None:
    fake_gemini.retry_after = "0"
    fake_gemini.enqueue(*[Reply(429, gemini_error(429), {"Retry-After": "0"}) for _ in range(8)])
    client = make_gemini_client(fake_gemini, concurrency=1, retry=RetryPolicy(max_attempts=10, initial_delay=0.01))
    client.breaker.max_consecutive = 3
    judge = LLMJudge(client)
    results = [outcome for _, outcome in judge.judge_iter([make_record(i) for i in range(3)], 60)]
    assert client.stop is None and all(not isinstance(r, Exception) for r in results)


@pytest.mark.parametrize("status", [400, 401, 403])
def test_a_refused_key_stops_the_judge_at_the_first_call(
    status: int, fake_gemini: FakeGemini, make_gemini_client, store: Store, seed
) -> None:
    seed(store, 50)
    fake_gemini.fault = key_invalid(status)
    client = make_gemini_client(fake_gemini, store=store, concurrency=8)
    with pytest.raises(LLMStopped) as stopped:
        run_llm_judging(store, "hotpotqa", LLMJudge(client), 60)
    assert stopped.value.kind == "refused" and "API key" in str(stopped.value)
    assert len(fake_gemini.requests) == 1  # one call, not one per record (or per slot)
    counts = store.state_counts("hotpotqa")
    assert counts == {"validated": 49, "judge_error": 1}


def test_a_bad_request_for_one_record_does_not_stop_the_others(
    fake_gemini: FakeGemini, make_gemini_client, store: Store, seed
) -> None:
    records = seed(store, 6)
    poison = records[3].input.question

    def answer(req: ModelRequest) -> str | Reply:
        if quoted_record(req)["question"] == poison:
            return Reply(400, gemini_error(400, "The input token count exceeds the maximum"))
        return judge_answer()(req)

    fake_gemini.answer = answer
    client = make_gemini_client(fake_gemini, store=store)
    counts = run_llm_judging(store, "hotpotqa", LLMJudge(client), 60)
    assert counts == {"accepted": 5, "judge_error": 1} and client.stop is None
    [failed] = store.records("hotpotqa", [RecordState.JUDGE_ERROR])
    assert failed.reasons[0].code == "judge_request_rejected" and "token count" in failed.reasons[0].message


# -- through the CLI: exit codes and the summary line -----------------------------------------------
def test_judge_server_errors_exit_3_with_one_summary_line(
    tmp_path: Path, fake_gemini: FakeGemini, fast_backoff, capsys: pytest.CaptureFixture[str]
) -> None:
    failing = FirstAsked(1)  # the first record asked for fails on every attempt

    def answer(req: ModelRequest) -> str | Reply:
        return (
            Reply(503, gemini_error(503, "overloaded"))
            if failing(quoted_record(req)["question"])
            else judge_answer()(req)
        )

    fake_gemini.answer = answer
    ws = tmp_path / "ws"
    code = main([*sample_args(ws, fake_gemini), "--judge", "gemini", "--release", "0.1.0"])
    out, err = capsys.readouterr()
    assert code == LLM_UNAVAILABLE == 3
    [line] = [line for line in err.splitlines() if "llm failures" in line]
    assert "1 record(s) server error or timeout" in line and "HTTP 503" in line
    with Store.open(ws) as store:
        counts = store.state_counts("hotpotqa")
        assert counts["judge_error"] == 1
        [failed] = store.records("hotpotqa", [RecordState.JUDGE_ERROR])
        assert failed.reasons[0].code == "judge_unavailable"
    # No release leaves out a record that only waits for the server: it would be sealed without it.
    assert "release:    not written: 1 record(s) wait on a transient LLM failure" in out
    assert not (ws / "releases" / "default" / "0.1.0").exists()

    failing.clear()  # healthy again: the next run judges the record it could not, and releases
    assert main(sample_args(ws, fake_gemini) + ["--judge", "gemini", "--release", "0.1.0"]) == 0
    with Store.open(ws) as store:
        assert "judge_error" not in store.state_counts("hotpotqa")
    assert (ws / "releases" / "default" / "0.1.0" / "manifest.json").is_file()


def test_a_dead_server_exits_3_and_writes_no_release(
    tmp_path: Path, fast_backoff, capsys: pytest.CaptureFixture[str]
) -> None:
    gone = FakeGemini()
    gone.down()
    ws = tmp_path / "ws"
    args = [*sample_args(ws, gone), "--judge", "gemini", "--max-consecutive-failures", "4", "--release", "0.1.0"]
    assert main(args) == LLM_UNAVAILABLE
    err = capsys.readouterr().err
    assert "STOPPED" in err and "4 times in a row" in err
    assert not (ws / "releases" / "default" / "0.1.0").exists()
    with Store.open(ws) as store:
        assert "accepted" not in store.state_counts("hotpotqa")


def test_a_refused_key_exits_4(tmp_path: Path, fake_gemini: FakeGemini, capsys: pytest.CaptureFixture[str]) -> None:
    fake_gemini.fault = key_invalid(400)
    assert main([*sample_args(tmp_path / "ws", fake_gemini), "--judge", "gemini"]) == LLM_REFUSED == 4
    assert len(fake_gemini.requests) == 1
    assert "refused" in capsys.readouterr().err


def test_malformed_replies_are_paid_once_and_retried_when_asked(
    tmp_path: Path, fake_gemini: FakeGemini, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_gemini.answer = lambda req: "Sure! Here are my scores: great."
    ws = tmp_path / "ws"
    args = [*sample_args(ws, fake_gemini), "--judge", "gemini"]
    assert main(args) == 0  # nothing a rerun could fix: a warning, not a failure
    err = capsys.readouterr().err
    assert "warning: llm failures in judge" in err and "malformed reply, cached" in err
    paid = len(fake_gemini.requests)
    assert paid == 8 * 3  # 8 records, each asked once and repaired twice

    assert main(args) == 0
    assert len(fake_gemini.requests) == paid  # cached failures: not paid again
    with Store.open(ws) as store:
        [raw] = store.con.execute(
            "SELECT DISTINCT json_extract_string(response, '$.text') FROM llm_cache "
            "WHERE json_extract(response, '$.failed')::BOOLEAN"
        ).fetchone()
        assert raw == "Sure! Here are my scores: great."  # the raw reply is kept

    fake_gemini.answer = judge_answer()
    assert main([*args, "--retry-failed"]) == 0
    assert len(fake_gemini.requests) == paid + 8
    with Store.open(ws) as store:
        assert "judge_error" not in store.state_counts("hotpotqa")


def test_draft_outage_through_the_cli_exits_3_and_keeps_items_to_draft(
    tmp_path: Path, fake_gemini: FakeGemini, fast_backoff, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_gemini.answer = lambda req: Reply(500, gemini_error(500))
    ws = tmp_path / "ws"
    args = [*sample_args(ws, fake_gemini), "--judge", "heuristic", "--draft", "--max-consecutive-failures", "0"]
    assert main(args) == LLM_UNAVAILABLE
    assert "llm failures in draft" in capsys.readouterr().err
    with Store.open(ws) as store:
        assert load_drafts(store.con, "hotpotqa") == {}


def test_every_kind_has_a_documented_exit_code() -> None:
    import build_split.exit_codes as codes

    doc = codes.__doc__ or ""
    for value in (codes.OK, codes.USAGE, codes.LLM_UNAVAILABLE, codes.LLM_REFUSED):
        assert f"- {value}:" in doc
    assert len({codes.OK, codes.UNEXPECTED, codes.USAGE, codes.LLM_UNAVAILABLE, codes.LLM_REFUSED}) == 5


def test_an_unparsable_draft_is_asked_again_only_with_retry_failed(
    fake_gemini: FakeGemini, make_gemini_client, store: Store
) -> None:
    store.upsert_source_items([hotpot(1)])
    fake_gemini.answer = lambda req: "Here is a draft: the University of Oslo."
    assert run_drafting(store, "hotpotqa", make_gemini_client(fake_gemini, store=store)) == {"no_draft_unparsable": 1}
    paid = len(fake_gemini.requests)
    fake_gemini.answer = lambda req: reply("q?", GOOD_SCHEMA, GOOD_TRUTH)
    assert run_drafting(store, "hotpotqa", make_gemini_client(fake_gemini, store=store)) == {}
    assert len(fake_gemini.requests) == paid
    client = make_gemini_client(fake_gemini, store=store)
    client.retry_failed = True
    counts = run_drafting(store, "hotpotqa", client)
    assert len(fake_gemini.requests) > paid and "no_draft_unparsable" not in counts
    assert load_drafts(store.con, "hotpotqa")["h1"].reason != "unparsable"


def test_an_openai_server_refusing_the_key_stops_at_the_first_call(
    fake_openai, make_openai_client, store: Store, seed
) -> None:
    seed(store, 20)
    fake_openai.fault = key_invalid(401)
    client = make_openai_client(fake_openai, store=store, concurrency=8)
    with pytest.raises(LLMStopped) as stopped:
        run_llm_judging(store, "hotpotqa", LLMJudge(client), 60)
    assert stopped.value.kind == "refused" and "HTTP 401" in str(stopped.value)
    assert len(fake_openai.requests) == 1 and store.state_counts("hotpotqa")["validated"] == 19


def test_a_judge_that_times_out_leaves_the_record_waiting(
    fake_gemini: FakeGemini, make_gemini_client, store: Store, seed
) -> None:
    records = seed(store, 3)
    slow = records[1].input.question

    def answer(req: ModelRequest) -> str | Reply:
        if quoted_record(req)["question"] == slow:
            return Reply(200, None, delay=3.0)  # past the client's timeout
        return judge_answer()(req)

    fake_gemini.answer = answer
    client = make_gemini_client(fake_gemini, store=store, timeout_s=1.0, retry=ALWAYS_RETRY)
    counts = run_llm_judging(store, "hotpotqa", LLMJudge(client), 60)
    assert counts == {"accepted": 2, "judge_error": 1} and client.failures.counts == {"transient": 1}
    [waiting] = store.records("hotpotqa", [RecordState.JUDGE_ERROR])
    assert waiting.record.input.question == slow and waiting.reasons[0].code == "judge_unavailable"
