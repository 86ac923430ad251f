"""`python -m scoring.run` sends what SOB's `python -m sob.run` sends, byte for byte, and writes SOB's lines.

The reference is SOB's own code (tests/data/sob_repo, MIT), run in a subprocess on the same release rows: its
SYSTEM_PROMPT and build_user_message, its Gemini and strict schemas, its build_eval_record. What the toolkit
sends is read off the wire by each provider's local stand-in, through the providers' real SDKs.
"""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from scoring.run.cli import main
from scoring.run.prompts import gemini_schema, strict_schema
from tests.scoring.inference_support import clean_env, run_args, sob_reference, stand_in

ODD_SCHEMAS = [
    {"type": "OBJECT", "title": "x", "properties": {"a": {"type": "STRING", "pattern": "^x$"}}, "required": ["a", "b"]},
    {"type": "array", "items": {"type": "object", "properties": {"n": {"type": ["integer", "null"]}}}},
    {"type": "object", "properties": {"properties": {"type": "object", "properties": {"type": {"type": "string"}}}}},
    {"anyOf": [{"type": "string"}], "$defs": {"x": {"type": "integer"}}},
]


def release_rows(path):
    rows = []
    for split in ("train", "validation", "test"):
        for file in sorted((path / "data").glob(f"{split}-*.parquet")):
            rows.extend(pq.read_table(file).to_pylist())
    return rows


def user_text(provider, body):
    if provider == "gemini":
        return body["contents"][0]["parts"][0]["text"], body["systemInstruction"]["parts"][0]["text"]
    if provider == "anthropic":
        return body["messages"][0]["content"], body["system"]
    messages = {m["role"]: m["content"] for m in body["messages"]}
    return messages["user"], messages["system"]


@pytest.mark.parametrize("provider", ["gemini", "openai", "anthropic", "openrouter", "vllm"])
def test_the_bytes_sent_for_each_record_are_sobs(provider, scored_release, tmp_path, monkeypatch):
    clean_env(monkeypatch, provider)
    server = stand_in(provider)
    try:
        assert main(run_args(scored_release.path, provider, server, tmp_path / "out", tmp_path / "ws")) == 0
    finally:
        server.close()
    rows = release_rows(scored_release.path)
    sob = sob_reference(rows)
    expected = {
        user + ("\n\nReturn ONLY the JSON object.\n\n" if provider == "vllm" else ""): row["record_id"]
        for user, row in zip(sob["users"], rows, strict=True)
    }
    bodies = [seen.body for seen in server.requests]
    assert len(bodies) == len(rows) == 24
    sent = {}
    for body in bodies:
        user, system = user_text(provider, body)
        assert system.encode() == sob["system"].encode()
        sent[user] = body
    assert set(sent) == set(expected)  # every record's message, exactly SOB's bytes
    body = bodies[0]
    if provider == "gemini":
        config = body["generationConfig"]
        assert config["temperature"] == 0 and config["maxOutputTokens"] == 2048
        assert config["responseMimeType"] == "application/json"
        # SOB's ThinkingConfig(thinking_budget=0), as the SDK spells it on the wire
        assert list(config["thinkingConfig"].values()) == [0]
        assert "responseSchema" not in config and "responseJsonSchema" not in config
    elif provider == "openai":
        assert body["max_completion_tokens"] == 2048 and body["temperature"] == 0
        assert body["response_format"] == {"type": "json_object"}
    elif provider == "openrouter":
        assert body["max_tokens"] == 2048 and body["temperature"] == 0
        assert body["response_format"] == {"type": "json_object"}
        assert body["reasoning"] == {"effort": "None", "exclude": True}
    elif provider == "vllm":
        assert body["max_tokens"] == 2048 and body["temperature"] == 0 and "response_format" not in body
        assert body["chat_template_kwargs"] == {"enable_thinking": False}
    else:
        assert body["max_tokens"] == 2048 and body["temperature"] == 0


