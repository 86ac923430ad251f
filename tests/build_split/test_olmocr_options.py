"""`--category-quota` and `--mix sob`: checked at the CLI boundary, with clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from build_split.cli import main
from build_split.options import RunOptions
from loaders.olmocr_draw import SOB_MIX


def test_quota_and_mix_become_the_olmocr_quota() -> None:
    quota = RunOptions(source="olmocr", category_quota="headers_footers=67, multi_column=62")
    assert quota.source_options.quota() == {"headers_footers": 67, "multi_column": 62}
    assert RunOptions(source="olmocr", mix="sob").source_options.quota() == SOB_MIX
    assert RunOptions(source="olmocr").source_options.quota() is None


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"source": "olmocr", "category_quota": "tables=lots"}, "not a whole number"),
        ({"source": "olmocr", "category_quota": "tables"}, "name=N pairs"),
        ({"source": "olmocr", "category_quota": "tables=1", "mix": "sob"}, "not both"),
        ({"source": "hotpotqa", "mix": "sob"}, "only applies with --source olmocr"),
        ({"source": "ami", "category_quota": "tables=1"}, "only applies with --source olmocr"),
        ({"source": "olmocr", "mix": "olmo"}, "sob"),
    ],
)
def test_bad_quota_options_are_refused(options: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        RunOptions(**options)


def test_the_cli_refuses_a_bad_quota_with_exit_code_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--source", "olmocr", "--workspace", str(tmp_path), "--category-quota", "tables=-3"])
    assert code == 2 and "cannot be negative" in capsys.readouterr().err
    assert not (tmp_path / "curation.duckdb").exists()


def test_a_run_says_which_category_ran_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    slice_dir = Path(__file__).resolve().parents[1] / "data" / "olmocr_bench"
    code = main(
        [
            "--source",
            "olmocr",
            "--workspace",
            str(tmp_path),
            "--input",
            str(slice_dir),
            "--ocr-markdown",
            str(slice_dir / "olmocr_pipeline"),
            "--category-quota",
            "headers_footers=2,old_scans=1",
            "--judge",
            "heuristic",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "draw (seed 0): Headers/Footers: 2/2" in out
    assert "draw (seed 0): Old Scans: 0/1 (0 of 0 PDFs tried) - ran out, 1 short" in out
    assert "ran out before meeting the target: Old Scans" in out
