"""Progress on long work, one style: bars for load, import, judging and release writing on stderr; none when
stderr is not a terminal or with --quiet; third-party loggers quiet unless --verbose."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

import core.progress
from build_split.cli import main

SAMPLE = ["--source", "hotpotqa", "--sample", "--release", "0.1.0", "--allow-unreviewed"]


@pytest.fixture(autouse=True)
def _reset_output():
    yield
    core.progress.set_output()


def test_bars_show_each_long_step_when_forced_on(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("SOB_PROGRESS", "1")  # stderr is captured here, not a terminal: force the bars on
    assert main([*SAMPLE, "--workspace", str(tmp_path / "ws")]) == 0
    err = capsys.readouterr().err
    for step in ("load (hotpotqa)", "import (hotpotqa)", "judge (heuristic)", "release (default)"):
        assert step in err, step


def test_no_bars_when_not_a_terminal_or_quiet(tmp_path: Path, capsys, monkeypatch) -> None:
    assert main([*SAMPLE, "--workspace", str(tmp_path / "a")]) == 0
    assert "release (default)" not in capsys.readouterr().err  # not a terminal: silent
    monkeypatch.setenv("SOB_PROGRESS", "1")
    assert main([*SAMPLE, "--workspace", str(tmp_path / "b"), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "load (hotpotqa)" not in err and "release (default)" not in err
    assert "it/s" not in err and "rec/s" not in err


def test_third_party_loggers_are_quiet_unless_verbose(caplog) -> None:
    core.progress.set_output()
    with caplog.at_level(logging.INFO):
        logging.getLogger("httpx").info('HTTP Request: GET http://127.0.0.1/ "HTTP/1.1 200 OK"')
        logging.getLogger("olmocr.pipeline").info("worker 0 started")
    assert not caplog.records
    core.progress.set_output(verbose=True)
    with caplog.at_level(logging.INFO):
        logging.getLogger("httpx").info("HTTP Request: shown")
    assert [r.getMessage() for r in caplog.records] == ["HTTP Request: shown"]
