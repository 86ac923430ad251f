"""Load a local release folder with `datasets`, as exactly the rows its files hold.

    from exports.load import load_release
    test = load_release("workspace/releases/default/1.0.0", split="test")

`datasets.load_dataset(folder)` keys its cache on the data files' paths, and release data files are named
after their content's SHA-256, so two releases with other rows never share a cache entry. This helper does
not rely on it alone:
it checks the folder against its manifest first, and the loaded rows against the folder's own Parquet
files (the record ids of every split, in order) after; a stale cache is rebuilt once, and if the rows
still differ it raises instead of returning another release's rows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from exports.release import ReleaseError, verify_release


def load_release(folder: Path | str, split: str | None = None, **load_kwargs: Any) -> Any:
    """The release's DatasetDict (or one split's Dataset) through `datasets.load_dataset`, verified."""
    import datasets

    folder = Path(folder).resolve()
    manifest = verify_release(folder)  # the files are the ones the release was written with
    config = manifest["config"]
    splits = [name for name, rows in manifest["splits"].items() if rows] if split is None else [split]
    if split is not None and not manifest["splits"].get(split):
        raise ReleaseError(f"release {folder} has no rows in split {split!r} (splits: {manifest['splits']})")
    file_of = {info["split"]: name for name, info in manifest["files"].items()}
    expected = {name: _record_ids(folder / file_of[name]) for name in splits}
    # The second try rebuilds the cache entry; `datasets` would check the rebuilt splits against the stale
    # entry's sizes (NonMatchingSplitsSizesError), so the rows are checked here instead.
    retries = ({}, {"download_mode": "force_redownload", "verification_mode": "no_checks"})
    for retry in retries:
        loaded = datasets.load_dataset(str(folder), config, split=split, **{**load_kwargs, **retry})
        parts = {split: loaded} if split is not None else dict(loaded)
        if {name: list(part["record_id"]) for name, part in parts.items()} == expected:
            return loaded
    raise ReleaseError(
        f"datasets did not load the rows of {folder} (its cache kept returning others); "
        "clear the datasets cache (HF_DATASETS_CACHE) and load again"
    )


def _record_ids(path: Path) -> list[str]:
    return pq.read_table(path, columns=["record_id"]).column("record_id").to_pylist()
