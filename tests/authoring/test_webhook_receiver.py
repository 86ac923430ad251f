"""The `--serve` webhook receiver against hostile requests, over real sockets: each is refused with a status and a
logged reason, never wakes the service, and never holds the receiver (issue 35; issue 33 item 3)."""

from __future__ import annotations

import json
import socket
import threading

import pytest

from authoring.labelstudio.webhooks import MAX_BODY, SECRET_HEADER, WebhookReceiver

SECRET = "s3cr3t-for-the-test-only"


@pytest.fixture
def receiver():
    lines: list[str] = []
    with WebhookReceiver(secret=SECRET, log=lines.append, read_timeout_s=1.0) as opened:
        opened.lines = lines  # type: ignore[attr-defined]
        yield opened


def raw_request(receiver: WebhookReceiver, head: str, body: bytes = b"", *, close: bool = False) -> bytes:
    """Send `head` (+ body) and read the whole answer; the client keeps its side open unless `close`."""
    with socket.create_connection(receiver.address, timeout=30) as sock:
        sock.sendall(head.encode("latin-1") + b"\r\n" + body)
        if close:
            sock.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
        return answer


def post(receiver: WebhookReceiver, payload: object, *, secret: str | None = SECRET, extra: str = "") -> bytes:
    body = json.dumps(payload).encode()
    head = f"POST /label-studio HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n{extra}"
    if secret is not None:
        head += f"{SECRET_HEADER}: {secret}\r\n"
    return raw_request(receiver, head, body)


def status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


CREATED = {"action": "ANNOTATION_CREATED", "task": {"id": 7}, "annotation": {"id": 3, "task": 7}}


def test_a_webhook_with_the_secret_wakes_the_service_for_its_task(receiver) -> None:
    assert status(post(receiver, CREATED)) == 200
    assert receiver.wake.is_set() and receiver.received == 1 and receiver.take_task_ids() == [7]


@pytest.mark.parametrize(
    ("secret", "why"), [(None, f"no {SECRET_HEADER} header"), ("guess", f"wrong {SECRET_HEADER} header")]
)
def test_a_forged_webhook_without_the_secret_is_refused_and_wakes_nothing(receiver, secret, why) -> None:
    assert status(post(receiver, CREATED, secret=secret)) == 403
    assert not receiver.wake.is_set() and receiver.received == 0 and receiver.take_task_ids() is None
    assert receiver.lines == [f"webhook refused from 127.0.0.1: {why}"]
    assert SECRET not in "".join(receiver.lines)


@pytest.mark.parametrize(
    ("length", "code"), [("-1", 400), ("abc", 400), ("1e3", 400), (" ", 400), (str(MAX_BODY + 1), 413)]
)
def test_a_bad_content_length_is_refused_at_once_whatever_it_announces(receiver, length, code) -> None:
    """`Content-Length: -1` used to read until the client closed; the client here never closes its side."""
    head = f"POST /label-studio HTTP/1.1\r\nContent-Length: {length}\r\n{SECRET_HEADER}: {SECRET}\r\n"
    assert status(raw_request(receiver, head, b'{"action": "ANNOTATION_CREATED"}')) == code
    assert not receiver.wake.is_set() and len(receiver.lines) == 1


def test_a_chunked_body_is_refused(receiver) -> None:
    head = f"POST /label-studio HTTP/1.1\r\nTransfer-Encoding: chunked\r\n{SECRET_HEADER}: {SECRET}\r\n"
    assert status(raw_request(receiver, head, b"5\r\nhello\r\n0\r\n\r\n")) == 411


@pytest.mark.parametrize(
    "payload",
    [
        {"action": "ANNOTATION_CREATED", "annotation": "a string"},
        {"action": "ANNOTATION_CREATED", "task": 424242},
        {"action": "ANNOTATION_CREATED", "task": {"id": "7"}},
        {"action": "ANNOTATION_CREATED", "task": {"id": True}},
        ["ANNOTATION_CREATED"],
    ],
)
def test_a_malformed_body_is_a_400_not_a_traceback(receiver, payload) -> None:
    answer = post(receiver, payload)
    assert status(answer) == 400 and not receiver.wake.is_set()
    assert len(receiver.lines) == 1 and "Traceback" not in receiver.lines[0]


