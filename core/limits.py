"""Size limits, checked first, so hostile input cannot blow the stack of the recursive checks that run
afterwards (jsonschema's validators, canonical JSON hashing) or make any walk run for ever (a structure
built in Python, not parsed from JSON, may share its parts or even contain itself)."""

from __future__ import annotations

from typing import Any

from core.verdicts import ValidationFailure

# Containers (dicts and lists) on the longest path. A schema spends about two containers per data level
# (`properties` plus the property's schema), so its limit is a little over twice the data's.
MAX_GROUND_TRUTH_NESTING = 32
MAX_SCHEMA_NESTING = 80
# Containers in all: far above any real record (a schema of thousands of properties, a ground truth of
# a hundred thousand objects), low enough that no check runs for long.
MAX_GROUND_TRUTH_CONTAINERS = 200_000
MAX_SCHEMA_CONTAINERS = 20_000
# Any line or row from outside (an authored-records line, a HotpotQA or AMI row, a Label Studio editor) is
# held to these before anything is stored (core/boundary.py), so whatever is in the store can be
# parsed and serialised again: pydantic refuses JSON nested deeper than about 200 levels.
MAX_INPUT_NESTING = MAX_SCHEMA_NESTING + 2  # an authored line holds its schema one level down
MAX_INPUT_CONTAINERS = MAX_GROUND_TRUTH_CONTAINERS + MAX_SCHEMA_CONTAINERS
MAX_STRING_CHARS = 100_000  # any one string: an answer value, a question, a sentence of a context
MAX_LINE_BYTES = 8 * 1024 * 1024  # one JSONL line, or one item of a JSON list


def measure(value: Any, depth_limit: int, size_limit: int) -> tuple[int, int]:
    """(containers on the longest path, containers visited): a scalar is (0, 0), `{}` is (1, 1).
    Stops as soon as either limit is passed, so it is safe on any input (even one that contains itself).
    A loop over an explicit stack, not recursion: it runs on every input line and row, and a call per
    container was most of its cost; the stack never holds more than `size_limit` containers."""
    if not isinstance(value, _CONTAINERS):
        return 0, 0
    deepest = visited = 1
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, level = stack.pop()
        for child in node.values() if isinstance(node, dict) else node:
            if isinstance(child, _CONTAINERS):
                visited += 1
                deepest = max(deepest, level + 1)
                if deepest > depth_limit or visited > size_limit:
                    return deepest, visited
                stack.append((child, level + 1))
    return deepest, visited


_CONTAINERS = (dict, list)


def nesting_depth(value: Any, limit: int) -> int:
    """Containers on the longest path, counting no further than limit + 1."""
    return measure(value, limit, MAX_GROUND_TRUTH_CONTAINERS)[0]


def check_nesting(schema: Any, ground_truth: Any) -> list[ValidationFailure]:
    """Depth and size of both: run before anything else walks or hashes them."""
    return check_schema_nesting(schema) + check_ground_truth_nesting(ground_truth)


def check_schema_nesting(schema: Any) -> list[ValidationFailure]:
    size = measure(schema, MAX_SCHEMA_NESTING, MAX_SCHEMA_CONTAINERS)
    return _failures("json_schema", "schema", size, MAX_SCHEMA_NESTING, MAX_SCHEMA_CONTAINERS)


def check_ground_truth_nesting(ground_truth: Any) -> list[ValidationFailure]:
    size = measure(ground_truth, MAX_GROUND_TRUTH_NESTING, MAX_GROUND_TRUTH_CONTAINERS)
    return _failures("ground_truth", "ground_truth", size, MAX_GROUND_TRUTH_NESTING, MAX_GROUND_TRUTH_CONTAINERS)


def _failures(
    check: str, what: str, size: tuple[int, int], depth_limit: int, size_limit: int
) -> list[ValidationFailure]:
    depth, containers = size
    name = what.replace("_", " ")
    if depth > depth_limit:
        return [
            ValidationFailure(
                check=check, code=f"{what}_too_deep", message=f"the {name} nests more than {depth_limit} objects/arrays"
            )
        ]
    if containers > size_limit:
        return [
            ValidationFailure(
                check=check, code=f"{what}_too_large", message=f"the {name} has more than {size_limit} objects/arrays"
            )
        ]
    return []
