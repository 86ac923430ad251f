"""Media that reach Label Studio through its API, for a server that cannot read the toolkit's workspace.

Local files (authoring/page_tasks.py) need the server on this machine, reading `<workspace>/media`. A team's
server elsewhere gets each page image uploaded once, through the import endpoint without making tasks of them
(`POST /api/projects/{id}/import?commit_to_project=false`, as Label Studio's own import dialog does), and serves
it at `/data/upload/<project>/<name>` to the organization's members, from its own media root. Label Studio
parses an uploaded file as a would-be task for a labeling config with one data key only, so the images go to a
project of their own, "<authoring project> (page images)", with a one-image config and never a task. The
uploads are remembered in the store by content hash (`ls_media`), so a push never sends an image twice.

How media reach the server (`--label-studio-media`, LABEL_STUDIO_MEDIA): `local-files`, `upload`, or `auto`:
local files when the server runs on this machine and accepts the workspace's media folder as a local-files
storage, uploads otherwise.
"""

from __future__ import annotations

import hashlib
import mimetypes
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from core.models import utcnow

if TYPE_CHECKING:
    from authoring.labelstudio.client import LabelStudioSession
    from core.store import Store

AUTO, LOCAL_FILES, UPLOAD = "auto", "local-files", "upload"
MEDIA_MODES = (AUTO, LOCAL_FILES, UPLOAD)
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
UPLOAD_URL_PREFIX = "/data/"  # Label Studio's MEDIA_URL: an upload's file name below it is its URL
UPLOAD_TIMEOUT_S = 120.0

# Created here until it becomes a versioned migration in core/store_migrations.py (as ls_state's tables were).
TABLE_SQL = """
CREATE TABLE IF NOT EXISTS ls_media (
    base_url VARCHAR NOT NULL,
    project_id BIGINT NOT NULL,
    sha256 VARCHAR NOT NULL,
    path VARCHAR NOT NULL,
    file_upload_id BIGINT NOT NULL,
    url VARCHAR NOT NULL,
    uploaded_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (base_url, project_id, sha256)
);
"""


MEDIA_CONFIG = '<View><Image name="page" value="$image"/></View>'  # one data key: what an upload needs


def media_key(source: str) -> str:
    """The store's key of a source's page-image project."""
    return f"{source}#page-images"


def media_project_id(store: Store, session: LabelStudioSession, source: str) -> int:
    """The project that holds the source's uploaded page images (made once; it never gets a task)."""
    from authoring.labelstudio.client import ensure_project

    return ensure_project(
        store,
        session,
        media_key(source),
        config=MEDIA_CONFIG,
        title=session.settings.project_title.format(source=source) + " (page images)",
        description=f"The page images of {source}'s tasks, uploaded by the SOB curation toolkit: no tasks here.",
        maximum_annotations=1,
    ).project_id


class MediaUploadError(RuntimeError):
    """Label Studio refused an upload; the message says which file and why."""


def server_is_local(base_url: str) -> bool:
    return (urlparse(base_url).hostname or "") in LOOPBACK_HOSTS


def first_choice(mode: str, base_url: str) -> str:
    """The way to try first: the mode itself, or for `auto` local files on this machine and uploads elsewhere."""
    if mode not in MEDIA_MODES:
        raise ValueError(f"media mode must be one of {', '.join(MEDIA_MODES)}, not {mode!r}")
    if mode != AUTO:
        return mode
    return LOCAL_FILES if server_is_local(base_url) else UPLOAD


def _known(store: Store, base_url: str, project_id: int, digest: str) -> str | None:
    store.con.execute(TABLE_SQL)
    row = store.con.execute(
        "SELECT url FROM ls_media WHERE base_url = ? AND project_id = ? AND sha256 = ?", [base_url, project_id, digest]
    ).fetchone()
    return row[0] if row else None


def _upload(session: LabelStudioSession, project_id: int, path: Path, data: bytes, digest: str) -> tuple[int, str]:
    """One file to the project, no task made: (file upload id, the URL Label Studio serves it at)."""
    wrapper = session.client._client_wrapper  # the SDK's authenticated HTTP client (no upload method of its own)
    # A name of its own: pages of different documents share `page-1.png`.
    name = f"{path.parent.name}-{path.stem}-{digest[:12]}{path.suffix}"
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"

    def post() -> object:
        response = wrapper.httpx_client.httpx_client.post(
            f"{session.base_url}/api/projects/{project_id}/import",
            params={"commit_to_project": "false"},
            files={"file": (name, data, kind)},
            headers=wrapper.get_headers(),
            timeout=UPLOAD_TIMEOUT_S,
        )
        if response.status_code >= 400:
            raise MediaUploadError(
                f"Label Studio at {session.base_url} refused the upload of {path} (HTTP {response.status_code}): "
                f"{response.text[:300]}"
            )
        return response.json()

    answer = session.call(f"uploading {path.name}", post)
    ids = answer.get("file_upload_ids") if isinstance(answer, dict) else None
    if not ids:
        raise MediaUploadError(f"Label Studio took the upload of {path} but named no file upload: {answer!r}")
    upload = session.call(f"reading the upload of {path.name}", session.client.files.get, id=int(ids[0]))
    return int(ids[0]), UPLOAD_URL_PREFIX + str(upload.file).lstrip("/")


def upload_urls(
    store: Store, session: LabelStudioSession, source: str, workspace: Path, relatives: Sequence[str]
) -> list[str]:
    """The URLs Label Studio serves these workspace files at, uploading the ones it does not have yet."""
    project_id = media_project_id(store, session, source)
    urls = []
    for relative in relatives:
        path = (Path(workspace).resolve() / relative).resolve()
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise MediaUploadError(f"cannot read the page image {path} to upload it: {exc.strerror}") from None
        digest = hashlib.sha256(data).hexdigest()
        url = _known(store, session.base_url, project_id, digest)
        if url is None:
            upload_id, url = _upload(session, project_id, path, data, digest)
            store.con.execute(
                "INSERT OR REPLACE INTO ls_media VALUES (?, ?, ?, ?, ?, ?, ?)",
                [session.base_url, project_id, digest, str(relative), upload_id, url, utcnow()],
            )
        urls.append(url)
    return urls
