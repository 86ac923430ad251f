"""Label Studio connection: settings, the SDK session with its error translation, task listing and the
source's project."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import queue
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from annotation_ui_config import label_config
from authoring import ls_state
from authoring.labelstudio import ownership
from authoring.labelstudio.errors import LabelStudioError, LabelStudioUnavailable
from authoring.labelstudio.transport import RetryDroppedTransport
from core.store import Store

CONNECT_TIMEOUT_S = 10.0  # a server that takes no connection in this long is not there
PROBE_TIMEOUT_S = 15.0  # a server given by URL answers its health check within this, or the run stops at once
DEFAULT_BATCH_SIZE = 500
DEFAULT_PAGE_SIZE = 500
# Task fields a pull does not need: the context is in the store, drafts and predictions are ours.
PULL_OMIT = (
    "data,predictions,drafts,annotations_results,predictions_results,annotators,comment_authors,updated_by,"
    "file_upload,storage_filename,annotations_ids,predictions_model_versions,avg_lead_time,draft_exists,"
    "predictions_score,completed_at,comment_count,unresolved_comment_count,last_comment_updated_at"
)
LIST_OMIT = PULL_OMIT + ",annotations"
# A write's answer need not carry the task's annotations back: Label Studio serializes every one of them, and on a
# task with 45 annotations the PATCH took 233 ms with them, 165 ms without (2 gunicorn workers, SQLite, idle).
WRITE_OMIT = "annotations,predictions"

T = TypeVar("T")
TASK_DATA_KEPT = 4096  # tasks whose data a session keeps between a cycle's writes
_NUMBERED = re.compile(r"\(page \d+\)|\d+")  # what a request counts under: "reading task 12" -> "reading task"


def source_item_key(source: str, source_id: str) -> str:
    return f"{source}:{source_id}"


# -- connection --------------------------------------------------------------------------------
@dataclass(frozen=True)
class LabelStudioSettings:
    url: str
    api_key: str
    batch_size: int = DEFAULT_BATCH_SIZE
    page_size: int = DEFAULT_PAGE_SIZE
    timeout_s: float = 300.0
    project_title: str = "SOB authoring: {source}"
    local_files_root: str | None = None  # the server's LOCAL_FILES_DOCUMENT_ROOT (page images; see page_tasks)
    overlap: int = 1  # curators who author each record independently (2: see authoring/labelstudio/overlap.py)
    blind_second: bool = False  # with overlap 2: the second curator works in a project without the draft's answer
    adopt: bool = False  # write into a project another workspace made (authoring/labelstudio/ownership.py)
    media: str = "auto"  # how page images reach the server: auto, local-files or upload (authoring/media_upload.py)

    @classmethod
    def from_env(
        cls, url: str | None = None, api_key: str | None = None, environ: Mapping[str, str] | None = None
    ) -> LabelStudioSettings | None:
        """Flags win over LABEL_STUDIO_URL / LABEL_STUDIO_API_KEY; None when neither is set."""
        env = os.environ if environ is None else environ
        url = url or env.get("LABEL_STUDIO_URL") or None
        api_key = api_key or env.get("LABEL_STUDIO_API_KEY") or None
        if url is None and api_key is None:
            return None
        if url is None or api_key is None:
            missing = "LABEL_STUDIO_URL (or --label-studio-url)" if url is None else "LABEL_STUDIO_API_KEY"
            raise LabelStudioError(
                f"Label Studio is half configured: {missing} is not set. Set both, or neither to skip Label Studio."
            )
        title = env.get("LABEL_STUDIO_PROJECT_TITLE") or cls.project_title  # e.g. a team's own naming
        media = env.get("LABEL_STUDIO_MEDIA") or cls.media
        return cls(url=url.rstrip("/"), api_key=api_key, project_title=title, media=media)


class LabelStudioSession:
    """A `label_studio_sdk.LabelStudio` client plus error translation."""

    def __init__(self, settings: LabelStudioSettings) -> None:
        try:
            from label_studio_sdk import LabelStudio
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise LabelStudioError(
                "the label-studio-sdk package is not installed: pip install 'sob-curation-toolkit[labelstudio]'"
            ) from exc
        self.settings = settings
        self.base_url = settings.url.rstrip("/")
        import httpx

        # Separate connect and read limits: a server that never accepts is reported in seconds; a slow export
        # still has `timeout_s` between two bytes.
        timeout = httpx.Timeout(settings.timeout_s, connect=CONNECT_TIMEOUT_S)
        http = httpx.Client(timeout=timeout, transport=RetryDroppedTransport())  # a dropped connection: once more
        self.client = LabelStudio(base_url=self.base_url, api_key=settings.api_key, httpx_client=http)
        self._users: dict[int, str] | None = None
        # Projects this session has already checked (and fixed) on the server: a long-lived session (`--serve`)
        # reads each once, not once per cycle and stage.
        self.ensured: dict[tuple[str, str, str, int, int], ls_state.ProjectRow] = {}
        self.media_modes: dict[int, str] = {}  # project id -> how its page images reach the server (page_tasks)
        # Requests made, by what they did ("reading task", ...): what a cycle costs the server (benchmarks read it).
        self.requests: Counter[str] = Counter()
        # Task data this session read or wrote lately (task id -> data): writing a task's feedback needs its whole
        # data (Label Studio replaces it), and reading it again each time was most of a cycle's requests.
        self._task_data: dict[int, dict[str, Any]] = {}
        self._lock = threading.Lock()  # the counter and the kept data, for writes made from several threads

    def call(self, what: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run one SDK call; turn transport and API errors into errors a curator can act on."""
        import httpx
        from label_studio_sdk.core.api_error import ApiError

        with self._lock:
            self.requests[" ".join(_NUMBERED.sub("", what).split())] += 1
        try:
            return fn(*args, **kwargs)
        except httpx.TransportError as exc:
            raise LabelStudioUnavailable(
                f"Label Studio at {self.base_url} did not answer while {what} ({type(exc).__name__}: {exc}). "
                "Check that it is running (or pass --start-label-studio) and run the command again: "
                "what was already stored is kept and nothing is pushed twice."
            ) from exc
        except ApiError as exc:
            if exc.status_code in (401, 403):
                raise LabelStudioError(
                    f"Label Studio at {self.base_url} refused the API key while {what} (HTTP {exc.status_code}). "
                    "Check LABEL_STUDIO_API_KEY: a personal access token, or a legacy token with legacy tokens "
                    "enabled in the organization.",
                    exc.status_code,
                ) from exc
            raise LabelStudioError(
                f"Label Studio at {self.base_url} answered HTTP {exc.status_code} while {what}: {exc.body}",
                exc.status_code,
            ) from exc

    def remember_task_data(self, task_id: int, data: Mapping[str, Any]) -> None:
        """Keep a task's data as just read or written, for the writes of this cycle."""
        with self._lock:
            if len(self._task_data) >= TASK_DATA_KEPT:
                self._task_data.pop(next(iter(self._task_data)))
            self._task_data[task_id] = dict(data)

    def forget_task_data(self) -> None:
        """A new cycle: another process may have written tasks since, so their data is read again."""
        with self._lock:
            self._task_data.clear()

    def task_data(self, task_id: int) -> dict[str, Any]:
        """A task's data: as this cycle last read or wrote it, else read from the server (404: raises)."""
        with self._lock:
            kept = self._task_data.get(task_id)
        if kept is None:
            task = self.call(f"reading task {task_id}", self.client.tasks.get, id=task_id)
            kept = dict(task.data or {})
            self.remember_task_data(task_id, kept)
        return dict(kept)

    def write_task_data(self, task_id: int, data: Mapping[str, Any], what: str) -> None:
        """Replace a task's data (Label Studio keeps no part of the old one) and remember it."""
        self.call(
            f"{what} {task_id}",
            self.client.tasks.update,
            id=task_id,
            data=dict(data),
            request_options={"additional_query_parameters": {"omit": WRITE_OMIT}},
        )
        self.remember_task_data(task_id, data)

    def check_reachable(self, timeout_s: float | None = None) -> None:
        """One quick request before a run relies on the server: a URL that accepts connections and never answers
        (a wrong port, a hung proxy) is a one-line error in seconds, not minutes of silence."""
        import httpx

        timeout_s = PROBE_TIMEOUT_S if timeout_s is None else timeout_s
        try:
            httpx.get(f"{self.base_url}/health", timeout=timeout_s)  # any HTTP answer will do: it is there
        except httpx.TransportError as exc:
            raise LabelStudioUnavailable(
                f"Label Studio at {self.base_url} did not answer within {timeout_s:.0f} s ({type(exc).__name__}): "
                "check --label-studio-url (or LABEL_STUDIO_URL) and that the server runs"
            ) from exc

    def user_emails(self) -> dict[int, str]:
        if self._users is None:
            users = self.call("listing users", self.client.users.list)
            self._users = {u.id: (u.email or u.username or str(u.id)) for u in users if u.id is not None}
        return self._users

    def project_url(self, project_id: int) -> str:
        return f"{self.base_url}/projects/{project_id}/data"


