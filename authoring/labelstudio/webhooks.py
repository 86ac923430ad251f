"""Label Studio's webhooks to `--serve`: a small receiver that trusts nothing it is sent, and its registration.

Every webhook the service registers carries a secret header (`X-SOB-Webhook-Secret`, Label Studio's webhook
`headers` field). The secret is drawn afresh for each service start and lives only in this process's memory and
in Label Studio's own webhook record: never in argv, a log line or the store. The receiver refuses, without
reading the body or waking the service:

- a request without the header or with a wrong one (403, compared in constant time);
- a Content-Length that is missing, not a decimal number, or over `MAX_BODY` (411, 400, 413), and any
  Transfer-Encoding (411): the body cap holds whatever the client announces;
- a client that has not sent its whole request within `READ_TIMEOUT_S` (the connection is cut);
- a body that is not a JSON object, or whose `task` / `annotation` is not an object with an integer id (400).

An accepted webhook only names a task: the service then reads that task from Label Studio itself, so even a
webhook with the secret can make the service look, never make it store what Label Studio does not hold. Each
refusal is logged in one line, with the client's address and the reason (never the header's value).
"""

from __future__ import annotations

import contextlib
import hmac
import json
import re
import secrets
import socket
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from authoring.labelstudio.client import LabelStudioError, LabelStudioSession
from core.redaction import register_secret

WEBHOOK_ACTIONS = ("ANNOTATION_CREATED", "ANNOTATIONS_CREATED", "ANNOTATION_UPDATED")
SECRET_HEADER = "X-SOB-Webhook-Secret"
MAX_BODY = 1 << 20  # a webhook body is small (the task and the annotation, without the data)
READ_TIMEOUT_S = 10.0  # headers and body within this: a slow client does not hold a thread
PATH = "/label-studio"
_DIGITS = re.compile(r"[0-9]{1,12}")


def new_secret() -> str:
    """A fresh secret, masked in everything the toolkit stores or prints from now on (core.redaction)."""
    secret = secrets.token_urlsafe(32)
    register_secret(secret)
    return secret


class BadWebhook(ValueError):
    """A webhook body the receiver refuses (400); the message says why."""


def task_named(payload: Any) -> int | None:
    """The task a webhook names, None when it names none (a bulk action: the next cycle is a full one).
    BadWebhook for a body that is not what Label Studio sends."""
    if not isinstance(payload, dict):
        raise BadWebhook("the body is not a JSON object")
    for key, id_field in (("task", "id"), ("annotation", "task")):
        if key not in payload or payload[key] is None:
            continue
        part = payload[key]
        if not isinstance(part, dict):
            raise BadWebhook(f"{key!r} is a {type(part).__name__}, not an object")
        value = part.get(id_field)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise BadWebhook(f"{key}.{id_field} is not a positive integer")
        return value
    return None


