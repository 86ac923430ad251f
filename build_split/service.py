"""`python -m build_split --source X --serve`: keep Label Studio and the store in sync until stopped.

Label Studio's webhooks (annotation created or updated) reach a small receiver on loopback; each one wakes a
cycle that pulls the new annotations, validates and judges them, and writes the verdict back into the task
(`authoring.labelstudio.feedback.write_verdicts`), so the curator sees it within seconds. Where webhooks cannot reach
the toolkit (a Label Studio on another machine), or one is lost, a cycle also runs every `poll_s` seconds.
The store is opened for each cycle only: `--status`, `--rejections`, `--diff`, `--release` and
`python -m scoring` work from another terminal meanwhile.

The receiver is the standard library's `ThreadingHTTPServer`: it only has to take a small POST and wake the
loop; everything else happens in the main thread, one cycle at a time.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse

from authoring.labelstudio.client import LabelStudioError, LabelStudioSession, ensure_project
from authoring.labelstudio.runs import label_studio_for_run
from build_split.options import RunOptions
from build_split.pipeline import RunSummary, run_once
from core.store import Store

WEBHOOK_ACTIONS = ("ANNOTATION_CREATED", "ANNOTATIONS_CREATED", "ANNOTATION_UPDATED")
MAX_BODY = 1 << 20  # a webhook body is small; more is not read
DEFAULT_POLL_S = 15.0
LOOPBACK = ("127.0.0.1", "localhost", "::1")
QUIET_COUNTS = ("unchanged", "no_annotation")  # what every cycle sees again: not worth a line


class WebhookReceiver:
    """Takes Label Studio's webhook POSTs on 127.0.0.1 and wakes the service loop."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.wake = threading.Event()
        self.received = 0
        self._task_ids: list[int] = []  # tasks the webhooks named since the last cycle
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server interface
                length = min(int(self.headers.get("Content-Length") or 0), MAX_BODY)
                body = self.rfile.read(length) if length else b""
                try:
                    payload = json.loads(body or b"{}")
                    action = payload.get("action")
                except (ValueError, AttributeError):
                    payload, action = {}, None
                self.send_response(200)
                self.end_headers()
                if action in WEBHOOK_ACTIONS:
                    receiver.received += 1
                    receiver.note(payload)
                    receiver.wake.set()

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - quiet: no access log
                return

        self.server = ThreadingHTTPServer((host, port), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, name="webhook-receiver", daemon=True)

    def note(self, payload: dict) -> None:
        """Keep the task the payload names; a payload naming none (bulk actions) makes the next cycle a full one."""
        task = payload.get("task") if isinstance(payload.get("task"), dict) else {}
        task_id = task.get("id") or (payload.get("annotation") or {}).get("task")
        with self._lock:
            self._task_ids.append(int(task_id) if isinstance(task_id, int) else -1)

    def take_task_ids(self) -> list[int] | None:
        """The tasks named since the last call, or None when some webhook named none (then pull everything)."""
        with self._lock:
            ids, self._task_ids = self._task_ids, []
        return None if not ids or -1 in ids else ids

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/label-studio"

    def __enter__(self) -> WebhookReceiver:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def _register_webhook(session: LabelStudioSession, project_id: int, url: str) -> int | None:
    """The project's webhook to `url` (made once per service run, removed when it stops)."""
    hook = session.call(
        "registering the webhook",
        session.client.webhooks.create,
        url=url,
        project=project_id,
        send_payload=True,  # the task id: a cycle then reads that task only
        send_for_all_actions=False,
        actions=list(WEBHOOK_ACTIONS),
    )
    return hook.id


def _remove_webhook(session: LabelStudioSession, hook_id: int | None) -> None:
    if hook_id is None:
        return
    try:
        session.call("removing the webhook", session.client.webhooks.delete, id=hook_id)
    except LabelStudioError:
        pass  # the server may be gone already; a stale hook only fails its own deliveries