def test_structured_decoding_sends_sobs_strict_schema_to_openai(scored_release, tmp_path, monkeypatch):
    clean_env(monkeypatch, "openai")
    server = stand_in("openai")
    try:
        args = run_args(scored_release.path, "openai", server, tmp_path / "out", tmp_path / "ws")
        assert main([*args, "--use-structured-decoding"]) == 0
    finally:
        server.close()
    rows = release_rows(scored_release.path)
    sob = sob_reference(rows)
    strict_by_user = dict(zip(sob["users"], sob["strict"], strict=True))
    for seen in server.requests:
        user = next(m["content"] for m in seen.body["messages"] if m["role"] == "user")
        fmt = seen.body["response_format"]
        assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
        assert fmt["json_schema"]["name"] == "answer"
        assert fmt["json_schema"]["schema"] == strict_by_user[user]
    # the line records the schema the model was held to: SOB's strict copy
    lines = [
        json.loads(x) for x in (tmp_path / "out/text_responses/response_test-model.jsonl").read_text().splitlines()
    ]
    assert {json.dumps(line["input"]["json_schema"], sort_keys=True) for line in lines} == {
        json.dumps(s, sort_keys=True) for s in sob["strict"]
    }


def test_gemini_structured_decoding_sends_a_response_schema(scored_release, tmp_path, monkeypatch):
    clean_env(monkeypatch, "gemini")
    server = stand_in("gemini")
    try:
        args = run_args(scored_release.path, "gemini", server, tmp_path / "out", tmp_path / "ws", "--sample-size", "3")
        assert main([*args, "--use-structured-decoding"]) == 0
    finally:
        server.close()
    # SOB's --sample-size: the first three records. The third one's schema has a list of types, which the SDK
    # cannot send as response_schema (SOB's call fails alike): it is written with a null candidate, not sent.
    assert len(server.requests) == 2
    for seen in server.requests:
        assert seen.body["generationConfig"]["responseSchema"]["properties"]
    lines = (tmp_path / "out/text_responses/response_test-model.jsonl").read_text().splitlines()
    candidates = [json.loads(line)["output"]["candidate_response"] for line in lines]
    assert len(candidates) == 3 and candidates.count(None) == 1


def test_schemas_for_gemini_and_strict_mode_equal_sobs_on_odd_schemas(scored_release):
    rows = [{"context": "c", "question": "q", "json_schema": json.dumps(s)} for s in ODD_SCHEMAS]
    rows += release_rows(scored_release.path)[:3]
    sob = sob_reference(rows)
    for row, gemini, strict in zip(rows, sob["gemini"], sob["strict"], strict=True):
        schema = json.loads(row["json_schema"])
        assert gemini_schema(schema) == gemini
        assert strict_schema(schema) == strict


def test_each_line_is_sobs_build_eval_record(scored_release, tmp_path, monkeypatch):
    clean_env(monkeypatch, "anthropic")
    server = stand_in("anthropic")
    server.answer = lambda req: 'Sure: {"city": "x"} hope that helps' if "Zurich" in req.user else "no JSON here"
    try:
        assert main(run_args(scored_release.path, "anthropic", server, tmp_path / "out", tmp_path / "ws")) == 0
    finally:
        server.close()
    rows = {row["record_id"]: row for row in release_rows(scored_release.path)}
    ours = [json.loads(x) for x in (tmp_path / "out/text_responses/response_test-model.jsonl").read_text().splitlines()]
    calls = [
        {
            "record": rows[line["metadata"]["record_id"]],
            "candidate": line["output"]["candidate_response"],
            "model_id": "test-model",
            "modality": "text",
            "input_tokens": line["eval_info"]["input_tokens"],
            "output_tokens": line["eval_info"]["output_tokens"],
            "avg_time": line["eval_info"]["avg_time_per_record"],
        }
        for line in ours
    ]
    sob = sob_reference([], calls)
    assert ours == sob["lines"]
    candidates = [line["output"]["candidate_response"] for line in ours]
    assert {"city": "x"} in candidates and "no JSON here" in candidates  # SOB's extract_json on each reply
