"""The CLI with the Gemini judge: the real SDK against the local fake, cached across runs."""

from pathlib import Path

import pytest

from build_split.cli import main
from core.store import Store


def test_gemini_judge_through_the_cli_is_cached_across_runs(
    tmp_path: Path, fake_gemini, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "test-key-not-real")
    ws = str(tmp_path / "ws")
    args = ["--source", "hotpotqa", "--sample", "--workspace", ws, "--llm-base-url", fake_gemini.url]
    assert main([*args, "--release", "0.1.0"]) == 0  # gemini is the default judge once a key is set
    out = capsys.readouterr().out
    assert "judge" in out and "call(s)" in out and "test-key-not-real" not in out
    calls = fake_gemini.total_model_calls
    assert calls == 16  # per validated record: the reviewer pass (on by default once a key is set) and the judge
    assert "reviewed:   clean 8" in out
    with Store.open(ws) as store:
        assert store.state_counts("hotpotqa") == {"accepted": 8, "rejected": 2}
        usage = store.con.execute("SELECT sum(calls) FROM llm_usage WHERE stage = 'judge'").fetchone()[0]
        assert usage == 8
        reviews = store.con.execute("SELECT sum(calls), min(model) FROM llm_usage WHERE stage = 'review'").fetchone()
        assert reviews == (8, "gemini-2.5-flash")
    manifest = (Path(ws) / "releases" / "default" / "0.1.0" / "manifest.json").read_text()
    assert "gemini:gemini-2.5-pro" in manifest and "test-key-not-real" not in manifest

    # Same records again in a fresh workspace state: re-judging comes from the cache, no call.
    with Store.open(ws) as store:
        store.con.execute("UPDATE records SET state = 'validated' WHERE state = 'accepted'")
    assert main(args) == 0
    assert fake_gemini.total_model_calls == calls


def test_prefilter_spares_calls_for_records_the_heuristic_rejects(tmp_path: Path, fake_gemini, monkeypatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "test-key-not-real")
    ws = str(tmp_path / "ws")
    args = ["--source", "hotpotqa", "--sample", "--workspace", ws, "--llm-base-url", fake_gemini.url]
    assert main([*args, "--judge", "gemini", "--prefilter", "--no-review"]) == 0
    # The ones the heuristic rejects and the two it holds for review (their flags open) are never sent.
    assert fake_gemini.total_model_calls == 6
    with Store.open(ws) as store:
        assert store.state_counts("hotpotqa") == {"accepted": 6, "needs_review": 2, "rejected": 2}


def test_records_the_heuristic_accepted_are_judged_again_by_the_llm_judge(
    tmp_path: Path, fake_gemini, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    ws = str(tmp_path / "ws")
    args = ["--source", "hotpotqa", "--sample", "--workspace", ws]
    heuristic = ["--judge", "heuristic", "--no-review", "--release", "0.1.0", "--allow-unreviewed"]
    assert main([*args, *heuristic]) == 0
    monkeypatch.setenv("GEMINI_API_KEY", "test-key-not-real")
    assert main([*args, "--judge", "gemini", "--llm-base-url", fake_gemini.url, "--release", "0.2.0"]) == 0
    manifest = json.loads((Path(ws) / "releases" / "default" / "0.2.0" / "manifest.json").read_text())
    assert manifest["review"]["status"] == "llm-judge" and manifest["review"]["unreviewed_rows"] == 0
    assert manifest["judge"]["name"].startswith("gemini:")
    with Store.open(ws) as store:
        judges = {item.record.provenance.judge.split("@")[0] for item in store.records("hotpotqa", ["accepted"])}
    assert judges == {"gemini:gemini-2.5-pro"}
