"""The rubric every judge scores against: dimensions, threshold and version."""

from __future__ import annotations

RUBRIC_VERSION = "2"  # bump when a dimension or its meaning changes: cached verdicts then go stale
DEFAULT_THRESHOLD = 60

DIMENSIONS: dict[str, str] = {
    "accuracy": "the answer is right for the question and the context",
    "grounding": "every value is supported by the context as written",
    "schema_quality": "the schema is well typed, captures the reasoning, has no redundant or ambiguous fields",
    "question_quality": "the question is answerable from the context, has one correct answer, and is more than a "
    "lookup of a single field",
}
AUDIO_DIMENSIONS: dict[str, str] = {
    "multi_turn": "answering needs more than one utterance of the meeting",
}


def dimensions_for(source: str) -> dict[str, str]:
    return DIMENSIONS | AUDIO_DIMENSIONS if source == "ami" else dict(DIMENSIONS)
