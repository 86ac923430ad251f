"""Does the ground truth validate against its schema (Draft 2020-12)? Every error, at its JSON path."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.exceptions import Unresolvable

from core.verdicts import ValidationFailure
from validation import paths, regex_limit
from validation.cache import BoundedCache, schema_key

CHECK = "ground_truth"

# No remote retrieval: jsonschema's default registry would fetch `$ref: https://...` over the network
# (with a deprecation warning). An empty registry resolves local refs and the official metaschemas only.
_REGISTRY: Registry = Registry()
# A schema's `pattern` cannot hang a run: jsonschema's searches get a time limit (validation/regex_limit.py).
regex_limit.install_in_jsonschema()

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


# Keywords whose meaning jsonschema-rs shares with `jsonschema` exactly (tests/validation/test_fast_validator.py
# checks them side by side). A schema with any other keyword ($ref, pattern, format, multipleOf, enum of
# numbers, ...) is only ever checked by `jsonschema`.
_FAST_KEYWORDS = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "items", "prefixItems", "minItems", "maxItems",
        "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minProperties",
        "maxProperties", "anyOf", "allOf", "oneOf", "not", "enum", "const", "description", "title", "default",
        "examples", "$comment",
    }
)  # fmt: skip
_ANNOTATIONS = ("description", "title", "default", "examples", "$comment")
# Only validators are cached here; an unsupported schema is remembered as False.
_fast_validators: BoundedCache[Any] = BoundedCache(4096)


def _fast_validator(schema: dict[str, Any], key: str | None) -> Any:
    """A compiled jsonschema-rs validator when the schema uses only keywords both libraries read alike, else
    None. It only answers "valid?": the errors themselves always come from `jsonschema`."""
    if key is None:
        return None
    cached = _fast_validators.get(key)
    if cached is not None:
        return cached or None
    validator: Any = False
    if _fast_supported(schema):
        try:
            validator = jsonschema_rs.Draft202012Validator(_copy(schema), validate_formats=False)
        except (ValueError, jsonschema_rs.ValidationError):
            validator = False
    _fast_validators.put(key, validator)
    return validator or None


def _fast_supported(schema: Any) -> bool:
    stack = [schema]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            return False  # boolean schemas and anything odd: `jsonschema` alone
        for keyword, value in node.items():
            if keyword not in _FAST_KEYWORDS:
                return False
            if keyword in _ANNOTATIONS:
                continue
            if keyword == "properties":
                if not isinstance(value, dict):
                    return False
                stack.extend(value.values())
            elif keyword in ("anyOf", "allOf", "oneOf", "prefixItems"):
                if not isinstance(value, list):
                    return False
                stack.extend(value)
            elif keyword in ("items", "not") or (keyword == "additionalProperties" and not isinstance(value, bool)):
                stack.append(value)
            elif keyword == "enum" and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
                return False  # 1 == 1.0 == True questions: strings only
            elif keyword == "const" and not isinstance(value, str):
                return False
            elif keyword == "type" and not (
                isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))
            ):
                return False
    return True


def _copy(schema: dict[str, Any]) -> dict[str, Any]:
    try:
        return json.loads(json.dumps(schema))  # several times faster than deepcopy; keeps key order
    except (TypeError, ValueError):
        return copy.deepcopy(schema)


def check_ground_truth(ground_truth: Any, schema: dict[str, Any], *, key: str | None = None) -> list[ValidationFailure]:
    """Validate with formats off (a `format: date` mismatch is the judge's business, not a rejection).
    The schema should have passed `check_schema`; a schema that still breaks the validator is reported,
    never raised, so one bad record cannot stop a batch."""
    fast = _fast_validator(schema, key)
    if fast is not None:
        try:
            if fast.is_valid(ground_truth):
                return []
        except (ValueError, OverflowError):
            pass  # a value jsonschema-rs cannot read (huge integer, non-JSON type): `jsonschema` decides
    validator = compiled_validator(schema, key=key)
    try:
        return [_failure(error) for error in validator.iter_errors(ground_truth)]
    except Unresolvable as exc:
        return [_broken("schema_unresolvable_ref", f"a $ref cannot be resolved locally: {exc}")]
    except RecursionError:
        return [_broken("ground_truth_too_deep", "validation recursed too deeply")]
    except re.error as exc:
        return [_broken("schema_bad_pattern", f"a pattern is not a valid regular expression: {exc}")]
    except regex_limit.PatternTooSlow as exc:
        return [pattern_too_slow(exc, schema)]


def pattern_too_slow(exc: regex_limit.PatternTooSlow, schema: Any) -> ValidationFailure:
    """The rejection of a schema whose regular expression ran out of time, at the pattern's place."""
    return ValidationFailure(
        check=CHECK,
        code="schema_pattern_too_slow",
        message=paths.shorten(f"{exc}; write a pattern that does not backtrack (no nested repetition)"),
        path=regex_limit.pattern_path(schema, exc.pattern),
    )


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
