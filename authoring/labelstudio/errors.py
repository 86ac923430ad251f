"""The errors of talking to Label Studio (kept apart so that every module of the package can raise them)."""

from __future__ import annotations


class LabelStudioError(RuntimeError):
    """Label Studio refused a request, or is misconfigured; the message says what to do."""

    def __init__(self, message: str, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


class LabelStudioUnavailable(LabelStudioError):
    """Label Studio did not answer (not running, killed, network)."""