def _other_projects(store: Store, session: LabelStudioSession, options: RunOptions) -> list[int]:
    """The adjudication project and, with --blind-second, the second curator's project (made now if need be)."""
    from authoring.labelstudio import adjudication, overlap

    projects = [adjudication.project(store, session, options.source).project_id]
    if options.blind_second:
        projects.append(overlap.blind_project(store, session, options.source).project_id)
    return projects


def serve(options: RunOptions, echo: Callable[[str], None] = print, *, poll_s: float = DEFAULT_POLL_S) -> RunSummary:
    """The first full run, then one cycle per webhook (or per `poll_s`) until Ctrl-C or SIGTERM."""
    summary = RunSummary()
    with label_studio_for_run(
        options.workspace,
        url=options.label_studio_url,
        api_key=options.label_studio_api_key,
        start=options.start_label_studio,
        port=options.label_studio_port,
        keep_running=False,
        echo=echo,
        overlap=options.overlap,
        blind_second=options.blind_second,
        database=options.database,
        media=options.label_studio_media,
    ) as session:
        if session is None:
            raise LabelStudioError(
                "--serve needs Label Studio: pass --start-label-studio, or --label-studio-url and "
                "--label-studio-api-key (or LABEL_STUDIO_URL / LABEL_STUDIO_API_KEY)"
            )
        run_once(options, summary, session, echo)
        with Store.open(options.workspace) as store:
            project = ensure_project(store, session, options.source)
            # Two curators per record: the second curator's and the adjudicator's submissions wake the service too.
            others = _other_projects(store, session, options) if options.overlap > 1 else []
        cycle_options = options.model_copy(
            update={"sample": False, "input": None, "from_hub": False, "authored": None, "release": None, "push": None}
        )
        loopback = (urlparse(session.base_url).hostname or "") in LOOPBACK
        with WebhookReceiver() as receiver:
            hook_id, other_hooks = None, []
            if loopback:
                try:
                    hook_id = _register_webhook(session, project.project_id, receiver.url)
                    other_hooks = [_register_webhook(session, p, receiver.url) for p in others]
                except LabelStudioError as exc:
                    echo(f"note: no webhook ({exc}); polling every {poll_s:.0f} s instead")
            how = f"webhooks to {receiver.url}" if hook_id is not None else "polling"
            echo(
                f"serving: {how}, and a check every {poll_s:.0f} s; verdicts go back into the tasks. "
                "Ctrl-C stops the service."
            )
            try:
                _loop(cycle_options, session, receiver, poll_s, echo)
            finally:
                for hook in [hook_id, *other_hooks]:
                    _remove_webhook(session, hook)
    return summary


def _loop(
    options: RunOptions,
    session: LabelStudioSession,
    receiver: WebhookReceiver,
    poll_s: float,
    echo: Callable[[str], None],
    stop: threading.Event | None = None,
) -> None:
    """Cycles until interrupted (or `stop` is set, then the receiver woken)."""
    while stop is None or not stop.is_set():
        woken = receiver.wake.wait(timeout=poll_s)
        receiver.wake.clear()
        if stop is not None and stop.is_set():
            return
        started = time.monotonic()
        cycle = RunSummary()
        run_once(options, cycle, session, echo, quiet=True, task_ids=receiver.take_task_ids() if woken else None)
        counts = cycle.label_studio.pull.counts if cycle.label_studio is not None else {}
        pulled = {k: v for k, v in counts.items() if v and k not in QUIET_COUNTS}
        if woken or pulled or cycle.verdicts:
            took = time.monotonic() - started
            what = ", ".join(f"{k} {v}" for k, v in pulled.items() if v) or "nothing new"
            echo(
                f"{'webhook' if woken else 'poll'}: pulled {what}; {cycle.bounced} sent back, "
                f"{cycle.verdicts} verdict(s) written back ({took:.2f} s)"
            )