def test_a_body_that_is_not_json_is_a_400(receiver) -> None:
    head = f"POST /label-studio HTTP/1.1\r\nContent-Length: 5\r\n{SECRET_HEADER}: {SECRET}\r\n"
    assert status(raw_request(receiver, head, b"{not ")) == 400


def test_a_slow_client_is_cut_and_the_receiver_keeps_answering(receiver) -> None:
    """A client that sends half its headers and then nothing: cut after the limit; meanwhile others are served."""
    slow = socket.create_connection(receiver.address, timeout=30)
    slow.sendall(b"POST /label-studio HTTP/1.1\r\nContent-Le")
    assert status(post(receiver, CREATED)) == 200  # another client is not held up by the slow one
    assert slow.recv(1024) == b""  # the receiver closed the connection (event, not a sleep)
    slow.close()
    assert any("within 1 s" in line or "timed out" in line for line in receiver.lines), receiver.lines


def test_a_short_body_is_refused_without_waking(receiver) -> None:
    head = f"POST /label-studio HTTP/1.1\r\nContent-Length: 100\r\n{SECRET_HEADER}: {SECRET}\r\n"
    raw_request(receiver, head, b'{"action": "ANNOTATION_CREATED"}', close=True)
    assert not receiver.wake.is_set() and receiver.received == 0


def test_a_bulk_webhook_asks_for_a_full_cycle(receiver) -> None:
    assert status(post(receiver, {"action": "ANNOTATIONS_CREATED", "annotation": None})) == 200
    assert receiver.wake.is_set() and receiver.take_task_ids() is None


def test_many_hostile_clients_at_once_do_not_stop_the_receiver(receiver) -> None:
    done = threading.Barrier(9)
    codes: list[int] = []

    def attack() -> None:
        head = f"POST /label-studio HTTP/1.1\r\nContent-Length: -1\r\n{SECRET_HEADER}: x\r\n"
        codes.append(status(raw_request(receiver, head)))
        done.wait()

    for _ in range(8):
        threading.Thread(target=attack, daemon=True).start()
    done.wait(timeout=30)
    assert codes == [403] * 8 and status(post(receiver, CREATED)) == 200


def test_a_body_without_content_length_is_refused(receiver) -> None:
    head = f"POST /label-studio HTTP/1.1\r\n{SECRET_HEADER}: {SECRET}\r\n"
    assert status(raw_request(receiver, head, b"{}")) == 411 and not receiver.wake.is_set()


def test_a_client_dripping_its_headers_is_cut_at_the_whole_request_limit(receiver) -> None:
    """One byte every 0.2 s never trips a per-read timeout; the whole-request limit (1 s here) cuts it."""
    import select

    with socket.create_connection(receiver.address, timeout=30) as slow:
        slow.sendall(b"POST /label-studio HTTP/1.1\r\n")
        cut = False
        for _ in range(150):  # 30 s at most: far past the limit
            try:
                slow.sendall(b"X")
            except OSError:
                cut = True
                break
            readable, _, _ = select.select([slow], [], [], 0.2)
            if readable and slow.recv(1024) == b"":
                cut = True
                break
    assert cut and any("no whole request within 1 s" in line for line in receiver.lines), receiver.lines


def test_the_service_secret_is_masked_in_whatever_the_toolkit_prints_or_stores() -> None:
    from authoring.labelstudio.webhooks import new_secret
    from core.redaction import redact

    secret = new_secret()
    assert secret not in redact(f"Label Studio answered HTTP 400: {{'headers': {{'{SECRET_HEADER}': '{secret}'}}}}")
