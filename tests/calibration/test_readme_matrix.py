"""The test-half matrix of docs/reliability.md is what the gate does today: a rule change that moves it must update
it (`scripts/update_readme_calibration.py`), so the docs never claim figures the code does not give."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_matrix_is_current() -> None:
    spec = importlib.util.spec_from_file_location(
        "update_readme_calibration", ROOT / "scripts/update_readme_calibration.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    shown = module.block(module.PAGE.read_text(encoding="utf-8"))
    matrix = module.test_half_matrix()
    assert matrix in shown, (
        "docs/reliability.md test-half matrix is stale: run .venv/bin/python scripts/update_readme_calibration.py"
    )
    assert "false releases (wrong answers released)" in matrix and "right (" in matrix


def test_the_holdout_matrix_is_current() -> None:
    spec = importlib.util.spec_from_file_location(
        "update_readme_calibration", ROOT / "scripts/update_readme_calibration.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    shown = module.block(module.PAGE.read_text(encoding="utf-8"), module.HOLDOUT_START, module.HOLDOUT_END)
    matrix = module.holdout_matrix()
    assert matrix in shown, (
        "docs/reliability.md holdout matrix is stale: run .venv/bin/python scripts/update_readme_calibration.py"
    )
    assert "right (48)" in matrix and "wrong (48)" in matrix
