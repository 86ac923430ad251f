"""`python -m scoring` ends a run it cannot do in one `error:` line (exit 2), never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.cli import main


def test_sampling_drafts_without_a_key_says_what_to_set(tmp_path: Path, capsys, monkeypatch) -> None:
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT"):
        monkeypatch.delenv(name, raising=False)
    args = ["--ambiguity", "--workspace", str(tmp_path / "ws"), "--source", "hotpotqa", "--sample-drafts", "3"]
    try:
        code = main(args)
    except Exception as exc:  # noqa: BLE001 - the test is that nothing escapes as a traceback
        pytest.fail(f"a traceback instead of an error line: {exc!r}")
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: ") and "GEMINI_API_KEY" in err
