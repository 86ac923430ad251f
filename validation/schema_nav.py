"""Finding the subschema that describes a value: local `$ref`s, nullable unions (`anyOf`/`oneOf` of a
type and null) and `allOf`. Shared by alignment, complexity and canonical ordering so they agree."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from validation import regex_limit

MAX_HOPS = 16  # refs and unions followed for one value: stops `$ref` cycles that consume no data

Schema = dict[str, Any]


def resolve(node: Any, root: Any) -> Any:
    """Follow local `$ref`s (`#/$defs/x`). Keywords beside the `$ref` apply too (2020-12), so they are
    merged over the target. Remote or broken refs give None: there is nothing to walk."""
    for _ in range(MAX_HOPS):
        if not isinstance(node, dict) or not isinstance(node.get("$ref"), str):
            return node
        target = _pointer(root, node["$ref"])
        if not isinstance(target, dict):
            return target if isinstance(target, bool) else None
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        node = {**target, **siblings} if siblings else target
    return None


def _pointer(root: Any, ref: str) -> Any:
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None
    node = root
    for raw in ref[2:].split("/"):
        part = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def types_of(node: Any) -> frozenset[str]:
    if not isinstance(node, dict):
        return frozenset()
    declared = node.get("type")
    if isinstance(declared, str):
        return frozenset((declared,))
    if isinstance(declared, list):
        return frozenset(t for t in declared if isinstance(t, str))
    return frozenset()


def is_null_only(node: Any) -> bool:
    """`{"type": "null"}` and friends: the null branch of a nullable union."""
    if not isinstance(node, dict):
        return False
    return types_of(node) == {"null"} or ("const" in node and node["const"] is None) or node.get("enum") == [None]


def branches(node: Any) -> list[Any] | None:
    """The alternatives of an `anyOf`/`oneOf` node that has no structure of its own, else None."""
    if not isinstance(node, dict) or "properties" in node or "items" in node:
        return None
    for keyword in ("anyOf", "oneOf"):
        if isinstance(node.get(keyword), list):
            return node[keyword]
    return None


def is_object_schema(node: Any) -> bool:
    return isinstance(node, dict) and ("properties" in node or "object" in types_of(node))


def is_array_schema(node: Any) -> bool:
    return isinstance(node, dict) and ("array" in types_of(node) or "items" in node or "prefixItems" in node)


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "unknown"


def accepts(node: Any, value: Any) -> bool:
    """Could this (resolved) schema describe the value, judging by type alone?"""
    declared = types_of(node)
    if not declared:
        if is_object_schema(node):
            declared = frozenset(("object",))
        elif is_array_schema(node):
            declared = frozenset(("array",))
        else:
            return True  # untyped: anything
    kind = json_type(value)
    return kind in declared or (kind == "integer" and "number" in declared)


def merge_all_of(node: Schema, root: Any) -> Schema:
    """Fold `allOf` branches into one node: properties and required are unioned, other keywords kept
    from the node first, then from the first branch that has them."""
    merged = {k: v for k, v in node.items() if k != "allOf"}
    properties = dict(merged.get("properties") or {})
    required = list(merged.get("required") or [])
    for branch in node["allOf"]:
        branch = resolve(branch, root)
        if not isinstance(branch, dict):
            continue
        if isinstance(branch.get("allOf"), list):
            branch = merge_all_of(branch, root)
        properties.update(branch.get("properties") or {})
        required.extend(r for r in branch.get("required") or [] if r not in required)
        for keyword, value in branch.items():
            if keyword not in ("properties", "required"):
                merged.setdefault(keyword, value)
    if properties:
        merged["properties"] = properties
    if required:
        merged["required"] = required
    return merged


def select(node: Any, value: Any, root: Any) -> Schema | None:
    """The schema that describes `value` here, or None (null value, broken ref, no matching branch)."""
    for _ in range(MAX_HOPS):
        node = resolve(node, root)
        if not isinstance(node, dict):
            return None
        if isinstance(node.get("allOf"), list):
            node = merge_all_of(node, root)
        alternatives = branches(node)
        if alternatives is None:
            return node
        node = _pick(alternatives, value, root)
    return None


def _pick(alternatives: list[Any], value: Any, root: Any) -> Any:
    if value is None:
        return None  # null is a present value; there is nothing beneath it to walk
    candidates = [b for b in (resolve(a, root) for a in alternatives) if isinstance(b, dict) and not is_null_only(b)]
    candidates = [b for b in candidates if accepts(b, value) or branches(b) is not None]
    if isinstance(value, dict) and len(candidates) > 1:
        # Several object branches: the one declaring most of the value's keys.
        return max(candidates, key=lambda b: len(value.keys() & (b.get("properties") or {}).keys()))
    return candidates[0] if candidates else None


def property_schema(node: Schema, name: str) -> tuple[bool, Any]:
    """(declared?, schema) for one key of an object value: `properties`, `patternProperties`, or an
    `additionalProperties` schema (a map's values are declared by it)."""
    properties = node.get("properties")
    if isinstance(properties, dict) and name in properties:
        return True, properties[name]
    patterns = node.get("patternProperties")
    if isinstance(patterns, dict):
        for pattern, schema in patterns.items():
            try:
                if regex_limit.search(pattern, name):
                    return True, schema
            except re.error:
                continue
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        return True, extra
    return False, None


def item_schema(node: Schema, position: int) -> Any:
    prefix = node.get("prefixItems")
    if isinstance(prefix, list) and position < len(prefix):
        return prefix[position]
    items = node.get("items")
    if isinstance(items, list):  # Draft 7 tuple form
        return items[position] if position < len(items) else node.get("additionalItems")
    return items
