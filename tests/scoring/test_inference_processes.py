"""`python -m scoring.run --processes N`: the calls made by worker processes (core/llm/process_backend.py) give the
same response file as one process, pay each call once, and carry a provider's refusal back whole (the run stops
at the first call, exit 4, the key masked); a worker that cannot build its backend fails the run with why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.llm.process_backend import ProcessBackend, split
from core.llm.types import LLMError, LLMRequest
from scoring.run.answer import RecordAnswer
from scoring.run.cli import main
from tests.llm.fakes import key_invalid
from tests.scoring.inference_support import SECRET, clean_env, nulls_answer, run_args, stand_in

RESPONSES = "text_responses/response_test-model.jsonl"


def lines_without_timing(path: Path) -> list[dict]:
    lines = [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        line["eval_info"].pop("avg_time_per_record")  # wall time: the one field two runs may not share
    return lines


def test_two_processes_write_the_file_one_process_writes_and_pay_each_call_once(scored_release, tmp_path, monkeypatch):
    clean_env(monkeypatch, "gemini")
    server = stand_in("gemini")
    server.answer = nulls_answer
    try:
        one = run_args(scored_release.path, "gemini", server, tmp_path / "one", tmp_path / "ws-one")
        assert main(one) == 0
        assert server.total_model_calls == 24
        two = run_args(scored_release.path, "gemini", server, tmp_path / "two", tmp_path / "ws-two", "--processes", "2")
        assert main(two) == 0
        assert server.total_model_calls == 48  # a workspace of its own: its own 24 calls, no more
        assert main(two) == 0
        assert server.total_model_calls == 48  # run again: nothing asked
    finally:
        server.close()
    assert lines_without_timing(tmp_path / "two" / RESPONSES) == lines_without_timing(tmp_path / "one" / RESPONSES)


def test_a_refusal_crosses_the_process_boundary_and_stops_the_run(scored_release, tmp_path, monkeypatch, capsys):
    clean_env(monkeypatch, "gemini")
    server = stand_in("gemini")
    server.fault = key_invalid()
    try:
        args = run_args(scored_release.path, "gemini", server, tmp_path / "out", tmp_path / "ws", "--processes", "2")
        code = main(args)
    finally:
        server.close()
    err = capsys.readouterr().err
    assert code == 4, err
    assert len(server.requests) == 1  # the refusal came back as a refusal: nothing was sent after it
    assert "STOPPED" in err and "refused" in err and SECRET not in err
    assert not (tmp_path / "out" / RESPONSES).exists()


def _unbuildable() -> object:
    raise RuntimeError("no SDK on this worker")


def test_a_worker_that_cannot_build_its_backend_fails_each_call_with_why() -> None:
    backend = ProcessBackend("gemini", _unbuildable, processes=2, concurrency=2)
    request = LLMRequest(stage="inference", prompt_version="t/1", system="s", user="u", response_model=RecordAnswer)
    try:
        with pytest.raises(LLMError, match="could not be built: RuntimeError: no SDK on this worker"):
            backend.generate("test-model", request)
    finally:
        backend.close()


def test_a_factory_that_cannot_reach_a_worker_is_refused_at_once() -> None:
    with pytest.raises(ValueError, match="cannot be sent to a worker process"):
        ProcessBackend("gemini", lambda: None, processes=2, concurrency=2)


def test_worker_processes_keep_calls_ready_but_never_send_more_than_the_concurrency(
    scored_release, tmp_path, monkeypatch
):
    clean_env(monkeypatch, "gemini")
    server = stand_in("gemini")
    server.answer = nulls_answer
    server.latency = 0.05  # long enough for calls to pile up if the workers let them through
    try:
        args = run_args(scored_release.path, "gemini", server, tmp_path / "out", tmp_path / "ws", "--processes", "2")
        assert main([*args, "--concurrency", "3"]) == 0
    finally:
        server.close()
    assert server.total_model_calls == 24
    assert server.max_in_flight == 3  # 2 + 1 split across the workers: the provider sees the concurrency asked for


def test_the_concurrency_is_split_exactly_and_the_client_may_hand_over_more() -> None:
    assert split(5, 2) == [3, 2] and split(20, 2) == [10, 10]
    with pytest.raises(ValueError, match="concurrency of at least 2"):
        split(1, 2)
    backend = ProcessBackend("gemini", _unbuildable, processes=2, concurrency=20)
    try:
        assert backend.capacity == 20 + 5 + 5  # in flight, plus half as many again ready in each worker
    finally:
        backend.close()
