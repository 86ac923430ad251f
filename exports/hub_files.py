"""Publish a few generated files beside the releases of a dataset repo (a leaderboard), by the releases' path.

The target is parsed as a release's (`exports.hub.parse_target`: `OWNER/NAME` is a Hub dataset repo,
anything else a local folder), the token comes from `HF_TOKEN` (never printed), and a Hub failure
ends as a release's does (`hub_failure`: `HubUnavailableError` for a network failure). The files go
under their own folder (`leaderboard/`), which no config owns, so publishing a release never
touches them and they never touch a release. Idempotent: files the repo already has with the same
content are not sent again; with nothing to change nothing is committed. One commit on the Hub,
built on the head it read (`parent_commit`), so a commit is never made twice.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exports.hub import REPO_TYPE, PublishError, Target, hub_failure, parse_target


@dataclass(frozen=True)
class FilesResult:
    target: str
    status: str  # "published", "unchanged" or "dry-run"
    changed: tuple[str, ...]
    commit: str | None = None


def _git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _same(existing: Any, data: bytes) -> bool:
    if existing is None:
        return False
    if getattr(existing, "lfs", None):
        return existing.lfs.sha256 == hashlib.sha256(data).hexdigest()
    return getattr(existing, "blob_id", None) == _git_blob_id(data)


def _publish_folder(folder: Path, files: dict[str, bytes], dry_run: bool) -> tuple[str, tuple[str, ...]]:
    changed = tuple(
        path
        for path, data in sorted(files.items())
        if not (folder / path).is_file() or (folder / path).read_bytes() != data
    )
    if dry_run or not changed:
        return ("dry-run" if dry_run else "unchanged"), changed
    for path in changed:
        destination = folder / path
        destination.parent.mkdir(parents=True, exist_ok=True)
        temporary = destination.with_name(f".{destination.name}.tmp")
        temporary.write_bytes(files[path])
        os.replace(temporary, destination)
    return "published", changed


def publish_files(
    files: dict[str, bytes],
    target: str | Target,
    *,
    message: str,
    dry_run: bool = False,
    token: str | None = None,
    endpoint: str | None = None,
    echo: Callable[[str], None] = print,
) -> FilesResult:
    """Put `files` (path in the repo -> content) into the repo or folder `target` in one commit."""
    parsed = target if isinstance(target, Target) else parse_target(target)
    if parsed.kind == "folder":
        assert parsed.folder is not None
        status, changed = _publish_folder(parsed.folder, files, dry_run)
        echo(f"{status}: {len(changed)} file(s) of {len(files)} to {parsed}")
        return FilesResult(str(parsed), status, changed)
    from huggingface_hub import CommitOperationAdd, HfApi, RepoFile
    from huggingface_hub import get_token as stored_token
    from huggingface_hub.errors import RepositoryNotFoundError

    repo_id = parsed.repo_id
    assert repo_id is not None
    token = token or os.environ.get("HF_TOKEN") or stored_token()
    if not token and not dry_run:
        raise PublishError(f"no Hugging Face token to publish to {repo_id}: set HF_TOKEN to a token with write access")
    api = HfApi(endpoint=endpoint, token=token or None, library_name="sob-curation-toolkit")
    try:
        try:
            head = api.dataset_info(repo_id).sha
        except RepositoryNotFoundError:
            raise PublishError(
                f"{repo_id} does not exist: publish a release to it first (the leaderboard goes beside it)"
            ) from None
        folders = {path.split("/")[0] for path in files}
        existing = {
            entry.path: entry
            for folder in sorted(folders)
            for entry in _tree(api, repo_id, head, folder)
            if isinstance(entry, RepoFile)
        }
        changed = tuple(path for path, data in sorted(files.items()) if not _same(existing.get(path), data))
        if dry_run or not changed:
            status = "dry-run" if dry_run else "unchanged"
            echo(f"{status}: {len(changed)} file(s) of {len(files)} to {parsed}")
            return FilesResult(str(parsed), status, changed, head)
        operations = [CommitOperationAdd(path_in_repo=path, path_or_fileobj=files[path]) for path in changed]
        info = api.create_commit(repo_id, operations, commit_message=message, repo_type=REPO_TYPE, parent_commit=head)
    except PublishError:
        raise
    except Exception as exc:
        raise hub_failure(exc, repo_id, endpoint) from exc
    echo(f"published: {len(changed)} file(s) of {len(files)} to {parsed}, commit {info.oid[:12]}")
    return FilesResult(str(parsed), "published", changed, info.oid)


def _tree(api: Any, repo_id: str, head: str | None, folder: str) -> list[Any]:
    """The files under `folder` at `head` (none when the folder is not there yet)."""
    from huggingface_hub.errors import EntryNotFoundError

    try:
        return list(
            api.list_repo_tree(repo_id, path_in_repo=folder, repo_type=REPO_TYPE, revision=head, recursive=True)
        )
    except EntryNotFoundError:
        return []
