"""Schema-to-data alignment, the SOB rules a valid schema and valid data can still break.

Two walks, both iterative (no recursion limit to hit) and reporting every failure:

* the schema alone (cached per schema): every leaf has a `type`, arrays declare `items`, `required`
  lists every property of each object (as SOB does), and the top level has at least three properties;
* schema and ground truth together, at every depth and through arrays: every declared property is
  present (`missing_property`), every key is declared (`undeclared_key`), no empty arrays or objects.

Missing and null are different states (ExtractBench): a declared property whose value is null is
present. Nullable unions (`{"type": ["string", "null"]}`, `anyOf: [{...}, {"type": "null"}]`) are walked
through their non-null branch.
"""

from __future__ import annotations

from typing import Any

from core.limits import (
    MAX_GROUND_TRUTH_CONTAINERS,
    MAX_GROUND_TRUTH_NESTING,
    MAX_SCHEMA_CONTAINERS,
    MAX_SCHEMA_NESTING,
)
from core.verdicts import ValidationFailure
from validation import paths
from validation.cache import FailureCache, schema_key
from validation.schema_nav import (
    is_array_schema,
    is_object_schema,
    item_schema,
    property_schema,
    resolve,
    select,
)

CHECK = "alignment"
MIN_TOP_LEVEL_PROPERTIES = 3

_COMBINATORS = ("anyOf", "oneOf", "allOf")
_structure_cache = FailureCache()


def _fail(code: str, message: str, path: str) -> ValidationFailure:
    return ValidationFailure(check=CHECK, code=code, message=message, path=path)


def check_alignment(schema: dict[str, Any], ground_truth: Any, *, key: str | None = None) -> list[ValidationFailure]:
    """Schema structure failures (schema paths) then data alignment failures (ground-truth paths)."""
    return check_schema_structure(schema, key=key) + check_data_alignment(schema, ground_truth)


def check_schema_structure(schema: dict[str, Any], *, key: str | None = None) -> list[ValidationFailure]:
    return _structure_cache.failures(key or schema_key(schema), lambda: _structure_failures(schema))


def _structure_failures(schema: dict[str, Any]) -> list[ValidationFailure]:
    failures: list[ValidationFailure] = []
    root = resolve(schema, schema)
    top = root.get("properties") if isinstance(root, dict) else None
    count = len(top) if isinstance(top, dict) else 0
    if count < MIN_TOP_LEVEL_PROPERTIES:
        failures.append(
            _fail(
                "too_few_properties",
                f"the top level declares {count} propert{'y' if count == 1 else 'ies'}; "
                f"at least {MIN_TOP_LEVEL_PROPERTIES} are needed",
                "$.properties",
            )
        )
    stack: list[tuple[Any, str, int]] = [(schema, "$", 0)]
    budget = MAX_SCHEMA_CONTAINERS  # ends even on a schema built in Python that contains itself
    while stack and budget > 0:
        budget -= 1
        node, path, depth = stack.pop()
        if depth > MAX_SCHEMA_NESTING:
            continue
        children: list[tuple[Any, str]] = []
        if node is True:
            failures.append(_fail("leaf_without_type", "`true` accepts any value: declare a type", path))
        if not isinstance(node, dict):
            continue
        for keyword in ("$defs", "definitions"):
            if isinstance(node.get(keyword), dict):
                base = paths.child(path, keyword)
                children.extend((sub, paths.child(base, name)) for name, sub in node[keyword].items())
        combined = False
        for keyword in _COMBINATORS:
            if isinstance(node.get(keyword), list):
                combined = True
                base = paths.child(path, keyword)
                children.extend((sub, paths.index(base, i)) for i, sub in enumerate(node[keyword]))
        properties = node.get("properties")
        if "$ref" in node:
            pass  # a reference is typed by its target, which is checked where it is defined
        elif isinstance(properties, dict) and properties:
            failures.extend(_required_failures(node, properties, path))
            base = paths.child(path, "properties")
            children.extend((sub, paths.child(base, name)) for name, sub in properties.items())
        elif is_array_schema(node):
            if "items" not in node and "prefixItems" not in node:
                failures.append(_fail("array_without_items", "an array schema must declare `items`", path))
            items = node.get("items")
            if isinstance(items, list):  # Draft 7 tuple form
                children.extend((sub, paths.index(paths.child(path, "items"), i)) for i, sub in enumerate(items))
            elif "items" in node:
                children.append((items, paths.child(path, "items")))
            if isinstance(node.get("prefixItems"), list):
                base = paths.child(path, "prefixItems")
                children.extend((sub, paths.index(base, i)) for i, sub in enumerate(node["prefixItems"]))
        elif "type" not in node and not combined:
            failures.append(_fail("leaf_without_type", "a leaf schema must declare a `type`", path))
        if isinstance(node.get("additionalProperties"), dict):  # a map's values are data too
            children.append((node["additionalProperties"], paths.child(path, "additionalProperties")))
        if isinstance(node.get("patternProperties"), dict):
            base = paths.child(path, "patternProperties")
            children.extend((sub, paths.child(base, name)) for name, sub in node["patternProperties"].items())
        stack.extend((sub, where, depth + 1) for sub, where in reversed(children))
    return failures


