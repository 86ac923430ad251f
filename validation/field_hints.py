"""What the schema says about each leaf of a ground truth: its field's key, description and types, read into a
`readings.FieldHint` (the unit a number is in, money, a count, a time of day). Checks that tie a value to its
field read these; a leaf the schema does not describe gets a hint from its key alone."""

from __future__ import annotations

from typing import Any

from validation import paths
from validation.readings import FieldHint, field_hint
from validation.schema_nav import item_schema, property_schema, select, types_of

MAX_LEAVES = 10_000  # a ground truth larger than this gets hints for its first leaves only


def field_hints(ground_truth: Any, schema: Any) -> dict[str, FieldHint]:
    """`FieldHint` by JSON path for every scalar leaf (and empty list) of the ground truth."""
    hints: dict[str, FieldHint] = {}
    root = schema if isinstance(schema, dict) else {}
    stack: list[tuple[str, Any, Any, str, str]] = [("$", ground_truth, root, "", "")]
    while stack and len(hints) < MAX_LEAVES:
        path, value, node, key, inherited = stack.pop()
        resolved = select(node, value, root) if isinstance(node, dict) and value is not None else None
        if resolved is None and isinstance(node, dict):
            resolved = node
        description = ""
        if isinstance(resolved, dict) and isinstance(resolved.get("description"), str):
            description = resolved["description"]
        if isinstance(value, dict):
            for name, child in value.items():
                declared, sub = property_schema(resolved, str(name)) if isinstance(resolved, dict) else (False, None)
                stack.append((paths.child(path, str(name)), child, sub if declared else None, str(name), ""))
        elif isinstance(value, list) and value:
            for position, child in enumerate(value):
                sub = item_schema(resolved, position) if isinstance(resolved, dict) else None
                stack.append((paths.index(path, position), child, sub, key, description or inherited))
        else:
            types = types_of(resolved) if isinstance(resolved, dict) else frozenset()
            hints[path] = field_hint(key, description or inherited, frozenset(types))
    return hints


def hint_for(hints: dict[str, FieldHint] | None, path: str, key: str | None) -> FieldHint:
    if hints and path in hints:
        return hints[path]
    return field_hint(key or "")
