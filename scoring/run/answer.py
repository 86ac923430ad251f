"""The reply model of an inference call, in a module of its own: a worker process unpickles every request
with it, and importing the runner there would cost the first call most of a second."""

from __future__ import annotations

from typing import Any

from pydantic import RootModel


class RecordAnswer(RootModel[Any]):
    """Any JSON value: the reply is the answer under test. The record's own schema goes with the request
    (`LLMRequest.response_schema`): it is what the backends send with structured decoding and what the
    cache key holds."""
