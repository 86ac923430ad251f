"""One call per run: the Label Studio a run talks to, push then pull, and what waits for curators."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from authoring import ls_state
from authoring.labelstudio.client import LabelStudioSession, LabelStudioSettings, ensure_project
from authoring.labelstudio.pull import PullResult, pull_annotations, pull_tasks
from authoring.labelstudio.push import PushResult, push_tasks
from core.store import Store


@dataclass
class SyncResult:
    project_id: int
    url: str
    push: PushResult
    pull: PullResult


def sync(
    store: Store,
    session: LabelStudioSession,
    source: str,
    drafts: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    task_ids: Sequence[int] | None = None,
    compare: Callable[..., Any] | None = None,
) -> SyncResult:
    """Push new candidates, then pull finished annotations: what one run of the pipeline does. With `task_ids`
    (a webhook named them): pull those tasks only, push nothing. With two curators per record (`settings.overlap`),
    `compare` compares their answers (`scoring.curator_agreement.compare_answers`)."""
    session.forget_task_data()  # tasks another process wrote since the last cycle are read again
    project = ensure_project(store, session, source)
    if session.settings.overlap > 1:  # two curators per record: the tasks a webhook named are not enough to compare
        from authoring.labelstudio.overlap import sync_two_curators

        if compare is None:
            raise ValueError("two curators per record need `compare` (scoring.curator_agreement.compare_answers)")
        pushed, pulled = sync_two_curators(store, session, source, drafts, project, compare)
        return SyncResult(project.project_id, session.project_url(project.project_id), pushed, pulled)
    if task_ids:
        pulled = pull_tasks(store, session, source, task_ids)
        return SyncResult(project.project_id, session.project_url(project.project_id), PushResult(), pulled)
    pushed = push_tasks(store, session, source, drafts, project=project)
    pulled = pull_annotations(store, session, source, project=ls_state.get_project(store, session.base_url, source))
    return SyncResult(project.project_id, session.project_url(project.project_id), pushed, pulled)


def awaiting_curators(store: Store, source: str, base_url: str | None = None) -> dict[str, int]:
    """Tasks that wait for a curator, by why: awaiting (new), needs_revision (sent back), needs_discussion."""
    counts = ls_state.status_counts(store, source, base_url)
    return {status: counts.get(status, 0) for status in ls_state.OPEN_STATUSES}


def awaiting_line(store: Store, session: LabelStudioSession, source: str, *, served: bool = True) -> str:
    """What waits for curators, and where. `served=False`: the toolkit's own server stops with this run, so no
    URL is given (it would lead nowhere), but how to serve the curators."""
    project = ls_state.get_project(store, session.base_url, source)
    counts = awaiting_curators(store, source, session.base_url)
    total = sum(counts.values())
    detail = (
        f"({counts['awaiting']} new, {counts['needs_revision']} sent back, {counts['needs_discussion']} to discuss)"
    )
    if not served:
        return (
            f"Label Studio: stopped with this run; {total} task(s) await curators {detail}. "
            "Serve them with --start-label-studio --keep-label-studio"
        )
    where = session.project_url(project.project_id) if project else session.base_url
    return f"Label Studio: {where} - {total} task(s) await curators {detail}"


@contextmanager
def label_studio_for_run(
    workspace: Path | str,
    *,
    url: str | None = None,
    api_key: str | None = None,
    start: bool = False,
    port: int | None = None,
    keep_running: bool = False,
    echo: Callable[[str], None] = print,
    overlap: int = 1,
    blind_second: bool = False,
    adopt: bool = False,
    database: str | None = None,
    workers: int = 1,
    media: str = "auto",
) -> Iterator[LabelStudioSession | None]:
    """The Label Studio a run talks to: started in the workspace (`--start-label-studio`), given by
    flags or LABEL_STUDIO_URL / LABEL_STUDIO_API_KEY, or None when there is none.

    A started server is stopped when the block ends; with `keep_running` it serves the curators until
    Ctrl-C first. `overlap` curators author each record (`blind_second`: the second without the draft's answer).
    `workers`: a started server's processes (authoring/server_workers.py). `database`: a started server's
    PostgreSQL URL (else LABEL_STUDIO_DATABASE_URL, else SQLite); `media`: how page
    images reach Label Studio (authoring/media_upload.py).
    """
    two = {"overlap": overlap, "blind_second": blind_second, "adopt": adopt, "media": media}
    if not start:
        settings = LabelStudioSettings.from_env(url, api_key)
        if settings is None:
            yield None
            return
        session = LabelStudioSession(replace(settings, **two))
        session.check_reachable()
        yield session
        return
    from authoring.database import database_from
    from authoring.server import DEFAULT_PORT, LabelStudioServer

    db = database_from(database)
    server = LabelStudioServer.for_workspace(workspace, port=port or DEFAULT_PORT, database=db, workers=workers)
    on = f", its database {db.url}" if db is not None else ""
    on += f", {workers} processes" if workers > 1 else ""
    echo(f"starting Label Studio in {server.data_dir}{on} (the first start takes about a minute) ...")
    server.start()
    if server.orphan_stopped is not None:
        echo(
            f"stopped a Label Studio that a killed run left running (process group {server.orphan_stopped.pid}, "
            f"port {server.orphan_stopped.port})"
        )
    try:
        assert server.credentials is not None
        echo(
            f"Label Studio is up at {server.url}: log in as {server.credentials.username}, "
            f"password in {server.data_dir / 'credentials.json'}"
        )
        # A team's own project naming holds for a server the run started too.
        title = os.environ.get("LABEL_STUDIO_PROJECT_TITLE") or LabelStudioSettings.project_title
        settings = LabelStudioSettings(
            url=server.url,
            api_key=server.api_key,
            local_files_root=str(server.files_root),
            project_title=title,
            **two,
        )
        yield LabelStudioSession(settings)
        if keep_running:
            echo(f"Label Studio keeps running at {server.url} for the curators; Ctrl-C stops it.")
            server.serve_until_interrupted()
    finally:
        server.stop()
