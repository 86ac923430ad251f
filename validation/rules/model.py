"""One rule of the gate as one unit: its code, what it does, why, its outcome, the readings it relies on, the
functions that carry it out, and a right and a wrong example that tests/validation/test_rule_catalogue.py runs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

# reject: the record is rejected; flag: it waits in `needs_review` for a person; note: the doubt is recorded in the
# grounding report (shown to curators and to the LLM judge) and holds nothing by itself.
Outcome = Literal["reject", "flag", "note"]
Stage = Literal["validation", "judge"]


@dataclass(frozen=True)
class Example:
    """A record the rule is run on: a labelled case (`case="calibration5/v5-hp-d06"`, read from
    tests/data/<set>/), or an inline one whose omitted parts are a small valid record's (validation/rules/base.py)."""

    case: str | None = None
    context: str | None = None
    question: str | None = None
    json_schema: Any = None
    ground_truth: Any = None
    evidence: dict[str, Any] | None = None
    seed_answer: str | None = None
    source: str = "hotpotqa"
    note: str = ""  # what the example shows, in a few words, for the catalogue page
    build: Callable[[], dict[str, Any]] | None = None  # parts too large to write out (`too_large` rules)
    # Run the rule's first check alone on (ground truth, schema), as a library caller may: for a defence the
    # full path never reaches because an earlier rule rejects the record first.
    alone: bool = False

    def parts(self) -> dict[str, Any]:
        """context, question, json_schema, ground_truth, evidence, seed_answer and source of an inline example."""
        fields = {
            "context": self.context,
            "question": self.question,
            "json_schema": self.json_schema,
            "ground_truth": self.ground_truth,
            "evidence": self.evidence,
            "seed_answer": self.seed_answer,
            "source": self.source,
        }
        return fields | (self.build() if self.build is not None else {})


@dataclass(frozen=True)
class Rule:
    code: str  # the code it emits; a family of codes ends in "*" (`pydantic_*`)
    summary: str  # one line
    outcome: Outcome
    stage: Stage
    why: str
    right: Example
    wrong: Example
    checks: tuple[str, ...]  # "module:function" that carry it out (the per-rule cost is profiled on these)
    readings: tuple[str, ...] = ()  # validation/readings/ kinds it relies on
    default: bool = True  # on unless a project selects it
    guards: bool = False  # guards against data loss or a schema error: never off by default
    family: str = ""  # for the catalogue page's sections
    extra: dict[str, Any] = field(default_factory=dict)

    def matches(self, code: str) -> bool:
        return code == self.code or (self.code.endswith("*") and code.startswith(self.code[:-1]))
