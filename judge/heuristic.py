"""The deterministic offline judge: a pre-filter, never an acceptor on its own.

It may reject (clear structural or evidence failures, a wrong seed answer, an empty or lazy answer) and
is free, so it runs before a paid LLM judge (`--prefilter`). A record it passes is only "not obviously
wrong": a release whose records no LLM judge or second human checked says so (`review: heuristic-only`)
and is refused without `--allow-unreviewed`.

What it reads: the validation report (grounding against each value's own evidence, and the doubts found
there: values not near their entity, values under another field's label) and the record's resolved
evidence; the seed answer of the source dataset when the question still asks the seed question (also
when reworded); the schema."""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

from core.evidence import Evidence
from core.models import Record
from core.verdicts import GateFlag, GroundingIssue, JudgeVerdict, ValidationReport
from judge.heuristic_answers import _answer_match, asks_seed_question, is_meaningful
from judge.heuristic_slips import any_word_in_context, must_be_stated, near_miss
from judge.heuristic_text import COPY_MIN_CHARS, GENERIC_NAMES, Leaf, _content_words, _value_at, leaf_list, normalize
from judge.rubric import RUBRIC_VERSION, dimensions_for
from validation.evidence_places import places_of
from validation.rules import DEFAULT, RuleSet

VERSION = f"heuristic-3/rubric-{RUBRIC_VERSION}"


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


def _newlines(context: str) -> list[int]:
    """Offsets of the context's line breaks, so the line of an offset is a binary search, not a count."""
    found, at = [], context.find("\n")
    while at != -1:
        found.append(at)
        at = context.find("\n", at + 1)
    return found


def _line_of(context: str, offset: int, newlines: list[int] | None = None) -> int:
    if newlines is None or offset < 0:
        return context.count("\n", 0, offset)
    return bisect_left(newlines, offset)


def multi_turn(
    context: str, ground_truth: dict[str, Any], spans: dict[str, tuple[int, int]] | None = None
) -> tuple[int, str]:
    """How many utterances the answer's meaningful values need: a value with curated evidence counts the utterance
    of its evidence, any other the fewest utterances that hold them all; fillers ("YEAH") and nulls count for
    nothing."""
    fixed = spans or {}
    newlines = _newlines(context)
    options: list[set[int]] = []
    for path, value in leaf_list(ground_truth):
        if not is_meaningful(value) or isinstance(value, bool):
            continue
        if path in fixed:
            options.append({_line_of(context, fixed[path][0], newlines)})
        else:
            found = {_line_of(context, start, newlines) for start, _, _ in places_of(value, context)}
            if found:
                options.append(found)
    lines = _fewest_lines(options)
    if len(lines) >= 3:
        return 100, f"values come from {len(lines)} utterances"
    if len(lines) == 2:
        return 75, "values come from two utterances"
    return 30, f"values come from {len(lines)} utterance(s): one turn answers it"


def _fewest_lines(options: list[set[int]]) -> set[int]:
    """The fewest utterances that hold every value (greedy set cover): "THE REMOTE", said ten times, does not
    make a one-line answer multi-turn."""
    chosen: set[int] = set()
    left = [o for o in options if o]
    while left:
        counts: dict[int, int] = {}
        for option in left:
            for line in option:
                counts[line] = counts.get(line, 0) + 1
        best = max(counts, key=lambda line: (counts[line], -line))
        chosen.add(best)
        left = [o for o in left if best not in o]
    return chosen


def _spans(evidence: dict[str, Evidence]) -> dict[str, tuple[int, int]]:
    return {p: (e.start, e.end) for p, e in evidence.items() if e.start is not None and e.end is not None}


def laziness(record: Record, report: ValidationReport) -> tuple[int, str] | None:
    """An answer that answers nothing (all null, fillers), is mostly unexplained nulls, or copies the context."""
    flat = leaf_list(record.output.ground_truth)
    return _laziness(record, flat, _meaningful(flat))


