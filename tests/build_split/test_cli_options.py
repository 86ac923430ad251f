"""Option combinations the CLI refuses up front, with a usage error (exit 2) that says why."""

from __future__ import annotations

from pathlib import Path

import pytest

from build_split.cli import main
from core.store import Store
from exports.versions import parse_version


@pytest.mark.parametrize(
    ("extra", "flag", "words"),
    [
        (["--sample", "--input", "data.json"], "--input", "--sample and --input"),
        (["--sample", "--from-hub"], "--from-hub", "cannot be combined"),
        (["--release", "01.002.0003"], "--release", "no leading zeros"),
        (["--release", "1.2"], "--release", "MAJOR.MINOR.PATCH"),
        (["--release", "v1.2.3"], "--release", "no 'v' prefix"),
        (["--max-consecutive-failures", "-1"], "--max-consecutive-failures", "greater than or equal to 0"),
        (["--blind-second"], "--blind-second", "needs --overlap 2"),
    ],
)
def test_refused_at_the_cli(
    extra: list[str], flag: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    assert main(["--source", "hotpotqa", "--workspace", str(ws), *extra]) == 2
    [line] = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert line.startswith(f"error: {flag}: ") and words in line and "Value error" not in line
    assert not ws.exists()  # refused before anything is opened or written


@pytest.mark.parametrize("version", ["0.1.0", "1.0.0", "10.20.30"])
def test_versions_the_release_writer_takes_pass_the_cli(version: str, tmp_path: Path) -> None:
    parse_version(version)
    # --status reads the store without building anything: the version check alone is under test.
    Store.open(tmp_path / "ws").close()  # --status reads an existing store, it never creates one
    assert main(["--source", "hotpotqa", "--workspace", str(tmp_path / "ws"), "--release", version, "--status"]) == 0
