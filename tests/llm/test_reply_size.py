"""A reply body is read up to its limit, whether or not the server says how long it is."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from core.llm.reply_size import ReplyTooLarge, event_hooks, too_large


def client(body: Iterator[bytes] | bytes, limit: int) -> httpx.Client:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body)

    return httpx.Client(transport=httpx.MockTransport(answer), event_hooks=event_hooks(limit))


def test_a_body_said_to_be_too_long_is_not_read() -> None:
    with pytest.raises(ReplyTooLarge, match="2,000 bytes"):
        client(b"x" * 2000, limit=1000).get("http://llm.test/")


def test_a_streamed_body_stops_being_read_at_the_limit() -> None:
    sent: list[int] = []

    def chunks() -> Iterator[bytes]:  # no Content-Length: the server streams
        for n in range(1000):
            sent.append(n)
            yield b"x" * 100

    with pytest.raises(ReplyTooLarge) as caught:
        client(chunks(), limit=1000).get("http://llm.test/")
    assert len(sent) <= 12  # stopped just past 1,000 bytes, not after 100,000
    assert too_large(RuntimeError("wrapped")) is None
    try:
        raise RuntimeError("an SDK's own error") from caught.value
    except RuntimeError as wrapped:
        assert too_large(wrapped) is caught.value


def test_a_body_within_the_limit_is_read_whole() -> None:
    assert client(b'{"ok": true}', limit=1000).get("http://llm.test/").json() == {"ok": True}
