"""Secrets never reach the store or the terminal, even when a server repeats the key in its errors."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

import build_split.pipeline as pipeline
from authoring.drafts import load_drafts, run_drafting
from build_split.cli import main
from build_split.sources import sample_authored
from core.models import Reason, RecordState
from core.redaction import MASK, forget_registered_secrets, redact, redact_data, register_secret
from core.store import Store
from judge.llm_judge import LLMJudge
from judge.llm_stage import run_llm_judging
from tests.llm.fakes import FakeGemini, FakeOpenAI, Reply, api_key_sent, echo_key
from tests.llm.test_drafts import hotpot

GEMINI_KEY = "AIzaSy-test-SECRET-gemini-0123456789"
OPENAI_KEY = "sk-test-SECRET-openai-9876543210"
HF_KEY = "hf_testSECRETtoken1234567890"
LS_KEY = "ls-test-SECRET-token-55555"


@pytest.fixture(autouse=True)
def secrets(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("GEMINI_API_KEY", GEMINI_KEY)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("HF_TOKEN", HF_KEY)
    forget_registered_secrets()
    yield
    forget_registered_secrets()


@pytest.fixture
def fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    original = pipeline.llm_settings

    def quick(*args, **kwargs):
        return original(*args, **kwargs).model_copy(update={"initial_backoff_s": 0.01, "max_backoff_s": 0.02})

    monkeypatch.setattr(pipeline, "llm_settings", quick)


def every_stored_text(path: Path) -> str:
    """Every value of every table of a store, as one text."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        tables = [row[0] for row in con.execute("SELECT table_name FROM information_schema.tables").fetchall()]
        return "\n".join(
            json.dumps(con.execute(f'SELECT * FROM "{table}"').fetchall(), default=str) for table in tables
        )
    finally:
        con.close()


def test_redact_masks_every_configured_secret() -> None:
    register_secret(LS_KEY)
    register_secret("abc")  # too short to be a key: masking it would mangle ordinary words
    text = f"gemini {GEMINI_KEY} openai {OPENAI_KEY} hub {HF_KEY} studio {LS_KEY} abc"
    assert redact(text) == f"gemini {MASK} openai {MASK} hub {MASK} studio {MASK} abc"
    assert redact(None) is None and redact("nothing secret") == "nothing secret"
    assert redact_data({"a": [GEMINI_KEY, 3], GEMINI_KEY: None}) == {"a": [MASK, 3], MASK: None}


