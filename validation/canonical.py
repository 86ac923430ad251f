"""The validated output: the ground truth with object keys in the order the schema declares them,
recursively, values unchanged. One spelling per answer keeps releases and diffs stable."""

from __future__ import annotations

from typing import Any

from validation.schema_nav import is_array_schema, item_schema, property_schema, select


def canonical_ground_truth(ground_truth: Any, schema: dict[str, Any]) -> Any:
    """A reordered copy (the input is not modified). Keys the schema does not list by name (maps
    declared by `additionalProperties`/`patternProperties`) follow the declared ones, in their order."""
    return _reorder(schema, ground_truth, schema)


def _reorder(node: Any, value: Any, root: dict[str, Any]) -> Any:
    # Recursive: only called on ground truth that passed validation, hence within the nesting limit.
    if not isinstance(value, dict | list):
        return value
    described = select(node, value, root)
    if isinstance(value, list):
        array = described if is_array_schema(described) else None
        return [_reorder(item_schema(array, i) if array else None, item, root) for i, item in enumerate(value)]
    described = described if isinstance(described, dict) else {}
    properties = described.get("properties")
    declared = [name for name in properties if name in value] if isinstance(properties, dict) else []
    listed = set(declared)
    order = declared + [name for name in value if name not in listed]
    return {name: _reorder(property_schema(described, name)[1], value[name], root) for name in order}
