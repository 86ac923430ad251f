"""Error messages that name the cause: every input row rejected, a threshold that rejected everything, and a
read-only command on a folder that holds no store (an error that creates nothing)."""

from __future__ import annotations

from pathlib import Path

from build_split.cli import main


def test_all_input_rows_rejected_says_so_with_the_count_and_first_reasons(tmp_path: Path, capsys) -> None:
    wrong = tmp_path / "not-hotpotqa.jsonl"
    wrong.write_text('{"a": 1}\n{"b": 2}\nnot json\n', encoding="utf-8")
    code = main(["--source", "hotpotqa", "--workspace", str(tmp_path / "ws"), "--input", str(wrong)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"all 3 input row(s) of {wrong} were rejected" in err
    assert "missing `_id`/`id`" in err and "malformed_json" in err
    assert "pass --input PATH" not in err  # it was passed


def test_a_threshold_that_rejects_everything_names_the_threshold(tmp_path: Path, capsys) -> None:
    ws = str(tmp_path / "ws")
    code = main(["--source", "hotpotqa", "--sample", "--workspace", ws, "--threshold", "95"])
    assert code == 0
    capsys.readouterr()
    code = main(
        ["--source", "hotpotqa", "--workspace", ws, "--threshold", "95", "--release", "0.1.0", "--allow-unreviewed"]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "at threshold 95 the judge accepted none" in err and "lower --threshold" in err
    assert "main reasons: low_" in err  # the judge's main reasons, counted
    assert "run validation and the judge first" not in err
    assert not (tmp_path / "ws" / "releases" / "default" / "0.1.0").exists()


def test_status_on_a_folder_without_a_store_is_an_error_and_creates_nothing(tmp_path: Path, capsys) -> None:
    typo = tmp_path / "wrokspace"
    for flag in ("--status", "--rejections"):
        assert main(["--source", "hotpotqa", "--workspace", str(typo), flag]) == 2
        assert "holds no curation store" in capsys.readouterr().err
        assert not typo.exists()
    typo.mkdir()
    assert main(["--source", "ami", "--workspace", str(typo), "--status"]) == 2
    assert list(typo.iterdir()) == []


def test_a_reader_that_closes_stdout_ends_the_command_quietly(tmp_path: Path) -> None:
    """Issue 35: `--status | head -3` ended with "error: cannot use a file: Broken pipe". The pipe's read end is
    closed before the command writes anything, so its first write meets a closed stdout (as `head` leaves it)."""
    import os
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    ws = tmp_path / "ws"
    assert main(["--source", "hotpotqa", "--sample", "--workspace", str(ws)]) == 0
    env = {**os.environ, "PYTHONPATH": str(repo)}
    for command in ("--status", "--rejections"):
        child = subprocess.Popen(
            [sys.executable, "-m", "build_split", "--source", "hotpotqa", "--workspace", str(ws), command],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=repo,
            env=env,
        )
        assert child.stdout is not None and child.stderr is not None
        child.stdout.close()  # the reader is gone before the first line
        err = child.stderr.read().decode()
        assert (child.wait(timeout=300), err) == (141, ""), command
