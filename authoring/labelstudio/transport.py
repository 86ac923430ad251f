"""The HTTP transport of the toolkit's Label Studio session: one more try for a request the server dropped unread.

A server closes a kept-alive connection after a few idle seconds (gunicorn: 2 s by default). A request sent on it
in that moment is reset without an answer: `httpx` raises ReadError or RemoteProtocolError, and `--serve` stopped
on it ("did not answer while writing feedback into task 10", 4.5 minutes into a 10-curator run). Requests that are
safe to send twice are sent once more on a fresh connection; a POST (an import, an annotation) is not, and its
error reaches the curator as before. Every PATCH and PUT the toolkit makes sets fields to values, so a repeat
leaves the task or project as one would.
"""

from __future__ import annotations

import httpx

REPEATABLE = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "PATCH", "DELETE"})
DROPPED = (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError)  # not timeouts: those already waited


class RetryDroppedTransport(httpx.HTTPTransport):
    """`httpx.HTTPTransport` that sends a repeatable request once more when its connection was dropped."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return super().handle_request(request)
        except DROPPED:
            if request.method not in REPEATABLE:
                raise
        return super().handle_request(request)  # the pool drops the dead connection: this one is new