def _required_failures(node: dict[str, Any], properties: dict[str, Any], path: str) -> list[ValidationFailure]:
    required = node.get("required")
    listed = {name for name in required if isinstance(name, str)} if isinstance(required, list) else set()
    base = paths.child(path, "properties")
    return [
        _fail("required_incomplete", f"property {name!r} is not listed in `required`", paths.child(base, name))
        for name in properties
        if name not in listed
    ]


def check_data_alignment(schema: dict[str, Any], ground_truth: Any) -> list[ValidationFailure]:
    failures: list[ValidationFailure] = []
    stack: list[tuple[Any, Any, str, int]] = [(schema, ground_truth, "$", 0)]
    budget = MAX_GROUND_TRUTH_CONTAINERS * 4  # containers and scalars: ends on any input
    while stack and budget > 0:
        budget -= 1
        node, value, path, depth = stack.pop()
        if depth > MAX_GROUND_TRUTH_NESTING:
            continue
        if isinstance(value, dict) and not value:
            failures.append(_fail("empty_object", "empty objects are not allowed in the ground truth", path))
        elif isinstance(value, list) and not value:
            failures.append(_fail("empty_array", "empty arrays are not allowed in the ground truth", path))
        if not isinstance(value, dict | list):
            continue  # scalars and null: nothing beneath
        # Without a schema here (undeclared key, type mismatch, untyped leaf) the walk goes on, schema-less,
        # so empty arrays and objects are found anywhere in the ground truth.
        described = select(node, value, schema) if node is not None else None
        children: list[tuple[Any, Any, str]] = []
        if isinstance(value, dict) and is_object_schema(described):
            assert described is not None
            properties = described.get("properties")
            if isinstance(properties, dict):
                failures.extend(
                    _fail("missing_property", f"declared property {name!r} is missing", paths.child(path, name))
                    for name in properties
                    if name not in value
                )
            for name, sub in value.items():
                declared, sub_schema = property_schema(described, name)
                where = paths.child(path, name)
                if not declared:
                    failures.append(_fail("undeclared_key", f"key {name!r} is not declared by the schema", where))
                children.append((sub_schema if declared else None, sub, where))
        elif isinstance(value, list) and is_array_schema(described):
            assert described is not None
            children.extend((item_schema(described, i), sub, paths.index(path, i)) for i, sub in enumerate(value))
        elif isinstance(value, dict):
            children.extend((None, sub, paths.child(path, name)) for name, sub in value.items())
        else:
            children.extend((None, sub, paths.index(path, i)) for i, sub in enumerate(value))
        stack.extend((sub_schema, sub, where, depth + 1) for sub_schema, sub, where in reversed(children))
    return failures
