"""One reading of the CI switch for every test: `CI` set to 1, true or yes (any case) means CI.

In CI a part that is not installed fails the test (CI must install it); elsewhere the test is skipped
and `-rs` lists why."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

CI_VALUES = frozenset({"1", "true", "yes"})


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in CI_VALUES


def missing(what: str) -> NoReturn:
    """Fail in CI, skip elsewhere."""
    if in_ci():
        pytest.fail(f"{what} (CI must install it: see .ci/run)", pytrace=False)
    pytest.skip(what)
