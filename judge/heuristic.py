"""The deterministic offline judge, built on validation signals. Free, so it also serves as a
pre-filter before a paid LLM judge."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from rapidfuzz import fuzz

from core.models import Record
from core.verdicts import JudgeVerdict, ValidationReport
from judge.rubric import RUBRIC_VERSION, dimensions_for
from validation.grounding import normalize_text

VERSION = f"heuristic-1/rubric-{RUBRIC_VERSION}"
YES = {"yes", "true"}
NO = {"no", "false"}
GENERIC_NAMES = {"answer", "value", "result", "data", "output", "field", "info", "response", "text"}
_NUMBER = re.compile(r"^-?\d[\d,]*(\.\d+)?$")
_TRANSCRIPT_LINE = re.compile(r"^\[[\d:]+\] [^:]+: (.*)$")


def normalize(text: str) -> str:
    """The same normalisation as the grounding check, so both agree on what matches."""
    return normalize_text(text)


def leaves(value: Any, path: str = "$") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, child in value.items():
            yield from leaves(child, f"{path}.{key}")
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from leaves(child, f"{path}[{i}]")
    else:
        yield path, value


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and _NUMBER.match(value.strip()):
        return float(value.strip().replace(",", ""))
    return None


def answer_match(answer: str, ground_truth: dict[str, Any]) -> tuple[int, str]:
    """How well the seed answer is found among the ground truth's leaves (score, rationale)."""
    wanted = normalize(answer)
    number = _as_number(answer)
    best = 0.0
    for path, leaf in leaves(ground_truth):
        if isinstance(leaf, bool):
            if (wanted in YES and leaf) or (wanted in NO and not leaf):
                return 100, f"the seed answer {answer!r} is the boolean at {path}"
            continue
        if number is not None and _as_number(leaf) == number:
            return 100, f"the seed answer {answer!r} is the number at {path}"
        if isinstance(leaf, str):
            got = normalize(leaf)
            if got == wanted:
                return 100, f"the seed answer {answer!r} is at {path}"
            if wanted and got and (wanted in got or got in wanted):
                best = max(best, 85.0)
            else:
                best = max(best, fuzz.ratio(wanted, got))
    if best >= 85:
        return 85, f"the seed answer {answer!r} is close to a leaf of the ground truth"
    return 20, f"the seed answer {answer!r} is not among the ground truth's leaves"


def schema_quality(schema: dict[str, Any], report: ValidationReport) -> tuple[int, str]:
    """Rules a reviewer would apply: typed, structured, described, not a lone answer field."""
    score, notes = 100, []
    properties = schema.get("properties") or {}
    complexity = report.complexity
    if len(properties) < 3:
        score -= 50
        notes.append("fewer than three properties")
    generic = sorted(name for name in properties if name.lower() in GENERIC_NAMES)
    if generic and len(properties) <= 3:
        score -= 20
        notes.append(f"generic names {generic}")
    described = sum(1 for p in properties.values() if isinstance(p, dict) and p.get("description"))
    if properties and described < len(properties) / 2:
        score -= 10
        notes.append("most properties lack a description")
    if complexity is not None and complexity.level == "easy":
        score -= 15
        notes.append("flat schema: no nested reasoning structure")
    if complexity is not None and complexity.required < complexity.properties:
        score -= 15
        notes.append("not every property is required")
    return max(score, 0), "; ".join(notes) or "typed, structured and described"


def multi_turn(context: str, ground_truth: dict[str, Any]) -> tuple[int, str]:
    """How many transcript utterances the grounded string values come from."""
    lines = [normalize(m.group(1)) for m in map(_TRANSCRIPT_LINE.match, context.splitlines()) if m]
    hit: set[int] = set()
    for _, leaf in leaves(ground_truth):
        if isinstance(leaf, str) and len(normalize(leaf)) >= 3:
            needle = normalize(leaf)
            hit.update(i for i, line in enumerate(lines) if needle in line)
    if len(hit) >= 3:
        return 100, f"values come from {len(hit)} utterances"
    if len(hit) == 2:
        return 75, "values come from two utterances"
    return 30, f"values come from {len(hit)} utterance(s): one turn answers it"


class HeuristicJudge:
    name = "heuristic"
    version = VERSION

    def judge(self, record: Record, report: ValidationReport, threshold: int) -> JudgeVerdict:
        scores: dict[str, int] = {}
        rationales: dict[str, str] = {}
        grounding = report.grounding
        fraction = grounding.fraction if grounding else 0.0
        answer = record.metadata.extra.get("answer")
        if answer:
            scores["accuracy"], rationales["accuracy"] = answer_match(str(answer), record.output.ground_truth)
        else:
            scores["accuracy"] = round(60 + 40 * fraction)
            rationales["accuracy"] = "no seed answer to compare; scored from how much of the answer is grounded"
        scores["grounding"] = round(100 * fraction)
        missing = ", ".join(grounding.ungrounded_paths[:5]) if grounding else "no grounding report"
        rationales["grounding"] = (
            "every value is found in the context"
            if grounding and not grounding.ungrounded_paths
            else f"{fraction:.0%} of values found in the context; not found: {missing}"
        )
        scores["schema_quality"], rationales["schema_quality"] = schema_quality(record.input.json_schema, report)
        if "multi_turn" in dimensions_for(record.metadata.source):
            scores["multi_turn"], rationales["multi_turn"] = multi_turn(
                record.input.context, record.output.ground_truth
            )
        return JudgeVerdict(
            judge=self.name, version=self.version, scores=scores, rationales=rationales, threshold=threshold
        )
