"""Is `json_schema` a valid JSON Schema, for Draft 2020-12 and for Draft 7 (the SOB evaluator's draft),
with an object at the top level?

Checking a schema against the 2020-12 metaschema with jsonschema takes milliseconds (its `$dynamicRef`s
are slow to resolve), which is too slow for tens of thousands of mostly distinct schemas. So the check is
decomposed: every subschema node is validated against a *shallow* copy of the official metaschema, where
each place the metaschema recurses into a subschema (`$dynamicRef: "#meta"`, Draft 7's `$ref: "#"`)
only asks for an object or boolean, and this module walks into those subschemas itself. The errors are
the official metaschema's, at the same paths (where the official check can only say that a whole
subschema matches no alternative, as for Draft 7's `items`, the error is reported inside it, at the
offending keyword); nodes that look alike (same keywords, annotation text aside) are checked once, and
whole schemas are cached by their canonical hash.
"""

from __future__ import annotations

import copy
import json
import reprlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from jsonschema import Draft7Validator, Draft202012Validator
from jsonschema.protocols import Validator
from jsonschema_specifications import REGISTRY as SPECIFICATIONS
from referencing import Registry, Resource

from core.limits import MAX_SCHEMA_CONTAINERS, MAX_SCHEMA_NESTING
from core.verdicts import ValidationFailure
from validation import paths
from validation.cache import BoundedCache, FailureCache, schema_key

CHECK = "json_schema"

# Where each draft's metaschema recurses into subschemas: a schema, an array of schemas, a map of them.
# (Draft 7's `items` may be a schema or an array of schemas; `dependencies` values a schema or names.)
_POSITIONS_2020_12 = (
    frozenset(
        {
            "items", "contains", "additionalProperties", "propertyNames", "if", "then", "else", "not",
            "unevaluatedItems", "unevaluatedProperties", "contentSchema",
        }
    ),
    frozenset({"prefixItems", "allOf", "anyOf", "oneOf"}),
    frozenset({"properties", "patternProperties", "dependentSchemas", "$defs", "definitions", "dependencies"}),
)  # fmt: skip
_POSITIONS_DRAFT7 = (
    frozenset(
        {"items", "additionalItems", "contains", "additionalProperties", "propertyNames", "if", "then", "else", "not"}
    ),
    frozenset({"items", "allOf", "anyOf", "oneOf"}),
    frozenset({"properties", "patternProperties", "definitions", "dependencies"}),
)

# Keywords whose value the metaschemas check only for its JSON type: in a node's cache key their value is
# replaced by a placeholder of the same type, so `{"type": "string", "description": ...}` is checked once.
_PLACEHOLDERS: dict[str, tuple[type, Any]] = {
    "title": (str, ""),
    "description": (str, ""),
    "$comment": (str, ""),
    "examples": (list, []),
    "enum": (list, []),
}
_ANY_VALUE = frozenset({"default", "const"})  # `true` in the metaschemas: any value is fine

_KEY_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"))  # one spelling per node shape
_SCHEMA_SHAPE = {"type": ["object", "boolean"]}
_BASE = "https://sob-validation.invalid/"  # our shallow metaschemas' ids: never fetched, never official


def _shallow(node: Any, is_recursion: Any) -> Any:
    """A copy of a metaschema where each recursion into a subschema only checks the value's shape."""
    if isinstance(node, dict):
        if is_recursion(node):
            return dict(_SCHEMA_SHAPE)
        return {key: _shallow(value, is_recursion) for key, value in node.items()}
    if isinstance(node, list):
        return [_shallow(value, is_recursion) for value in node]
    return node


def _shallow_2020_12() -> Validator:
    official = "https://json-schema.org/draft/2020-12/"
    resources = []
    root = None
    for name in ("schema", "meta/core", "meta/applicator", "meta/unevaluated", "meta/validation",
                 "meta/meta-data", "meta/format-annotation", "meta/content"):  # fmt: skip
        contents = _shallow(
            copy.deepcopy(SPECIFICATIONS.contents(official + name)), lambda n: n == {"$dynamicRef": "#meta"}
        )
        contents["$id"] = f"{_BASE}2020-12/{name}"
        resources.append((contents["$id"], Resource.from_contents(contents)))
        root = root or contents
    registry = Registry().with_resources(resources)
    return Draft202012Validator(root, registry=registry, format_checker=Draft202012Validator.FORMAT_CHECKER)


def _shallow_draft7() -> Validator:
    contents = _shallow(copy.deepcopy(Draft7Validator.META_SCHEMA), lambda n: n == {"$ref": "#"})
    contents["$id"] = f"{_BASE}draft-07/schema#"
    return Draft7Validator(contents, format_checker=Draft7Validator.FORMAT_CHECKER)


@dataclass
class _Dialect:
    code: str
    label: str
    positions: tuple[frozenset[str], frozenset[str], frozenset[str]]
    build: Callable[[], Validator]
    nodes: BoundedCache[tuple[tuple[tuple[str | int, ...], str], ...]] = field(
        default_factory=lambda: BoundedCache(65536)
    )

    @cached_property
    def validator(self) -> Validator:
        return self.build()  # built on first use: importing the package stays cheap

    def errors(self, schema: dict[str, Any]) -> list[ValidationFailure]:
        failures = []
        for where, node in _iter_nodes(schema, self.positions):
            shallow, renamed = _shallow_node(node, self.positions)
            for rel, text in self._node_errors(shallow):
                failures.append(
                    ValidationFailure(
                        check=CHECK,
                        code=self.code,
                        message=f"not a valid {self.label} schema: {text}",
                        path=paths.join(where + _restore_names(rel, renamed)),
                    )
                )
        return failures

    def _node_errors(self, shallow: dict[str, Any]) -> tuple[tuple[tuple[str | int, ...], str], ...]:
        try:
            key = _KEY_ENCODER.encode(shallow)
        except (TypeError, ValueError):
            key = None  # not JSON (a Python object slipped in): check it, just don't cache
        cached = self.nodes.get(key)
        if cached is not None:
            return cached
        found = tuple(
            (tuple(error.absolute_path), paths.shorten(f"{error.validator}: {error.message}"))
            for error in self.validator.iter_errors(shallow)
        )
        return self.nodes.put(key, found)


