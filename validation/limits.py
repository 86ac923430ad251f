"""Nesting limits, checked first and without recursion, so hostile input cannot blow the stack of
the recursive checks (jsonschema's validators, canonical JSON hashing) that run afterwards."""

from __future__ import annotations

from typing import Any

from core.verdicts import ValidationFailure

# Containers (dicts and lists) on the longest path. A schema spends about two containers per data level
# (`properties` plus the property's schema), so its limit is a little over twice the data's.
MAX_GROUND_TRUTH_NESTING = 32
MAX_SCHEMA_NESTING = 80


def nesting_depth(value: Any, limit: int) -> int:
    """Containers on the longest path (a scalar is 0, `{}` is 1), counting no further than limit + 1."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, dict | list):
            continue
        deepest = max(deepest, depth)
        if depth > limit:
            return depth  # enough to know the limit is exceeded; also stops on cyclic structures
        children = node.values() if isinstance(node, dict) else node
        stack.extend((item, depth + 1) for item in children if isinstance(item, dict | list))
    return deepest


def check_nesting(schema: Any, ground_truth: Any) -> list[ValidationFailure]:
    failures = []
    if nesting_depth(schema, MAX_SCHEMA_NESTING) > MAX_SCHEMA_NESTING:
        failures.append(
            ValidationFailure(
                check="json_schema",
                code="schema_too_deep",
                message=f"the schema nests more than {MAX_SCHEMA_NESTING} objects/arrays",
            )
        )
    if nesting_depth(ground_truth, MAX_GROUND_TRUTH_NESTING) > MAX_GROUND_TRUTH_NESTING:
        failures.append(
            ValidationFailure(
                check="ground_truth",
                code="ground_truth_too_deep",
                message=f"the ground truth nests more than {MAX_GROUND_TRUTH_NESTING} objects/arrays",
            )
        )
    return failures
