"""What the schema says about each leaf of a ground truth: its field's key, description and types, read into a
`readings.FieldHint` (the unit a number is in, money, a count, a time of day). Checks that tie a value to its
field read these; a leaf the schema does not describe gets a hint from its key alone.

Hints are worked out once per distinct schema, by walking the schema (not the data), and keyed by the leaf's
path with its array positions left out (`$.people[].born`): records that share a schema share the walk.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from functools import lru_cache
from typing import Any

from validation.readings.fields import FieldHint, field_hint
from validation.schema_nav import branches, item_schema, merge_all_of, resolve, types_of

MAX_NODES = 2_000  # schema nodes walked for hints; a larger schema gets hints for what was reached
CACHE_SIZE = 1024
_INDEX = re.compile(r"\[\d+\]")
_cache: OrderedDict[str, dict[str, FieldHint]] = OrderedDict()


def schema_hints(schema: Any, key: str | None = None) -> dict[str, FieldHint]:
    """`FieldHint` by path pattern (`$.a[].b`) for every property the schema declares."""
    if key is not None and key in _cache:
        _cache.move_to_end(key)
        return _cache[key]
    hints = _walk(schema)
    if key is not None:
        _cache[key] = hints
        if len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return hints


def _walk(schema: Any) -> dict[str, FieldHint]:
    hints: dict[str, FieldHint] = {}
    if not isinstance(schema, dict):
        return hints
    stack: list[tuple[str, Any, str, str]] = [("$", schema, "", "")]
    budget = MAX_NODES
    while stack and budget > 0:
        budget -= 1
        path, node, name, inherited = stack.pop()
        node = resolve(node, schema)
        if not isinstance(node, dict):
            continue
        if isinstance(node.get("allOf"), list):
            node = merge_all_of(node, schema)
        description = node.get("description") if isinstance(node.get("description"), str) else ""
        alternatives = branches(node)
        if alternatives is not None:
            for branch in reversed(alternatives):  # the first branch's hint wins
                stack.append((path, branch, name, description or inherited))
            continue
        properties = node.get("properties")
        if isinstance(properties, dict):
            for child, sub in properties.items():
                stack.append((f"{path}.{child}", sub, str(child), ""))
        items = item_schema(node, 0)
        if items is not None:
            stack.append((f"{path}[]", items, name, description or inherited))
        if path not in hints or not hints[path].description:
            hints[path] = field_hint(name, description or inherited, frozenset(types_of(node)))
    return hints


def field_hints(ground_truth: Any, schema: Any, key: str | None = None) -> dict[str, FieldHint]:
    """The schema's hints, keyed by path pattern; `hint_for` reads a leaf's."""
    return schema_hints(schema, key)


def hint_for(hints: dict[str, FieldHint] | None, path: str, key: str | None) -> FieldHint:
    if hints:
        found = hints.get(_pattern_of(path) if "[" in path else path)
        if found is not None:
            return found
    return field_hint(key or "")


@lru_cache(maxsize=8192)
def _pattern_of(path: str) -> str:
    """`$.items[3].name` -> `$.items[].name`: the key of its hint (asked a dozen times per leaf)."""
    return _INDEX.sub("[]", path)
