"""`python -m build_split --source X --serve`: keep Label Studio and the store in sync until stopped.

Label Studio's webhooks (annotation created or updated) reach a small receiver (`authoring.labelstudio.webhooks`:
on 127.0.0.1 for a local server, on `--listen HOST:PORT` for a server elsewhere), each carrying the secret header
the service set when it registered the webhook; each one wakes a cycle that pulls the new annotations, validates
and judges them, and writes the verdict back into the task (`authoring.labelstudio.feedback.write_verdicts`), so
the curator sees it within seconds. Where webhooks cannot reach the toolkit, or one is lost, a cycle also runs
every `poll_s` seconds. A webhook is only a hint: one naming a task Label Studio does not hold is counted and
skipped, and a cycle that fails on one bad task is logged and the service goes on.

The service holds its project's lease (`authoring.labelstudio.lease`): a second `--serve` on the same project
is refused while the first runs. The store is opened for each cycle only: `--status`, `--rejections`, `--diff`,
`--release` and `python -m scoring` work from another terminal meanwhile.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable
from datetime import datetime
from urllib.parse import urlparse

from authoring.labelstudio import lease, webhooks
from authoring.labelstudio.client import LabelStudioError, LabelStudioSession, LabelStudioUnavailable, ensure_project
from authoring.labelstudio.runs import label_studio_for_run
from authoring.labelstudio.webhooks import WebhookReceiver
from build_split.options import RunOptions, parse_listen
from build_split.pipeline import RunSummary, run_once
from core.store import Store

DEFAULT_POLL_S = 15.0
LOOPBACK = ("127.0.0.1", "localhost", "::1")
QUIET_COUNTS = ("unchanged", "no_annotation")  # what every cycle sees again: not worth a line
WILDCARDS = ("0.0.0.0", "::", "")


def webhook_url(receiver: WebhookReceiver, listen: tuple[str, int] | None) -> str:
    """The URL Label Studio calls: the --listen address, this host's name when it listens on every interface."""
    if listen is None:
        return receiver.url
    host = listen[0] if listen[0] not in WILDCARDS else socket.getfqdn()
    host = f"[{host}]" if ":" in host else host
    return f"http://{host}:{receiver.address[1]}{webhooks.PATH}"


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
    listen = parse_listen(options.listen) if options.listen else None
    with label_studio_for_run(
        options.workspace,
        url=options.label_studio_url,
        api_key=options.label_studio_api_key,
        start=options.start_label_studio,
        port=options.label_studio_port,
        workers=options.label_studio_workers,
        keep_running=False,
        echo=echo,
        overlap=options.overlap,
        blind_second=options.blind_second,
        adopt=options.adopt,
        database=options.database,
        media=options.label_studio_media,
    ) as session:
        if session is None:
            raise LabelStudioError(
                "--serve needs Label Studio: pass --start-label-studio, or --label-studio-url and "
                "--label-studio-api-key (or LABEL_STUDIO_URL / LABEL_STUDIO_API_KEY)"
            )
        with Store.open(options.workspace) as store:  # whose project, and who serves it: before writing anything
            project = ensure_project(store, session, options.source)
        held, took_over = lease.take_lease(session, project.project_id)
        if took_over:
            echo(f"note: {took_over}")
        try:
            _serve_project(options, session, project.project_id, listen, echo, poll_s, summary, held)
        finally:
            lease.release_lease(session, project.project_id)
    return summary


def _serve_project(
    options: RunOptions,
    session: LabelStudioSession,
    project_id: int,
    listen: tuple[str, int] | None,
    echo: Callable[[str], None],
    poll_s: float,
    summary: RunSummary,
    held: lease.Lease,
) -> None:
    run_once(options, summary, session, echo)
    with Store.open(options.workspace) as store:
        # Two curators per record: the second curator's and the adjudicator's submissions wake the service too.
        others = _other_projects(store, session, options) if options.overlap > 1 else []
    cycle_options = options.model_copy(
        update={"sample": False, "input": None, "from_hub": False, "authored": None, "release": None, "push": None}
    )
    loopback = (urlparse(session.base_url).hostname or "") in LOOPBACK
    secret = webhooks.new_secret()  # this run's only: in memory and in Label Studio's webhook record
    host, port = listen or ("127.0.0.1", 0)
    with WebhookReceiver(host, port, secret=secret) as receiver:
        url = webhook_url(receiver, listen)
        hook_ids: list[int | None] = []
        if loopback or listen is not None:
            try:
                for project in [project_id, *others]:
                    hook_ids.append(webhooks.register(session, project, url, secret))
            except LabelStudioError as exc:
                echo(f"note: no webhook ({exc}); polling every {poll_s:.0f} s instead")
        how = f"webhooks to {url}" if hook_ids else "polling"
        echo(
            f"serving: {how}, and a check every {poll_s:.0f} s; verdicts go back into the tasks. "
            "Ctrl-C stops the service."
        )
        try:
            _loop(cycle_options, session, receiver, poll_s, echo, holding=(project_id, held.since))
        finally:
            for hook in hook_ids:
                webhooks.remove(session, hook)


def _loop(
    options: RunOptions,
    session: LabelStudioSession,
    receiver: WebhookReceiver,
    poll_s: float,
    echo: Callable[[str], None],
    stop: threading.Event | None = None,
    *,
    holding: tuple[int, datetime] | None = None,
) -> None:
    """Cycles until interrupted (or `stop` is set, then the receiver woken). `holding`: the project whose lease
    this service renews (in a thread of its own, `lease.LeaseKeeper`), and since when it holds it."""
    with contextlib.ExitStack() as stack:
        keeper = None
        if holding is not None:
            keeper = stack.enter_context(lease.LeaseKeeper(session, *holding, on_failure=receiver.wake.set))
        next_poll = time.monotonic() + poll_s
        while stop is None or not stop.is_set():
            woken = receiver.wake.wait(timeout=max(0.0, next_poll - time.monotonic()))
            receiver.wake.clear()
            if keeper is not None:
                keeper.raise_failure()  # it wakes the loop only to stop it: the lease is lost or the server gone
            if stop is not None and stop.is_set():
                return
            next_poll = time.monotonic() + poll_s
            _cycle(options, session, receiver, woken, echo)


def _cycle(
    options: RunOptions,
    session: LabelStudioSession,
    receiver: WebhookReceiver,
    woken: bool,
    echo: Callable[[str], None],
) -> None:
    started = time.monotonic()
    requests_before = session.requests.total()
    cycle = RunSummary()
    try:
        run_once(options, cycle, session, echo, quiet=True, task_ids=receiver.take_task_ids() if woken else None)
    except LabelStudioError as exc:
        if isinstance(exc, LabelStudioUnavailable) or exc.status_code in (401, 403):
            raise  # the server is gone or refuses the key: no later cycle can do better
        echo(f"cycle skipped: {exc} (the next check covers it)")  # one bad task must not stop the service
        return
    counts = cycle.label_studio.pull.counts if cycle.label_studio is not None else {}
    pulled = {k: v for k, v in counts.items() if v and k not in QUIET_COUNTS}
    if woken or pulled or cycle.verdicts:
        took = time.monotonic() - started
        what = ", ".join(f"{k} {v}" for k, v in pulled.items() if v) or "nothing new"
        echo(
            f"{'webhook' if woken else 'poll'}: pulled {what}; {cycle.bounced} sent back, "
            f"{cycle.verdicts} verdict(s) written back ({took:.2f} s, "
            f"{session.requests.total() - requests_before} request(s) to Label Studio)"
        )
