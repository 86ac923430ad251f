"""`python -m scoring.run` as a run: resumed after a kill without repeating a finished call, re-run without any
call, and a refused key, a 429 storm and a malformed reply ending as the judge's do (exit 4, exit 3 with the
records left for the next run, the reply kept and cached)."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from scoring.cli import main as score_main
from scoring.run.cli import main
from scoring.run.prompts import build_user_message
from scoring.run.responses import Answered, read_answered
from tests.llm.fake_anthropic import anthropic_key_invalid
from tests.llm.fakes import key_invalid
from tests.scoring.inference_support import SECRET, clean_env, nulls_answer, run_args, stand_in

ROOT = Path(__file__).resolve().parents[2]
RESPONSES = "text_responses/response_test-model.jsonl"


def user_hash(line: dict) -> str:
    data = line["input"]
    user = build_user_message(data["context"], data["question"], data["json_schema"])
    return hashlib.sha256(user.encode()).hexdigest()[:16]


def read_lines(path: Path) -> list[dict]:
    return [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines() if text.strip()]


def wait_for(condition, what: str, limit: float = 60.0) -> None:
    """Wait for an event (the limit only stops a broken test from hanging)."""
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, f"waited {limit:.0f} s for {what}"
        time.sleep(0.02)


def test_a_rerun_makes_no_call_and_leaves_the_file_as_it_was(scored_release, tmp_path, monkeypatch, capsys):
    clean_env(monkeypatch, "openai")
    server = stand_in("openai")
    server.answer = nulls_answer
    try:
        args = run_args(scored_release.path, "openai", server, tmp_path / "out", tmp_path / "ws")
        assert main(args) == 0
        first = (tmp_path / "out" / RESPONSES).read_bytes()
        calls = server.total_model_calls
        assert calls == 24
        assert main(args) == 0
        assert server.total_model_calls == calls  # nothing asked again
        assert (tmp_path / "out" / RESPONSES).read_bytes() == first
        # The file gone, the answers are still in the store's cache: written again without a call.
        (tmp_path / "out" / RESPONSES).unlink()
        assert main(args) == 0
        assert server.total_model_calls == calls
        assert "24 cache hit(s)" in capsys.readouterr().out
        assert [line["metadata"]["record_id"] for line in read_lines(tmp_path / "out" / RESPONSES)] == [
            line["metadata"]["record_id"] for line in map(json.loads, first.decode().splitlines())
        ]
    finally:
        server.close()


def test_a_killed_run_resumes_without_repeating_a_finished_call(scored_release, tmp_path, monkeypatch):
    clean_env(monkeypatch, "gemini")
    server = stand_in("gemini")
    server.answer = nulls_answer
    server.latency = 0.05
    out, workspace = tmp_path / "out", tmp_path / "ws"
    args = run_args(scored_release.path, "gemini", server, out, workspace, "--concurrency", "2")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI_", "GOOGLE_", "OPENAI_", "ANTHROPIC_"))}
    env |= {"PYTHONPATH": str(ROOT), "GEMINI_API_KEY": SECRET}
    partial = out / (RESPONSES + ".partial")
    log = (tmp_path / "run.log").open("w")
    process = subprocess.Popen([sys.executable, "-m", "scoring.run", *args], env=env, cwd=tmp_path, stderr=log)
    try:
        wait_for(lambda: partial.exists() and len(partial.read_text().splitlines()) >= 6, "six finished records")
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
        log.close()
    log_text = (tmp_path / "run.log").read_text()
    assert process.returncode == -signal.SIGKILL and "Traceback" not in log_text, log_text[-2000:]
    finished = {line["record_id"] for line in read_lines(partial)}  # a line cut short by the kill: left out
    assert 6 <= len(finished) < 24
    assert not (out / RESPONSES).exists()  # not complete: no response file yet
    before = server.total_model_calls
    try:
        assert main(args) == 0
    finally:
        server.close()
    lines = read_lines(out / RESPONSES)
    assert len(lines) == 24 and not partial.exists()
    for line in lines:
        if line["metadata"]["record_id"] in finished:
            assert server.model_calls[user_hash(line)] == 1, "a finished call was asked again"
    # only the calls in flight when the kill landed (at most the concurrency, 2) can have been paid twice
    assert server.total_model_calls - before <= 24 - len(finished) + 2
    assert all(server.model_calls[user_hash(line)] >= 1 for line in lines)


def test_a_refused_key_stops_at_the_first_call_and_exits_4(scored_release, tmp_path, monkeypatch, capsys):
    for provider, refusal in (("gemini", key_invalid()), ("anthropic", anthropic_key_invalid())):
        clean_env(monkeypatch, provider)
        server = stand_in(provider)
        server.fault = refusal
        try:
            code = main(run_args(scored_release.path, provider, server, tmp_path / provider, tmp_path / "ws"))
        finally:
            server.close()
        err = capsys.readouterr().err
        assert code == 4, err
        assert len(server.requests) == 1  # the first call goes alone; nothing is sent after the refusal
        assert "STOPPED" in err and "refused" in err and SECRET not in err
        assert not (tmp_path / provider / RESPONSES).exists()


def test_a_429_storm_leaves_the_records_for_the_next_run(scored_release, tmp_path, monkeypatch, capsys):
    clean_env(monkeypatch, "openai")
    server = stand_in("openai")
    server.rate_limit_fraction = 1.0
    server.retry_after = "0"
    args = run_args(scored_release.path, "openai", server, tmp_path / "out", tmp_path / "ws", "--max-attempts", "2")
    try:
        assert main(args) == 3
        err = capsys.readouterr().err
        assert "24 transient" in err and "run the command again" in err
        assert not (tmp_path / "out" / RESPONSES).exists()
        assert server.total_model_calls == 48  # two attempts per record, no more
        server.rate_limit_fraction = 0.0  # the storm is over
        assert main(args) == 0
    finally:
        server.close()
    assert len(read_lines(tmp_path / "out" / RESPONSES)) == 24
    assert sum(server.answered.values()) == 24  # each record answered once


def test_a_malformed_reply_is_kept_as_sob_keeps_it_and_never_paid_twice(scored_release, tmp_path, monkeypatch, capsys):
    clean_env(monkeypatch, "gemini")
    server = stand_in("gemini")
    server.answer = lambda req: "I cannot answer {that" if "Zurich" in req.user else nulls_answer(req)
    args = run_args(scored_release.path, "gemini", server, tmp_path / "out", tmp_path / "ws")
    try:
        assert main(args) == 0
        assert "8 not JSON" in capsys.readouterr().out
        calls = server.total_model_calls
        assert calls == 24  # the reply under test is never sent back for repair
        (tmp_path / "out" / RESPONSES).unlink()
        assert main(args) == 0  # the malformed replies come from the cache, as failures
        assert server.total_model_calls == calls
    finally:
        server.close()
    lines = read_lines(tmp_path / "out" / RESPONSES)
    texts = [
        line["output"]["candidate_response"] for line in lines if isinstance(line["output"]["candidate_response"], str)
    ]
    assert texts == ["I cannot answer {that"] * 8
    # and the scorer reads them as SOB does: parse failures
    assert (
        score_main(
            ["--responses", str(tmp_path / "out/text_responses"), "--output-root", str(tmp_path / "ev"), "--quiet"]
        )
        == 0
    )
    summary = json.loads((tmp_path / "ev/text/test-model/eval_summary.json").read_text())
    assert summary["data_quality"]["json_parse_fail_count"] == 8


def test_binary_columns_stay_out_of_the_lines(tmp_path):
    """An image release's `page_image` (PNG bytes) is not part of a JSON line: SOB's models read the OCR text."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from scoring.inputs import Release, ReleaseRecord
    from scoring.run.runner import release_rows

    (tmp_path / "data").mkdir()
    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    table = pa.table(
        {
            "record_id": ["r1"],
            "context": ["OCR text"],
            "page_image": pa.array([[{"bytes": b"\x89PNG", "path": None}]], type=pa.list_(image)),
        }
    )
    pq.write_table(table, tmp_path / "data/train-0.parquet")
    record = ReleaseRecord("r1", "train", "OCR text", "q", {}, {}, None, None, None, None)
    rows = release_rows(Release(tmp_path, "image", "olmocr", "1.0.0", {"r1": record}, "image"))
    assert rows == [{"record_id": "r1", "context": "OCR text"}]


