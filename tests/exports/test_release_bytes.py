"""The three samples' releases are byte for byte what they were when tests/data/release_digests.json was recorded.

Every file of each release folder is hashed: the parquet data files, the card (README.md), the plots and the
manifest. The manifest's `created_at` is the one time-dependent value (the wall clock of the run), so it is
replaced by a fixed text before hashing (scripts/record_release_digests.py); nothing else is left out.
A change that is meant to alter a release re-records the digests with that script and says why in its commit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scripts.record_release_digests import DIGESTS, SAMPLE_RELEASES, build_sample_release, release_digests


@pytest.fixture(scope="module")
def recorded() -> dict[str, dict[str, str]]:
    return json.loads(DIGESTS.read_text(encoding="utf-8"))


@pytest.mark.parametrize("source", sorted(SAMPLE_RELEASES))
def test_sample_release_is_byte_identical(
    source: str, recorded: dict[str, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-datasets"))
    release = build_sample_release(source, tmp_path / "ws")
    digests = release_digests(release)
    expected = recorded[source]
    assert sorted(digests) == sorted(expected), "the release holds other files than recorded"
    changed = [name for name in expected if digests[name] != expected[name]]
    assert not changed, f"{source}: these files of the sample release changed: {changed}"
    assert any(name.endswith(".parquet") for name in digests) and {"README.md", "manifest.json"} <= digests.keys()


def test_only_the_creation_time_is_left_out(tmp_path: Path) -> None:
    """The manifest's normalisation hides `created_at` and nothing else: any other change shows."""
    manifest = tmp_path / "manifest.json"
    manifest.write_text('{\n  "created_at": "2026-01-01T00:00:00+00:00",\n  "num_records": 6\n}\n')
    before = release_digests(tmp_path)
    manifest.write_text('{\n  "created_at": "2027-05-05T10:00:00+00:00",\n  "num_records": 6\n}\n')
    assert release_digests(tmp_path) == before
    manifest.write_text('{\n  "created_at": "2027-05-05T10:00:00+00:00",\n  "num_records": 7\n}\n')
    assert release_digests(tmp_path) != before