# -- projects ----------------------------------------------------------------------------------
def _project_titled(session: LabelStudioSession, title: str) -> Any | None:
    page, size = 1, 100
    while True:
        pager = session.call("listing projects", session.client.projects.list, page=page, page_size=size, title=title)
        items = list(pager.items or [])
        found = next((p for p in items if p.title == title), None)
        if found is not None or len(items) < size:
            return found
        page += 1


def ensure_project(
    store: Store,
    session: LabelStudioSession,
    source: str,
    *,
    config: str | None = None,
    title: str | None = None,
    description: str | None = None,
    maximum_annotations: int | None = None,
) -> ls_state.ProjectRow:
    """Reuse the source's project (by stored id, then by title) or create it; keep its config and its overlap
    (`maximum_annotations`: the annotations each task takes, from as many different annotators) current.

    `source` is the key the store remembers the project by; the audit passes its own key, config and title. The
    source's own authoring project (no `config` given) takes `settings.overlap` annotations per task (one with
    `blind_second`: the second curator then works in a project of their own).
    """
    if maximum_annotations is None:
        settings = session.settings
        maximum_annotations = settings.overlap if config is None and not settings.blind_second else 1
    config = config or label_config(source)
    config_hash = hashlib.sha256(config.encode("utf-8")).hexdigest()
    title = title or session.settings.project_title.format(source=source)
    client = session.client
    known = ls_state.get_project(store, session.base_url, source)
    if known is not None and (source, config_hash, title, known.project_id, maximum_annotations) in session.ensured:
        return known
    identity = ownership.workspace_identity(store.path.parent)
    project = None
    if known is not None:
        try:
            project = session.call("reading the project", client.projects.get, id=known.project_id)
        except LabelStudioError as exc:
            if exc.status_code != 404:  # a deleted project is created again below
                raise
    found_by_title = False
    if project is None:
        project = _project_titled(session, title)
        found_by_title = project is not None
    if project is None:
        description = (
            description
            or f"Structured-output benchmark records from {source}: one task per source item. "
            "Managed by the SOB curation toolkit; edit the labeling config in annotation_ui_config/."
        )
        project = session.call(
            f"creating project {title!r}",
            client.projects.create,
            title=title,
            label_config=config,
            description=ownership.with_owner(description, identity),
            show_collab_predictions=True,
            maximum_annotations=maximum_annotations,
            overlap_cohort_percentage=100,  # every task, not a share of them
        )
    else:
        # A project this workspace's store knows and no workspace marked (an older toolkit made it) is ours.
        adopt = session.settings.adopt or (not found_by_title and ownership.owner(project.description) is None)
        marked = ownership.check_owner(project, identity, adopt=adopt, base_url=session.base_url)
        if marked is not None:
            session.call("marking the project", client.projects.update, id=project.id, description=marked)
        if (project.label_config or "").strip() != config.strip():
            session.call("updating the labeling config", client.projects.update, id=project.id, label_config=config)
        if (getattr(project, "maximum_annotations", None) or 1) != maximum_annotations:
            session.call(
                "setting the annotations per task",
                client.projects.update,
                id=project.id,
                maximum_annotations=maximum_annotations,
                overlap_cohort_percentage=100,
            )
    ls_state.save_project(store, session.base_url, source, int(project.id), title, config_hash)
    row = ls_state.get_project(store, session.base_url, source)
    assert row is not None
    session.ensured[(source, config_hash, title, row.project_id, maximum_annotations)] = row
    return row


