"""pytest's `filterwarnings` (pyproject.toml): a deprecation warned from our own packages fails the suite,
one from a third-party library does not, and huggingface_hub's httpx `data=` warning is ignored by name."""

from __future__ import annotations

import sys
import warnings

import pytest

from tests.ci import missing

OUR_MODULES = ("build_split.cli", "core.store", "loaders.ocr", "exports.hub", "scoring.sted", "tests.conftest")
HUB_HTTPX_WARNING = "Use 'content=<...>' to upload raw bytes/text content."


def outcome(message: str, module: str) -> str:
    """What the configured filters do with a DeprecationWarning attributed to `module`."""
    with warnings.catch_warnings(record=True) as seen:  # keeps the filters in force, records what they let through
        try:
            warnings.warn_explicit(message, DeprecationWarning, module.replace(".", "/") + ".py", 1, module=module)
        except DeprecationWarning:
            return "error"
    return "reported" if seen else "ignored"


@pytest.mark.parametrize("module", OUR_MODULES)
def test_a_deprecation_warned_from_our_code_is_an_error(module: str) -> None:
    assert outcome("old call", module) == "error"


@pytest.mark.parametrize("module", ["pandas.core.frame", "core_ext", "scoringlib", "httpx._models"])
def test_a_deprecation_from_another_library_is_only_reported(module: str) -> None:
    if sys.warnoptions:  # `python -W` or PYTHONWARNINGS replaces the suite's filters: in CI that is an error
        missing(f"the suite's warning filters are overridden by {sys.warnoptions} (run without -W)")
    assert outcome("old call", module) == "reported"


def test_huggingface_hubs_httpx_data_warning_is_ignored() -> None:
    assert outcome(HUB_HTTPX_WARNING, "httpx._models") == "ignored"
    assert outcome(HUB_HTTPX_WARNING, "ourlib.client") != "ignored"  # ignored only where httpx warns it
