"""Run every validation check on a record: one report with every failure, grounding and complexity,
and the canonical validated output when nothing failed."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from core.evidence import Evidence
from core.limits import check_ground_truth_nesting, check_nesting, check_schema_nesting
from core.models import Record
from core.verdicts import GroundingInfo, ValidationFailure, ValidationReport
from validation import regex_limit
from validation.alignment import check_alignment, check_schema_structure
from validation.cache import FailureCache, parsed_schema_key, schema_key
from validation.canonical import canonical_ground_truth
from validation.complexity import assess_complexity
from validation.evidence import check_evidence
from validation.field_hints import field_hints
from validation.ground_truth import check_ground_truth, pattern_too_slow
from validation.pydantic_check import check_pydantic
from validation.schema_check import check_schema, is_schema_usable


class RecordValidation(NamedTuple):
    record: Record
    report: ValidationReport
    validated_output: dict[str, Any] | None
    evidence: dict[str, Evidence] | None = None  # resolved and located evidence, to store on the record


def validate_record(record: Record) -> tuple[ValidationReport, dict[str, Any] | None]:
    """The report and the canonical validated output (see `check_record`)."""
    checked = check_record(record)
    return checked.report, checked.validated_output


def check_record(record: Record, *, parsed_from_json: bool = False) -> RecordValidation:
    """`_check_record` within one time budget for every schema pattern it runs: a pattern that runs out
    of it rejects the record, at the pattern's place in the schema."""
    with regex_limit.budget():
        try:
            return _check_record(record, parsed_from_json=parsed_from_json)
        except regex_limit.PatternTooSlow as exc:  # raised outside the ground-truth check (alignment, ...)
            failure = pattern_too_slow(exc, record.input.json_schema)
            return RecordValidation(record, ValidationReport(passed=False, failures=[failure]), None)


def _check_record(record: Record, *, parsed_from_json: bool = False) -> RecordValidation:
    """All checks, schema first. A schema that is no schema (or fails a metaschema, or is too deep or
    large) skips what needs it (ground-truth validation, alignment, complexity); the rest still runs.
    A ground truth too deep or large skips what walks it. Grounding needs only the ground truth and the
    context, so it runs whatever the schema.

    Fields are read from the record as they are (they may have been assigned after construction, which
    pydantic does not check); the pydantic check reports such fields and the other checks cope with them.
    `parsed_from_json`: the record was just built by `Record.model_validate_json`, which is the pydantic
    check itself, so it is not run a second time.
    """
    schema: Any = record.input.json_schema
    ground_truth: Any = record.output.ground_truth
    context: Any = record.input.context

    # Sizes first: nothing may walk, copy or hash an oversized (or self-containing) part. Parsed JSON is a
    # tree no larger than its text, so its schema is hashed first and measured once per distinct schema.
    parsed_key = parsed_schema_key(schema) if parsed_from_json and isinstance(schema, dict) else None
    if parsed_key is not None:
        schema_nesting = _schema_nesting_cache.failures(parsed_key, lambda: check_schema_nesting(schema))
        nesting = schema_nesting + check_ground_truth_nesting(ground_truth)
    else:
        nesting = check_nesting(schema, ground_truth)
    schema_too_big = any(f.check == "json_schema" for f in nesting)
    ground_truth_too_big = any(f.check == "ground_truth" for f in nesting)
    failures: list[ValidationFailure] = (
        [] if parsed_from_json else check_pydantic(_without_oversized(record, schema_too_big, ground_truth_too_big))
    )
    failures += nesting
    key = None  # one hash, every cache
    if isinstance(schema, dict) and not schema_too_big:
        key = parsed_key or schema_key(schema)

    complexity = None
    if not schema_too_big:
        schema_failures = check_schema(schema, key=key)
        failures += schema_failures
        if is_schema_usable(schema_failures):
            if ground_truth_too_big:
                failures += check_schema_structure(schema, key=key)
            else:
                failures += check_ground_truth(ground_truth, schema, key=key)
                failures += check_alignment(schema, ground_truth, key=key)
            complexity = assess_complexity(schema, key=key)

    grounding = None
    resolved: dict[str, Evidence] | None = None
    if isinstance(context, str) and not ground_truth_too_big:
        given = getattr(record.output, "evidence", None) or {}
        # Stored `auto` evidence is the toolkit's own guess from an earlier run: located afresh.
        given = {path: e for path, e in given.items() if isinstance(e, Evidence) and not e.auto}
        hints = field_hints(ground_truth, schema, key) if isinstance(schema, dict) and not schema_too_big else None
        question = record.input.question if isinstance(record.input.question, str) else ""
        checked = check_evidence(ground_truth, context, given, hints, question)
        absent = {path for path, e in given.items() if e.kind == "absent"}
        # An empty list the curator marked `absent` is the right answer (a page with no footnotes).
        failures = [f for f in failures if not (f.code == "empty_array" and f.path in absent)]
        failures += checked.failures
        grounding = GroundingInfo(
            leaves=checked.leaves,
            grounded=checked.grounded,
            fraction=checked.grounded / checked.leaves if checked.leaves else 1.0,
            ungrounded_paths=checked.ungrounded,
            support=dict(checked.support),
            issues=checked.issues,
        )
        resolved = checked.resolved
    passed = not failures
    report = ValidationReport(passed=passed, failures=failures, grounding=grounding, complexity=complexity)
    validated_output = canonical_ground_truth(ground_truth, schema) if passed else None
    return RecordValidation(record, report, validated_output, resolved)


_schema_nesting_cache = FailureCache()


def _without_oversized(record: Record, schema: bool, ground_truth: bool) -> Record:
    """The record with oversized parts emptied (same type), for the pydantic check to copy safely."""
    if not (schema or ground_truth):
        return record
    updated = record.model_copy(deep=False)
    if schema:
        updated.input = record.input.model_copy(update={"json_schema": type(record.input.json_schema)()})
    if ground_truth:
        updated.output = record.output.model_copy(update={"ground_truth": type(record.output.ground_truth)()})
    return updated


def validate_many(records: Iterable[Record]) -> Iterator[RecordValidation]:
    """Lazily validate a batch; the caches make records that share a schema cheap."""
    for record in records:
        yield check_record(record)