# -- listing tasks ------------------------------------------------------------------------------
def list_project_tasks(
    session: LabelStudioSession,
    project_id: int,
    *,
    fields: str | None = None,
    omit: str = LIST_OMIT,
    query: dict[str, Any] | None = None,
    what: str = "listing tasks",
) -> Iterator[list[Any]]:
    """Pages of a project's tasks (data manager list), without the heavy fields."""
    page, seen = 1, 0
    page_size = session.settings.page_size
    while True:
        kwargs: dict[str, Any] = {"project": project_id, "page": page, "page_size": page_size}
        if fields:
            kwargs["fields"] = fields
        if query:
            kwargs["query"] = json.dumps(query)
        pager = session.call(
            f"{what} (page {page})",
            session.client.tasks.list,
            request_options={"additional_query_parameters": {"omit": omit}},
            **kwargs,
        )
        items = list(pager.items or [])
        total = getattr(pager.response, "total", None)
        if items:
            yield items
        seen += len(items)
        if not items or len(items) < page_size or (total is not None and seen >= total):
            return
        page += 1


def prefetched(pages: Iterator[T], ahead: int = 1) -> Iterator[T]:
    """Iterate `pages` in a worker thread, `ahead` items in advance; errors surface in the caller."""
    done = object()
    slots: queue.Queue[Any] = queue.Queue(maxsize=ahead)
    stop = threading.Event()

    def work() -> None:
        try:
            for page in pages:
                if stop.is_set():
                    return
                slots.put(("page", page))
            slots.put(("end", done))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            slots.put(("error", exc))

    worker = threading.Thread(target=work, name="label-studio-prefetch", daemon=True)
    worker.start()
    try:
        while True:
            kind, value = slots.get()
            if kind == "end":
                return
            if kind == "error":
                raise value
            yield value
    finally:
        stop.set()
        while worker.is_alive():  # let a blocked put() finish so the thread can end
            with contextlib.suppress(queue.Empty):
                slots.get(timeout=0.1)
        worker.join()


def task_meta(task: Any, name: str) -> str | None:
    meta = task.get("meta") if isinstance(task, dict) else getattr(task, "meta", None)
    value = meta.get(name) if isinstance(meta, dict) else None
    return value if isinstance(value, str) and value else None


def task_key(task: Any) -> str | None:
    return task_meta(task, "source_item_key")
