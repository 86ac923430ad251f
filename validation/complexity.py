"""How complex a schema is: a level for the release (easy / medium / hard) and the counts behind it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.limits import MAX_SCHEMA_NESTING
from core.verdicts import ComplexityInfo
from validation.cache import BoundedCache, schema_key
from validation.schema_nav import branches, is_array_schema, is_null_only, merge_all_of, resolve

_cache: BoundedCache[ComplexityInfo] = BoundedCache(65536)
MAX_NODES = 20_000


@dataclass
class _Shape:
    depth: int = 0  # containers on the longest path below and including this node
    properties: int = 0
    required: int = 0
    leaves: int = 0
    array_of_objects: bool = False
    is_object: bool = False  # an object with properties (what makes an array "of objects")

    def add(self, other: _Shape) -> None:
        self.depth = max(self.depth, other.depth)
        self.properties += other.properties
        self.required += other.required
        self.leaves += other.leaves
        self.array_of_objects = self.array_of_objects or other.array_of_objects
        self.is_object = self.is_object or other.is_object


def assess_complexity(schema: dict[str, Any], *, key: str | None = None) -> ComplexityInfo:
    """Level and counts of a schema.

    Depth counts the containers (objects with properties, and arrays) on the longest path from the
    top-level object to a scalar leaf: a flat object of scalars has depth 1; an object holding a nested
    object of scalars, or an array of scalars, has depth 2; an object holding an array of objects of
    scalars has depth 3. An object without declared properties counts as a leaf.

    * easy: depth 1 (a flat object);
    * medium: depth 2 (nested objects or arrays of scalars);
    * hard: any array of objects, or depth 3 or more.

    Local `$ref`s are followed (a recursive one stops where it repeats); of a nullable union only the
    non-null branch counts; other unions count every branch.
    """
    key = key or schema_key(schema)
    cached = _cache.get(key)
    if cached is None:
        cached = _cache.put(key, _assess(schema))
    return cached.model_copy()


def _assess(schema: dict[str, Any]) -> ComplexityInfo:
    shape = _measure(schema, schema, (), 0, [MAX_NODES])
    root = resolve(schema, schema)
    top = root.get("properties") if isinstance(root, dict) else None
    if shape.array_of_objects or shape.depth >= 3:
        level = "hard"
    elif shape.depth == 2:
        level = "medium"
    else:
        level = "easy"
    return ComplexityInfo(
        level=level,
        properties=shape.properties,
        top_level_properties=len(top) if isinstance(top, dict) else 0,
        required=shape.required,
        leaves=shape.leaves,
        depth=shape.depth,
    )


def _measure(node: Any, root: Any, refs: tuple[str, ...], nesting: int, budget: list[int]) -> _Shape:
    """Recursive, but bounded: by nesting, by repeated refs, and by a node budget (refs to refs can
    otherwise expand a small hostile schema exponentially)."""
    budget[0] -= 1
    if budget[0] < 0:
        return _Shape(leaves=1)
    if isinstance(node, dict) and isinstance(node.get("$ref"), str):
        if node["$ref"] in refs:
            return _Shape(leaves=1)  # recursive schema: count the repeat once, as a leaf
        refs = (*refs, node["$ref"])
    node = resolve(node, root)
    if not isinstance(node, dict) or nesting > MAX_SCHEMA_NESTING:
        return _Shape(leaves=1)
    if isinstance(node.get("allOf"), list):
        node = merge_all_of(node, root)
    alternatives = branches(node)
    if alternatives is not None:
        shape = _Shape()
        for branch in alternatives:
            if not is_null_only(resolve(branch, root)):
                shape.add(_measure(branch, root, refs, nesting + 1, budget))
        return shape if shape.leaves or shape.properties else _Shape(leaves=1)
    properties = node.get("properties")
    if isinstance(properties, dict) and properties:
        shape = _Shape(is_object=True)
        for sub in properties.values():
            shape.add(_measure(sub, root, refs, nesting + 1, budget))
        shape.is_object = True
        shape.depth += 1
        shape.properties += len(properties)
        required = node.get("required")
        shape.required += len([r for r in required if isinstance(r, str)]) if isinstance(required, list) else 0
        return shape
    if is_array_schema(node):
        items = node.get("items")
        members = [*node.get("prefixItems", [])] if isinstance(node.get("prefixItems"), list) else []
        members += items if isinstance(items, list) else [items] if items is not None else []
        shape = _Shape()
        for member in members:
            inner = _measure(member, root, refs, nesting + 1, budget)
            shape.array_of_objects = shape.array_of_objects or inner.is_object
            inner.is_object = False
            shape.add(inner)
        if not members:
            shape.leaves = 1  # an array of anything: its items are one undeclared leaf
        shape.depth += 1
        return shape
    return _Shape(leaves=1)
