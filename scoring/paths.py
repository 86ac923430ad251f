"""Leaf paths of a JSON value with concrete array indices: `a.b[0].c`.

SOB flattens answers this way and scores leaf by leaf, so arrays are compared by index. Two
choices differ from SOB's evaluator, both so that a ground truth scored against itself gives 1.0:
an empty object or array is a leaf of its own (SOB drops it, leaving a record with no paths), and a
key that is not a plain name is quoted (`a["b.c"]`), so a key holding a dot cannot collide with a
nested path.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_\- ]*$")


def child_path(prefix: str, key: str) -> str:
    if _PLAIN_KEY.match(key):
        return f"{prefix}.{key}" if prefix else key
    return f"{prefix}[{json.dumps(key, ensure_ascii=False)}]"


def iter_leaves(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(path, leaf value) in document order. A scalar root is the leaf `$`."""
    if isinstance(value, dict) and value:
        for key, child in value.items():
            yield from iter_leaves(child, child_path(prefix, str(key)))
    elif isinstance(value, list) and value:
        for index, child in enumerate(value):
            yield from iter_leaves(child, f"{prefix}[{index}]")
    else:
        yield (prefix or "$"), value


def flatten(value: Any) -> dict[str, Any]:
    """path -> leaf value."""
    return dict(iter_leaves(value))
