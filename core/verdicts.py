"""What the validation and judge stages say about a record (stored as JSON beside it)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Complexity = Literal["easy", "medium", "hard"]


class ValidationFailure(BaseModel):
    """One failed check: a stable code, a human message and the JSON path it concerns."""

    model_config = ConfigDict(extra="forbid")

    check: str  # json_schema | ground_truth | pydantic | alignment
    code: str
    message: str
    path: str = "$"


class GroundingIssue(BaseModel):
    """A doubt about one value that is not a hard failure: it lowers the judge's scores and is shown to the
    curator (`ungrounded_value`, `value_not_near_entity`, `value_in_wrong_field`, `unverified_derivation`, ...)."""

    model_config = ConfigDict(extra="forbid")

    code: str
    message: str
    path: str = "$"


class GroundingInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    leaves: int = 0
    grounded: int = 0
    fraction: float = 1.0  # grounded / leaves (1.0 when there are no leaves to ground)
    ungrounded_paths: list[str] = Field(default_factory=list)
    # How each grounded leaf is supported: curator or draft evidence by kind, or located by the toolkit.
    support: dict[str, int] = Field(default_factory=dict)
    issues: list[GroundingIssue] = Field(default_factory=list)


class ComplexityInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    level: Complexity = "easy"
    properties: int = 0  # all declared properties, at every depth
    top_level_properties: int = 0
    required: int = 0  # required fields, at every depth
    leaves: int = 0  # scalar leaves declared by the schema
    depth: int = 0


class ValidationReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    passed: bool
    failures: list[ValidationFailure] = Field(default_factory=list)
    grounding: GroundingInfo | None = None
    complexity: ComplexityInfo | None = None


class GateFlag(BaseModel):
    """A doubt a deterministic check cannot settle: one JSON path, a stable code and a reason. A flagged record
    goes to `needs_review` for a person (fixed, or dismissed with a note); it is never rejected for a flag."""

    model_config = ConfigDict(extra="forbid")

    code: str
    path: str = "$"
    reason: str


class JudgeVerdict(BaseModel):
    """Scores 0-100 per dimension; below the threshold on any dimension rejects the record. `flags`: what the
    judge could not verify (the heuristic pre-filter's doubts); open flags hold the record in `needs_review`."""

    model_config = ConfigDict(extra="forbid")

    judge: str  # e.g. "heuristic", "gemini:gemini-2.5-pro"
    version: str  # judge or rubric version
    scores: dict[str, int]
    rationales: dict[str, str] = Field(default_factory=dict)
    threshold: int = 60
    flags: list[GateFlag] = Field(default_factory=list)

    def failing_dimensions(self) -> list[str]:
        return [dim for dim, score in self.scores.items() if score < self.threshold]

    @property
    def passed(self) -> bool:
        return not self.failing_dimensions()
