"""SOB's leaf paths and its path-by-path reading of a schema (type safety, required keys).

As SOB's evaluator does it: keys are joined with `.` and array items get `[i]`; an empty object or
array has no leaf, nor has a scalar root; a later path of the same spelling replaces an earlier
one. The schema is followed by path only: a key needs `"type": "object"` and `properties`, an index
needs `"type": "array"` and a schema under `items`; `$ref`, `anyOf`, `allOf` and lists of types
(other than one type plus null) are not followed, so they type nothing. Where SOB's code would stop
with an exception (a list-form `items` followed by a key, an index that is not a number, a list of
types), the path has no type here.
"""

from __future__ import annotations

import re
from typing import Any

from validation.schema_nav import json_type  # one spelling of a JSON value's type for the toolkit and SOB

_INDEX = re.compile(r"\[\d+\]")
JSON_TYPES = frozenset({"string", "integer", "number", "boolean", "object", "array", "null"})


def flatten(value: Any) -> dict[str, Any]:
    """path -> leaf value, in document order (without recursion: any depth)."""
    leaves: dict[str, Any] = {}
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        prefix, node = stack.pop()
        if isinstance(node, dict):
            children = [(f"{prefix}.{key}" if prefix else key, child) for key, child in node.items()]
        elif isinstance(node, list):
            children = [(f"{prefix}[{index}]", child) for index, child in enumerate(node)]
        else:
            if prefix:
                leaves[prefix] = node
            continue
        stack.extend(reversed(children))
    return leaves


def present_paths(value: Any) -> set[str]:
    """Every path present in the value (containers too), indices written `[]`."""
    found: set[str] = set()
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        prefix, node = stack.pop()
        if prefix:
            found.add(_INDEX.sub("[]", prefix))
        if isinstance(node, dict):
            stack.extend((f"{prefix}.{key}" if prefix else key, child) for key, child in node.items())
        elif isinstance(node, list):
            stack.extend((f"{prefix}[{index}]", child) for index, child in enumerate(node))
    return found


def split_path(path: str) -> list[str | int] | None:
    """`a.b[0].c` -> ["a", "b", 0, "c"]; None where SOB's parser would fail (`[x]`, an open `[`)."""
    parts: list[str | int] = []
    token = ""
    i = 0
    while i < len(path):
        char = path[i]
        if char == ".":
            if token:
                parts.append(token)
                token = ""
            i += 1
        elif char == "[":
            if token:
                parts.append(token)
                token = ""
            end = path.find("]", i)
            if end < 0:
                return None
            try:
                parts.append(int(path[i + 1 : end]))
            except ValueError:
                return None
            i = end + 1
        else:
            token += char
            i += 1
    if token:
        parts.append(token)
    return parts


def normalize_type(declared: Any) -> str | None:
    if isinstance(declared, list):
        non_null = [t for t in declared if t != "null"]
        if len(non_null) != 1:
            return None
        declared = non_null[0]
    return declared if isinstance(declared, str) and declared in JSON_TYPES else None


def type_at(schema: Any, path: str) -> str | None:
    """The JSON type the schema declares at a leaf path, read as SOB reads it; None if none."""
    parts = split_path(path)
    if parts is None or not isinstance(schema, dict):
        return None
    node: Any = schema
    for part in parts:
        if not isinstance(node, dict):
            return None
        if isinstance(part, str):
            properties = node.get("properties", {})
            if node.get("type") != "object" or not isinstance(properties, dict):
                return None
            node = properties.get(part)
        else:
            if node.get("type") != "array":
                return None
            node = node.get("items")
        if node is None:
            return None
    return normalize_type(node.get("type")) if isinstance(node, dict) else None


def type_matches(value: Any, expected: str) -> bool:
    actual = json_type(value)
    return actual == expected or (expected == "number" and actual == "integer")


def required_paths(schema: Any, prefix: str = "") -> list[str]:
    """Paths the schema requires, indices written `[]`: a key, then what it requires below (depth
    first, as SOB lists them). Recursive: a schema nested past Python's limit raises RecursionError."""
    if not isinstance(schema, dict):
        return []
    found: list[str] = []
    kind = schema.get("type")
    if kind == "object":
        properties = schema.get("properties", {})
        required = schema.get("required", [])
        for key in required if isinstance(required, list) else []:
            child = properties.get(key, {}) if isinstance(properties, dict) else {}
            path = f"{prefix}.{key}" if prefix else str(key)
            found.append(path)
            found.extend(required_paths(child, path))
    elif kind == "array":
        found.extend(required_paths(schema.get("items", {}), f"{prefix}[]" if prefix else "[]"))
    return found
