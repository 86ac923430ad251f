"""The rubric every judge scores against: dimensions, threshold and version."""

from __future__ import annotations

from core.sources import get_source

RUBRIC_VERSION = "2"  # bump when a dimension or its meaning changes: cached verdicts then go stale
DEFAULT_THRESHOLD = 60

DIMENSIONS: dict[str, str] = {
    "accuracy": "the answer is right for the question and the context",
    "grounding": "every value is supported by the context as written",
    "schema_quality": "the schema is well typed, captures the reasoning, has no redundant or ambiguous fields",
    "question_quality": "the question is answerable from the context, has one correct answer, and is more than a "
    "lookup of a single field",
}


def dimensions_for(source: str) -> dict[str, str]:
    """The rubric's dimensions plus those the source adds (a meeting's: answering needs several turns)."""
    return DIMENSIONS | get_source(source).judge_dimensions
