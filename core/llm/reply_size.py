"""A provider's reply is read up to a size limit, never whole.

The SDKs read a reply's body into memory before anything looks at it: a server (or a proxy) that sends
20 MB instead of a JSON verdict costs 20 MB per request, times the requests in flight. An httpx response
hook refuses a body whose Content-Length is over the limit before reading it, and wraps the stream of the
others so that reading stops as soon as it passes the limit.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

MAX_REPLY_BYTES = 4 * 1024 * 1024  # a judge verdict is a few kB, a draft tens of kB


class ReplyTooLarge(Exception):
    def __init__(self, size: int | None, limit: int) -> None:
        told = f"{size:,} bytes" if size is not None else "more than that"
        super().__init__(f"the reply body is {told}; at most {limit:,} bytes are read")


def event_hooks(limit: int = MAX_REPLY_BYTES) -> dict[str, list[Callable[[Any], None]]]:
    """`event_hooks` for an httpx (or httpx2) client that caps every response body at `limit` bytes."""

    def cap(response: Any) -> None:
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > limit:
            response.close()
            raise ReplyTooLarge(int(length), limit)
        response.stream = _capped_class(type(response).__module__.split(".")[0])(response.stream, limit)

    return {"response": [cap]}


def too_large(exc: BaseException) -> ReplyTooLarge | None:
    """The ReplyTooLarge behind an SDK's exception (SDKs wrap what a transport hook raises), or None."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return None
        if isinstance(seen, ReplyTooLarge):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


@cache
def _capped_class(module_name: str) -> type:
    """A SyncByteStream of the response's own httpx module (httpx checks the stream's type)."""
    base = sys.modules[module_name].SyncByteStream

    class Capped(base):  # type: ignore[misc, valid-type]
        def __init__(self, inner: Any, limit: int) -> None:
            self.inner, self.limit = inner, limit

        def __iter__(self) -> Iterator[bytes]:
            read = 0
            for chunk in self.inner:
                read += len(chunk)
                if read > self.limit:
                    raise ReplyTooLarge(None, self.limit)
                yield chunk

        def close(self) -> None:
            self.inner.close()

    return Capped