def _meaningful(flat: list[Leaf]) -> list[Any]:
    return [value for _, value in flat if is_meaningful(value)]


def _laziness(record: Record, flat: list[Leaf], meaningful: list[Any]) -> tuple[int, str] | None:
    if not meaningful:
        return 0, "the answer holds no value: every leaf is null, empty or a filler word"
    absent = {p for p, e in record.output.evidence.items() if e.kind == "absent"}
    unexplained = [p for p, v in flat if (v is None or v == "") and p not in absent]
    if len(unexplained) > len(meaningful):
        return 30, f"{len(unexplained)} null leaves without `absent` evidence against {len(meaningful)} values"
    context: str | None = None  # normalised only when a value is long enough to be a copy
    for path, value in flat:
        if isinstance(value, str) and len(value) >= COPY_MIN_CHARS:
            context = normalize(record.input.context) if context is None else context
            if len(normalize(value)) >= 0.5 * len(context):
                return 0, f"{path} copies most of the context ({len(value)} characters): that is not an answer"
    return None


def question_quality(record: Record) -> tuple[int, str]:
    """Answerable from this context, more than a lookup of a single field."""
    return _question_quality(record, len(_meaningful(leaf_list(record.output.ground_truth))))


def _question_quality(record: Record, meaningful: int) -> tuple[int, str]:
    question = record.input.question
    words = _content_words(question)
    if len(question.split()) < 5:
        return 30, "the question is too short to ask for a structured answer"
    if words and not any_word_in_context([w for w in words if len(w) >= 4], record.input.context):
        # OCR and transcripts spell words their own way: reported, not flagged.
        return 60, "none of the question's words occur in the context: is it about this context?"
    if meaningful <= 1:
        return 45, "one value answers it: a lookup of a single field, not a structured question"
    return 90, "about this context, answered by several related values"


QUALITY_FLAGS = {"schema_quality": "weak_schema", "question_quality": "weak_question"}


# Doubts of validation that the gate raises as flags for a person (validation/evidence.py, field_checks.py).
FLAGGED_DOUBTS = frozenset(
    {
        "value_not_near_entity", "value_in_wrong_field", "evidence_unverified", "unit_mismatch",
        "number_from_other_phrase", "boolean_against_text", "absent_but_stated", "duplicate_item", "copied_span",
        "speaker_mismatch", "possible_swap", "value_from_other_phrase", "too_few_properties", "scale_dropped",
        "count_mismatch", "letter_not_in_context", "corrected_value", "list_missing_item", "value_from_other_entity",
        "comparison_against_values", "sign_against_text",
    }
)  # fmt: skip


def _doubts(issues: list[GroundingIssue]) -> list[GroundingIssue]:
    return [issue for issue in issues if issue.code in FLAGGED_DOUBTS]