_DIALECTS = (
    _Dialect("schema_invalid_2020_12", "Draft 2020-12", _POSITIONS_2020_12, _shallow_2020_12),
    _Dialect("schema_invalid_draft7", "Draft 7", _POSITIONS_DRAFT7, _shallow_draft7),
)


def _iter_nodes(
    schema: dict[str, Any], positions: tuple[frozenset[str], frozenset[str], frozenset[str]]
) -> Iterator[tuple[tuple[str | int, ...], dict[str, Any]]]:
    """Every subschema that is an object, in document order, with its location. Bounded in depth and
    count, so even a schema built in Python that contains itself ends (`check_nesting` reports those)."""
    single, arrays, maps = positions
    stack: list[tuple[tuple[str | int, ...], dict[str, Any]]] = [((), schema)]
    budget = MAX_SCHEMA_CONTAINERS
    while stack and budget > 0:
        budget -= 1
        where, node = stack.pop()
        yield where, node
        if len(where) > MAX_SCHEMA_NESTING:
            continue
        children: list[tuple[tuple[str | int, ...], dict[str, Any]]] = []
        for keyword, value in node.items():
            if keyword in single and isinstance(value, dict):
                children.append(((*where, keyword), value))
            if keyword in arrays and isinstance(value, list):
                children.extend(((*where, keyword, i), v) for i, v in enumerate(value) if isinstance(v, dict))
            if keyword in maps and isinstance(value, dict):
                children.extend(((*where, keyword, k), v) for k, v in value.items() if isinstance(v, dict))
        stack.extend(reversed(children))


def _shallow_node(
    node: dict[str, Any], positions: tuple[frozenset[str], ...]
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The node as its shallow check sees it, plus the names it renamed.

    Subschemas become `{}` (they are checked on their own); annotation values become same-typed
    placeholders; names in subschema maps (`properties`, `$defs`, ...) become positions, since only the
    values are checked. So nodes that differ only in names and prose share one cache entry, and
    everything the shallow metaschema can object to is kept as it was.
    """
    single, arrays, maps = positions
    out: dict[str, Any] = {}
    renamed: dict[str, list[str]] = {}
    for keyword, value in node.items():
        if keyword in single and isinstance(value, dict):
            out[keyword] = {}
        elif keyword in arrays and isinstance(value, list):
            out[keyword] = [{} if isinstance(v, dict) else v for v in value]
        elif keyword in maps and isinstance(value, dict):
            if keyword == "patternProperties":  # its names are checked (as regexes): keep them
                out[keyword] = {k: {} if isinstance(v, dict) else v for k, v in value.items()}
            else:
                renamed[keyword] = list(value)
                out[keyword] = {f"#{i}": {} if isinstance(v, dict) else v for i, v in enumerate(value.values())}
        elif keyword in _ANY_VALUE:
            out[keyword] = None
        elif keyword in _PLACEHOLDERS and isinstance(value, _PLACEHOLDERS[keyword][0]):
            out[keyword] = _PLACEHOLDERS[keyword][1]
        elif keyword == "required" and _unique_strings(value):
            out[keyword] = []  # only "unique strings" is checked: the names themselves do not matter
        else:
            out[keyword] = value
    return out, renamed


def _unique_strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value) and len(set(value)) == len(value)


def _restore_names(rel: tuple[str | int, ...], renamed: dict[str, list[str]]) -> tuple[str | int, ...]:
    """Put the real names back into an error path found on the renamed node."""
    if len(rel) >= 2 and rel[0] in renamed and isinstance(rel[1], str) and rel[1].startswith("#"):
        return (rel[0], renamed[str(rel[0])][int(rel[1][1:])], *rel[2:])
    return rel


_results = FailureCache()


def check_schema(schema: Any, *, key: str | None = None) -> list[ValidationFailure]:
    """Every problem with the schema itself. `key` is its `schema_key` when the caller has it already."""
    if not isinstance(schema, dict):
        return [
            ValidationFailure(
                check=CHECK,
                code="schema_not_a_schema",
                message=f"the schema must be a JSON object, got {type(schema).__name__}: "
                f"{paths.shorten(reprlib.repr(schema))}",
            )
        ]
    return _results.failures(key or schema_key(schema), lambda: _schema_failures(schema))


def _schema_failures(schema: dict[str, Any]) -> list[ValidationFailure]:
    failures: list[ValidationFailure] = []
    top = schema.get("type")
    if top != "object" and top != ["object"]:
        failures.append(
            ValidationFailure(
                check=CHECK,
                code="schema_not_object",
                message=f"the top-level schema must have `type: object`, got {paths.shorten(reprlib.repr(top))}",
                path="$.type",
            )
        )
    for dialect in _DIALECTS:
        failures.extend(dialect.errors(schema))
    return failures


BLOCKING_CODES = frozenset(
    {"schema_not_a_schema", "schema_invalid_2020_12", "schema_invalid_draft7", "schema_too_deep", "schema_too_large"}
)


def is_schema_usable(failures: list[ValidationFailure]) -> bool:
    """Checks that need a schema can run unless it is no schema at all or fails a metaschema
    (a valid schema that is not an object at the top is still usable)."""
    return not any(f.code in BLOCKING_CODES for f in failures)
