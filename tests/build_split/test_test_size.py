"""`--test-size N`: a fixed-size test split through the CLI, and clear errors where it cannot apply."""

import json
from pathlib import Path

import pytest

from build_split.cli import main
from core.store import Store


def test_sample_release_with_a_fixed_test_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = str(tmp_path / "ws")
    args = ["--source", "hotpotqa", "--sample", "--workspace", ws, "--allow-unreviewed"]
    assert main([*args, "--release", "0.1.0", "--test-size", "2"]) == 0
    capsys.readouterr()
    with Store.open(ws) as store:
        splits = store.split_assignments("default")
    assert sorted(splits.values()).count("test") == 2 and len(splits) == 6
    manifest = json.loads((Path(ws) / "releases" / "default" / "0.1.0" / "manifest.json").read_text())
    assert manifest["split_policy"]["test_size"]["target"] == 2 and manifest["splits"]["test"] == 2


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--source", "ami", "--release", "0.1.0", "--test-size", "5"], "only the text config has a test split"),
        (["--source", "hotpotqa", "--test-size", "5"], "needs --release"),
        (
            ["--source", "hotpotqa", "--release", "0.1.0", "--test-size", "0"],
            "--test-size: Input should be greater than or equal to 1",
        ),
    ],
)
def test_test_size_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str) -> None:
    assert main([*extra, "--sample", "--workspace", str(tmp_path / "ws")]) == 2
    assert message in capsys.readouterr().err