class HeuristicJudge:
    name = "heuristic"
    version = VERSION
    runs_in_workers = True  # a pure function of the record: large runs judge in worker processes

    def __init__(self, rules: RuleSet = DEFAULT) -> None:
        # A project's rule set (validation/rules/selection.py): flags of rules that are off are not raised, and
        # flags it makes rejections reject. A changed set is a changed judge: its verdicts are not reused.
        self.rules = rules
        self.version = VERSION if rules.is_default else f"{VERSION}/rules-{rules.digest()}"

    def judge(self, record: Record, report: ValidationReport, threshold: int) -> JudgeVerdict:
        scores: dict[str, int] = {}
        rationales: dict[str, str] = {}
        grounding = report.grounding
        fraction = grounding.fraction if grounding else 0.0
        issues = grounding.issues if grounding else []
        derived = {p for p, e in record.output.evidence.items() if e.kind == "derived"}
        seed = record.metadata.extra.get("seed_answer") or record.metadata.extra.get("answer")
        seed_question = record.metadata.extra.get("seed_question")
        asks_seed = seed is not None and (
            seed_question is None or asks_seed_question(record.input.question, seed_question)
        )
        flat = leaf_list(record.output.ground_truth)  # walked once, read by every check
        meaningful = _meaningful(flat)
        accuracy: list[tuple[int, str]] = []
        flags: list[GateFlag] = []
        if asks_seed:
            score, why = _answer_match(str(seed), flat, record.input.question, derived)
            if score < 60:  # the dataset's answer disagrees: likely wrong, but a person decides
                flags.append(GateFlag(code="seed_answer_mismatch", path="$", reason=why))
            accuracy.append((max(score, 60), why))
        else:
            accuracy.append((round(60 + 40 * fraction), "no seed answer for this question; scored from grounding"))
        lazy = _laziness(record, flat, meaningful)
        if lazy is not None:
            if lazy[0] == 0 and not meaningful:
                accuracy.append(lazy)  # no value at all: nothing to release, whatever a person says
            else:
                flags.append(GateFlag(code="lazy_answer", path="$", reason=lazy[1]))
        stated = must_be_stated(record.output.ground_truth, grounding.ungrounded_paths if grounding else [])
        for path in stated:
            # A value not found is most often a right one written in a way the toolkit does not read (a
            # conversion, a computation): only a near miss of the context, or a name it never mentions, is asked.
            why = near_miss(_value_at(record.output.ground_truth, path), record.input.context)
            if why is not None:
                flags.append(GateFlag(code="ungrounded_value", path=path, reason=why))
        for doubt in _doubts(issues):
            flags.append(GateFlag(code=doubt.code, path=doubt.path, reason=doubt.message))
        scores["accuracy"], rationales["accuracy"] = min(accuracy, key=lambda s: s[0])
        # Values not found may be paraphrases: the stated ones are flagged above; the score asks, never rejects.
        scores["grounding"] = max(round(100 * fraction), threshold)
        missing = ", ".join(grounding.ungrounded_paths[:5]) if grounding else "no grounding report"
        rationales["grounding"] = (
            "every value is supported by its evidence or found in the context"
            if grounding and not grounding.ungrounded_paths
            else f"{fraction:.0%} of values grounded; not found: {missing}"
        )
        quality: dict[str, tuple[int, str]] = {"schema_quality": schema_quality(record.input.json_schema, report)}
        dims = dimensions_for(record.metadata.source)
        if "question_quality" in dims:
            quality["question_quality"] = _question_quality(record, len(meaningful))
        if "multi_turn" in dims:
            curated = {p: e for p, e in record.output.evidence.items() if not e.auto}
            quality["multi_turn"] = multi_turn(record.input.context, record.output.ground_truth, _spans(curated))
        for dim, (score, why) in quality.items():
            # A rule of thumb on quality cannot prove a record unfit: below the threshold it asks a person
            # (one meeting utterance is no error at all: the LLM judge weighs it, the pre-filter only reports it).
            if score < threshold:
                if dim in QUALITY_FLAGS:
                    flags.append(GateFlag(code=QUALITY_FLAGS[dim], path="$", reason=f"{dim} {score}: {why}"))
                why = f"{why} (measured {score}; the pre-filter does not reject on it)"
                score = threshold
            scores[dim], rationales[dim] = score, why
        flags = [flag for flag in flags if self.rules.raises(flag.code)]
        rejecting = [flag for flag in flags if flag.code in self.rules.rejecting]
        if rejecting:
            first = rejecting[0]
            scores["accuracy"] = 0
            rationales["accuracy"] = f"{first.code} at {first.path} (a rejection in this project): {first.reason}"
            flags = [flag for flag in flags if flag.code not in self.rules.rejecting]
        return JudgeVerdict(
            judge=self.name,
            version=self.version,
            scores=scores,
            rationales=rationales,
            threshold=threshold,
            flags=flags,
        )
