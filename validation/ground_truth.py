"""Does the ground truth validate against its schema (Draft 2020-12)? Every error, at its JSON path."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.exceptions import Unresolvable

from core.verdicts import ValidationFailure
from validation import paths
from validation.cache import BoundedCache, schema_key

CHECK = "ground_truth"

# No remote retrieval: jsonschema's default registry would fetch `$ref: https://...` over the network
# (with a deprecation warning). An empty registry resolves local refs and the official metaschemas only.
_REGISTRY: Registry = Registry()

# A miss costs tens of microseconds (copy and compile); each entry holds a copy of its schema: a modest bound.
_validators: BoundedCache[Draft202012Validator] = BoundedCache(4096)


def compiled_validator(schema: dict[str, Any], *, key: str | None = None) -> Draft202012Validator:
    """One validator per distinct schema. The schema is copied, so a caller editing its dict later
    cannot change what a cached validator checks."""
    key = key or schema_key(schema)
    validator = _validators.get(key)
    if validator is None:
        validator = _validators.put(key, Draft202012Validator(_copy(schema), registry=_REGISTRY, format_checker=None))
    return validator


def _copy(schema: dict[str, Any]) -> dict[str, Any]:
    try:
        return json.loads(json.dumps(schema))  # several times faster than deepcopy; keeps key order
    except (TypeError, ValueError):
        return copy.deepcopy(schema)


def check_ground_truth(ground_truth: Any, schema: dict[str, Any], *, key: str | None = None) -> list[ValidationFailure]:
    """Validate with formats off (a `format: date` mismatch is the judge's business, not a rejection).
    The schema should have passed `check_schema`; a schema that still breaks the validator is reported,
    never raised, so one bad record cannot stop a batch."""
    validator = compiled_validator(schema, key=key)
    try:
        return [_failure(error) for error in validator.iter_errors(ground_truth)]
    except Unresolvable as exc:
        return [_broken("schema_unresolvable_ref", f"a $ref cannot be resolved locally: {exc}")]
    except RecursionError:
        return [_broken("ground_truth_too_deep", "validation recursed too deeply")]
    except re.error as exc:
        return [_broken("schema_bad_pattern", f"a pattern is not a valid regular expression: {exc}")]


def _failure(error: Any) -> ValidationFailure:
    where = list(error.absolute_path)
    if error.validator == "required":
        # Point at the missing property itself, not at the object that lacks it.
        for name in error.validator_value:
            if isinstance(name, str) and error.message == f"{name!r} is a required property":
                where.append(name)
                break
    return ValidationFailure(
        check=CHECK,
        code="ground_truth_schema_mismatch",
        message=paths.shorten(f"{error.validator}: {error.message}"),
        path=paths.join(where),
    )


def _broken(code: str, message: str) -> ValidationFailure:
    return ValidationFailure(check=CHECK, code=code, message=paths.shorten(message))
