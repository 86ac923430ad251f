"""The environment the tests run in is the one users install: `pip check` clean, and the huggingface_hub major
version every install gets (pyproject.toml pins it; issue 35: `make test` ran 1.x while `make demo` got 2.x)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

from packaging.requirements import Requirement

from tests.ci import missing

ROOT = Path(__file__).resolve().parent.parent


def test_pip_check_is_clean() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "check", "--disable-pip-version-check"], capture_output=True, text=True
    )
    if done.returncode != 0:  # in CI a failure; elsewhere an old virtualenv may still hold what make removed
        missing(f"pip check is not clean: {done.stdout.strip() or done.stderr.strip()}")


def test_huggingface_hub_is_the_pinned_major_version() -> None:
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    [pin] = [Requirement(d) for d in dependencies if Requirement(d).name.replace("-", "_") == "huggingface_hub"]
    assert pin.specifier, "huggingface_hub is pinned to one major version in the base dependencies"
    assert pin.specifier.contains(version("huggingface_hub")), (version("huggingface_hub"), str(pin.specifier))
    assert not pin.specifier.contains("2.0.0") and pin.specifier.contains("1.31.0")  # what olmocr's stack allows
