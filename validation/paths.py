"""JSONPath-like locations (`$.entities[0].name`) and message lengths shared by every check, so failures
read the same whichever check reports them."""

from __future__ import annotations

import json
from collections.abc import Iterable

MAX_MESSAGE = 300  # messages quote offending values; a 1 MB string must not land in every report


def shorten(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 3] + "..."


def child(path: str, key: str) -> str:
    """`$.name` for identifier-like keys (unicode letters included), `$["a key"]` otherwise."""
    if key.isidentifier():
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key, ensure_ascii=False)}]"


def index(path: str, position: int) -> str:
    return f"{path}[{position}]"


def join(parts: Iterable[str | int], root: str = "$") -> str:
    """Path from a sequence of keys and indexes (jsonschema's `absolute_path`, pydantic's `loc`)."""
    path = root
    for part in parts:
        path = index(path, part) if isinstance(part, int) else child(path, str(part))
    return path