def test_anthropic_overloaded_is_retried_and_answered(scored_release, tmp_path, monkeypatch):
    from tests.llm.fake_anthropic import anthropic_error
    from tests.llm.fakes import Reply

    clean_env(monkeypatch, "anthropic")
    server = stand_in("anthropic")
    server.answer = nulls_answer
    server.enqueue(*[Reply(529, anthropic_error(529, "Overloaded"), {"retry-after": "0"})] * 3)
    try:
        args = run_args(
            scored_release.path, "anthropic", server, tmp_path / "out", tmp_path / "ws", "--sample-size", "4"
        )
        assert main(args) == 0
    finally:
        server.close()
    assert server.total_model_calls == 4 + 3 and sum(server.answered.values()) == 4
    lines = read_lines(tmp_path / "out" / RESPONSES)
    assert all(isinstance(line["output"]["candidate_response"], dict) for line in lines)


def test_bad_input_is_one_clear_line(scored_release, tmp_path, monkeypatch, capsys):
    clean_env(monkeypatch)  # no key at all
    server = stand_in("openai")
    try:
        args = run_args(scored_release.path, "openai", server, tmp_path / "out", tmp_path / "ws")
        assert main(args) == 2
        assert capsys.readouterr().err == "error: --provider openai needs an API key: set OPENAI_API_KEY\n"
        assert not (tmp_path / "out").exists()  # no file written
        monkeypatch.setenv("OPENAI_API_KEY", SECRET)
        args[1] = str(tmp_path / "no-such-release")
        assert main(args) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and "does not exist" in err and len(err.splitlines()) == 1
    finally:
        server.close()
    assert server.requests == []  # nothing was sent


def test_the_checkpoint_reads_its_own_lines_whole_sob_lines_and_skips_a_cut_one(tmp_path):
    """A partial file keeps the record id, the candidate and the tokens; one an earlier version wrote holds whole
    SOB lines; the last line of a killed run may be cut short."""
    partial = tmp_path / "response_m.jsonl.partial"
    whole = {
        "metadata": {"record_id": "r2", "difficulty": "easy", "model_id": "m"},
        "input": {"context": "c", "question": "q", "json_schema": {}},
        "output": {"candidate_response": {"a": 2}, "ground_truth": {"a": 2}},
        "eval_info": {"input_tokens": 7, "output_tokens": 3, "avg_time_per_record": 0.0},
    }
    lines = [Answered({"a": 1}, 10, 4).to_json("r1"), json.dumps(whole), '{"record_id": "r3", "candidate_re']
    partial.write_text("\n".join(lines), encoding="utf-8")
    found = read_answered(partial)
    assert found == {"r1": Answered({"a": 1}, 10, 4), "r2": Answered({"a": 2}, 7, 3)}
