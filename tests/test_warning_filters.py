"""pytest's `filterwarnings` (pyproject.toml): a deprecation warned from our own packages fails the suite,
one from a third-party library does not, and huggingface_hub's httpx `data=` warning is ignored by name."""

from __future__ import annotations

import warnings

import pytest

OUR_PACKAGES = ("build_split.cli", "core.store", "loaders.ocr", "exports.hub", "scoring.sted", "tests.conftest")


@pytest.mark.parametrize("module", OUR_PACKAGES)
def test_a_deprecation_warned_from_our_code_is_an_error(module: str) -> None:
    with pytest.raises(DeprecationWarning, match="old call"):
        warnings.warn_explicit("old call", DeprecationWarning, f"{module.replace('.', '/')}.py", 1, module=module)


@pytest.mark.parametrize("module", ["pandas.core.frame", "core_ext", "scoringlib"])
def test_a_deprecation_from_another_library_is_only_reported(module: str) -> None:
    with pytest.warns(DeprecationWarning, match="old call"):
        warnings.warn_explicit("old call", DeprecationWarning, "lib.py", 1, module=module)


def test_huggingface_hubs_httpx_data_warning_is_ignored() -> None:
    message = "Use 'content=<...>' to upload raw bytes/text content."
    with warnings.catch_warnings(record=True) as seen:  # records what the configured filters let through
        warnings.warn_explicit(message, DeprecationWarning, "httpx/_models.py", 408, module="httpx._models")
        warnings.warn_explicit("another", DeprecationWarning, "httpx/_models.py", 408, module="httpx._models")
    assert [str(w.message) for w in seen] == ["another"]