def test_a_key_echoed_by_the_gemini_server_is_never_stored_or_printed(
    tmp_path: Path, fast_backoff, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = FakeGemini()
    fake.fault = echo_key(500)
    ws = tmp_path / "ws"
    authored = tmp_path / "authored.jsonl"
    lines = sample_authored("hotpotqa").read_text(encoding="utf-8")
    authored.write_text(lines + f'{{"source_id": "sob-sample-0001", "note": "pasted {HF_KEY} by mistake"\n')
    args = ["--source", "hotpotqa", "--sample", "--workspace", str(ws), "--llm-base-url", fake.url, "--no-review"]
    try:
        code = main([*args, "--authored", str(authored), "--judge", "gemini", "--max-consecutive-failures", "3"])
        assert code == 3
        assert fake.faulted >= 1 and api_key_sent(fake.requests[0]) == GEMINI_KEY  # the key was echoed
        assert main([*args, "--rejections"]) == 0
    finally:
        fake.close()
    out, err = capsys.readouterr()
    assert GEMINI_KEY not in out + err and HF_KEY not in out + err
    assert MASK in err  # the summary line shows where the key was
    assert "[judge/judge_unavailable]" in out and MASK in out  # --rejections: the reason, masked
    stored = every_stored_text(ws / "curation.duckdb")
    assert "upstream failure for request with key=" in stored  # the error was kept...
    assert GEMINI_KEY not in stored and HF_KEY not in stored  # ...without the key
    with Store.open(ws) as store:
        [bad_line] = [r for r in store.import_rejections("hotpotqa") if "pasted" in r["raw"]]
        assert MASK in bad_line["raw"]


def test_a_key_echoed_by_an_openai_server_is_masked_in_reasons_and_events(
    fake_openai: FakeOpenAI, make_openai_client, store: Store, seed
) -> None:
    seed(store, 2)
    fake_openai.fault = echo_key(502)
    client = make_openai_client(fake_openai, store=store)
    run_llm_judging(store, "hotpotqa", LLMJudge(client), 60)
    assert api_key_sent(fake_openai.requests[0]) == OPENAI_KEY
    failed = list(store.records("hotpotqa", [RecordState.JUDGE_ERROR]))
    assert len(failed) == 2 and MASK in failed[0].reasons[0].message
    assert OPENAI_KEY not in json.dumps(store.events(source="hotpotqa"), default=str)
    assert OPENAI_KEY not in (client.failures.last.get("transient") or "")


def test_a_draft_error_is_stored_without_the_key(fake_gemini: FakeGemini, make_gemini_client, store: Store) -> None:
    store.upsert_source_items([hotpot(1)])
    fake_gemini.fault = echo_key(400)  # a 400 for this request: kept as a rejected draft, with its error
    counts = run_drafting(store, "hotpotqa", make_gemini_client(fake_gemini, store=store))
    assert counts == {"no_draft_request_rejected": 1}
    draft = load_drafts(store.con, "hotpotqa")["h1"]
    assert "upstream failure" in (draft.error or "") and GEMINI_KEY not in (draft.error or "")


def test_a_key_given_on_the_command_line_is_masked_too(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    Store.open(ws).close()  # --status reads an existing store, it never creates one
    assert main(["--source", "hotpotqa", "--workspace", str(ws), "--status", "--label-studio-api-key", LS_KEY]) == 0
    with Store.open(ws) as store:
        store.add_import_rejections(
            "hotpotqa", "file:x.jsonl", [(1, f"token {LS_KEY}", [Reason(stage="import", code="x", message=LS_KEY)])]
        )
        [row] = store.import_rejections("hotpotqa")
    assert LS_KEY not in json.dumps(row) and row["raw"] == f"token {MASK}"


def mangled(key: str) -> list[str]:
    """How a key leaks without being itself: cut short, upper-cased, spaced out, in base64 (at any offset)."""
    return [
        key[:-1],
        key[1:],
        key.upper(),
        " ".join(key),
        "-".join(key[i : i + 4] for i in range(0, len(key), 4)),
        base64.b64encode(f"user:{key}".encode()).decode(),
        base64.urlsafe_b64encode(key.encode()).decode(),
        key.encode().hex(),
    ]


def test_a_key_mangled_is_masked_like_the_key() -> None:
    for leak in mangled(GEMINI_KEY):
        masked = redact(f"upstream said: {leak} (end)")
        assert masked is not None and MASK in masked, leak
        assert not any(run in masked for run in (GEMINI_KEY[i : i + 15] for i in range(len(GEMINI_KEY) - 14)))
    assert redact("20240101 abcdefgh nothing secret, 3,677 seated") == "20240101 abcdefgh nothing secret, 3,677 seated"


def test_a_mangled_key_echoed_by_the_server_is_never_stored_or_printed(
    tmp_path: Path, fast_backoff, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = FakeGemini()

    def fault(seen):  # a leaky proxy that echoes the key, mangled
        leaks = " | ".join(mangled(api_key_sent(seen)))
        return Reply(500, {"error": {"code": 500, "message": f"upstream failure: {leaks}", "status": "INTERNAL"}})

    fake.fault = fault
    ws = tmp_path / "ws"
    args = ["--source", "hotpotqa", "--sample", "--workspace", str(ws), "--llm-base-url", fake.url, "--no-review"]
    try:
        assert main([*args, "--judge", "gemini", "--max-consecutive-failures", "3"]) == 3
        assert main([*args, "--rejections"]) == 0
    finally:
        fake.close()
    out, err = capsys.readouterr()
    stored = every_stored_text(ws / "curation.duckdb")
    assert "upstream failure" in stored and "upstream failure" in out + err
    for leak in mangled(GEMINI_KEY):
        assert leak not in out + err and leak not in stored, leak