class WebhookReceiver:
    """Takes Label Studio's webhook POSTs on `host:port` and wakes the service loop.

    `secret`: the value the secret header must carry (None: no header needed; tests of the loop only).
    `log`: where refusals are reported, one line each.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        secret: str | None = None,
        log: Callable[[str], None] | None = None,
        read_timeout_s: float = READ_TIMEOUT_S,
    ) -> None:
        self.wake = threading.Event()
        self.received = 0
        self.refused = 0
        self._secret = secret.encode("utf-8") if secret is not None else None
        self._log = log or (lambda line: print(line, file=sys.stderr, flush=True))
        self._task_ids: list[int] = []  # tasks the webhooks named since the last cycle
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            timeout = read_timeout_s  # socket timeout for the request line, headers and body

            def setup(self) -> None:
                super().setup()
                # A whole request within the limit, not only each read: a client dripping a byte at a time is cut.
                self._deadline = threading.Timer(read_timeout_s, self._cut)
                self._deadline.daemon = True
                self._deadline.start()

            def _cut(self) -> None:
                receiver._refuse_line(self.client_address[0], f"no whole request within {read_timeout_s:.0f} s")
                with contextlib.suppress(OSError):
                    self.connection.shutdown(socket.SHUT_RDWR)

            def finish(self) -> None:
                self._deadline.cancel()
                super().finish()

            def do_POST(self) -> None:  # noqa: N802 - the http.server interface
                receiver._handle(self)

            def do_GET(self) -> None:  # noqa: N802
                self._answer(405, "POST only")

            def _answer(self, code: int, text: str) -> None:
                body = (text + "\n").encode("utf-8")
                self.send_response(code)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                if code >= 400:
                    self.send_header("Connection", "close")
                    self.close_connection = True
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - quiet: no access log
                return

            def log_error(self, format: str, *args: object) -> None:  # noqa: A002 - timeouts, bad request lines
                receiver._refuse_line(self.client_address[0], format % args)

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                # A client gone mid-answer (or cut at the limit) is one line, never a traceback on stderr.
                error = sys.exc_info()[1]
                receiver._refuse_line(client_address[0], f"connection lost ({type(error).__name__})")

        self.server = Server((host, port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, name="webhook-receiver", daemon=True)

    # -- one request -------------------------------------------------------------------------------------
    def _refuse_line(self, client: str, reason: str) -> None:
        with self._lock:
            self.refused += 1
        self._log(f"webhook refused from {client}: {reason}")

    def _refuse(self, handler: Any, code: int, reason: str) -> None:
        self._refuse_line(handler.client_address[0], reason)
        handler._answer(code, reason)

    def _handle(self, handler: Any) -> None:
        headers = handler.headers
        if handler.path.split("?", 1)[0] != PATH:
            return self._refuse(handler, 404, f"unknown path {handler.path[:80]!r}")
        if self._secret is not None:
            given = (headers.get(SECRET_HEADER) or "").encode("utf-8", "replace")
            if not given:
                return self._refuse(handler, 403, f"no {SECRET_HEADER} header")
            if not hmac.compare_digest(given, self._secret):
                return self._refuse(handler, 403, f"wrong {SECRET_HEADER} header")
        if headers.get("Transfer-Encoding"):
            return self._refuse(handler, 411, "a Transfer-Encoding body; send a Content-Length")
        announced = headers.get_all("Content-Length") or []
        if not announced:
            return self._refuse(handler, 411, "no Content-Length")
        if len(set(announced)) != 1 or not _DIGITS.fullmatch(announced[0].strip()):
            return self._refuse(handler, 400, f"Content-Length {announced[0][:20]!r} is not a byte count")
        length = int(announced[0])
        if length > MAX_BODY:
            return self._refuse(handler, 413, f"a body of {length} bytes (at most {MAX_BODY})")
        try:
            body = handler.rfile.read(length)
        except (TimeoutError, OSError):
            handler.close_connection = True
            return self._refuse_line(handler.client_address[0], "the body did not arrive in time")
        if len(body) != length:
            handler.close_connection = True
            return self._refuse_line(handler.client_address[0], "the body ended before its Content-Length")
        try:
            payload = json.loads(body)
            action = payload.get("action") if isinstance(payload, dict) else None
            task_id = task_named(payload)
        except (ValueError, RecursionError) as exc:  # BadWebhook is a ValueError
            reason = str(exc) if isinstance(exc, BadWebhook) else "the body is not JSON"
            return self._refuse(handler, 400, reason)
        handler._answer(200, "ok")
        if action in WEBHOOK_ACTIONS:
            with self._lock:
                self.received += 1
                self._task_ids.append(task_id if task_id is not None else -1)
            self.wake.set()

    # -- the service's side ------------------------------------------------------------------------------
    def take_task_ids(self) -> list[int] | None:
        """The tasks named since the last call, or None when some webhook named none (then pull everything)."""
        with self._lock:
            ids, self._task_ids = self._task_ids, []
        return None if not ids or -1 in ids else ids

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.server.server_address[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        host, port = self.address
        return f"http://{host}:{port}{PATH}"

    def __enter__(self) -> WebhookReceiver:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


# -- registration -----------------------------------------------------------------------------------------
def register(session: LabelStudioSession, project_id: int, url: str, secret: str) -> int | None:
    """The project's webhook to `url`, carrying the secret header (made once per service run, removed when it
    stops). Hooks a killed service left to the same URL are removed first: they carry an old secret."""
    stale = [hook for hook in list_hooks(session, project_id) if getattr(hook, "url", None) == url]
    for hook in stale:
        remove(session, hook.id)
    hook = session.call(
        "registering the webhook",
        session.client.webhooks.create,
        url=url,
        project=project_id,
        send_payload=True,  # the task id: a cycle then reads that task only
        send_for_all_actions=False,
        actions=list(WEBHOOK_ACTIONS),
        headers={SECRET_HEADER: secret},
    )
    return hook.id


def list_hooks(session: LabelStudioSession, project_id: int) -> list[Any]:
    try:
        return list(session.call("listing webhooks", session.client.webhooks.list, project=str(project_id)) or [])
    except LabelStudioError:
        return []


def remove(session: LabelStudioSession, hook_id: int | None) -> None:
    if hook_id is None:
        return
    try:
        session.call("removing the webhook", session.client.webhooks.delete, id=hook_id)
    except LabelStudioError:
        pass  # the server may be gone already; a stale hook only fails its own deliveries
