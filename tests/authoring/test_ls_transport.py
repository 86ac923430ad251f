"""The Label Studio session's transport against a real socket server that resets the first connection after reading
a request, as a server closing a kept-alive connection does: a repeatable request is sent once more, a POST is not."""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Iterator

import httpx
import pytest

from authoring.labelstudio.transport import RetryDroppedTransport

ANSWER = (
    b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\nConnection: close\r\n\r\n{"ok": 1}\r\n'
)


class ResettingServer:
    """Reads each request whole; resets the first `resets` connections without answering, answers the rest."""

    def __init__(self, resets: int) -> None:
        self.resets = resets
        self.requests: list[bytes] = []
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                request = _read_request(conn)
                self.requests.append(request)
                if len(self.requests) <= self.resets:
                    # SO_LINGER 0: close() sends RST, as a server dropping a connection it no longer keeps
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    continue
                conn.sendall(ANSWER)


def _read_request(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        (int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")), 0
    )
    while len(body) < length:
        body += conn.recv(65536)
    return head + b"\r\n\r\n" + body


@pytest.fixture
def server() -> Iterator[ResettingServer]:
    running = ResettingServer(resets=1)
    running.thread.start()
    yield running
    running.sock.close()


def test_a_patch_whose_connection_was_dropped_is_sent_once_more(server: ResettingServer) -> None:
    with httpx.Client(transport=RetryDroppedTransport(), timeout=10) as client:
        answer = client.patch(f"{server.url}/api/tasks/7/", json={"data": {"feedback": "accepted"}})
    assert answer.status_code == 200 and answer.json() == {"ok": 1}
    assert len(server.requests) == 2 and server.requests[0] == server.requests[1]  # the same request, whole
    assert server.requests[1].endswith(b'{"data":{"feedback":"accepted"}}')


def test_a_post_whose_connection_was_dropped_is_not_sent_again(server: ResettingServer) -> None:
    with httpx.Client(transport=RetryDroppedTransport(), timeout=10) as client:
        with pytest.raises((httpx.ReadError, httpx.RemoteProtocolError)):
            client.post(f"{server.url}/api/tasks/7/annotations/", json={"result": []})
    assert len(server.requests) == 1


def test_a_second_drop_is_an_error_not_a_loop() -> None:
    twice = ResettingServer(resets=2)
    twice.thread.start()
    try:
        with httpx.Client(transport=RetryDroppedTransport(), timeout=10) as client:
            with pytest.raises((httpx.ReadError, httpx.RemoteProtocolError)):
                client.get(f"{twice.url}/api/projects/1/")
        assert len(twice.requests) == 2
    finally:
        twice.sock.close()
