"""Validation of records (SOB method): schema, ground truth, pydantic, alignment; grounding and
complexity as signals. `validate_record` runs everything; the check modules can be used on their own."""

from core.limits import check_nesting
from validation.alignment import check_alignment, check_data_alignment, check_schema_structure
from validation.canonical import canonical_ground_truth
from validation.complexity import assess_complexity
from validation.ground_truth import check_ground_truth, compiled_validator
from validation.grounding import NormalizedContext, check_grounding, normalize_context, normalize_text
from validation.pipeline import RecordValidation, validate_many, validate_record
from validation.pydantic_check import check_pydantic, parse_record
from validation.schema_check import check_schema

__all__ = [
    "NormalizedContext",
    "RecordValidation",
    "assess_complexity",
    "canonical_ground_truth",
    "check_alignment",
    "check_data_alignment",
    "check_grounding",
    "check_ground_truth",
    "check_nesting",
    "check_pydantic",
    "check_schema",
    "check_schema_structure",
    "compiled_validator",
    "normalize_context",
    "normalize_text",
    "parse_record",
    "validate_many",
    "validate_record",
]
