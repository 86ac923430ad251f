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
    assert "--judge heuristic" not in err  # python -m scoring has no --judge: its own ways out instead
    assert "--draft-samples FILE" in err


RESPONSES = Path(__file__).resolve().parent.parent / "data" / "sob_eval" / "images_responses"


def test_an_output_path_that_is_the_input_is_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 35: `--responses X --output-root Y` wrote SOB's eval_records.jsonl over X when the two were one path."""
    root = tmp_path / "evaluation"
    responses = root / "image" / "eval_records" / "eval_records.jsonl"  # SOB's output name for this very file
    responses.parent.mkdir(parents=True)
    original = (RESPONSES / "response_phi-4_image.jsonl").read_bytes()
    responses.write_bytes(original)
    code = main(["--responses", str(responses), "--modality", "image", "--output-root", str(root)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(f"error: the output {responses} is the input {responses}"), err
    assert responses.read_bytes() == original
    assert not (responses.parent / "eval_summary.json").exists()

    code = main(["--responses", str(responses), "--modality", "image", "--output", str(responses)])
    err = capsys.readouterr().err
    assert code == 2 and "is the input" in err and err.count("\n") == 1, err
    assert responses.read_bytes() == original
