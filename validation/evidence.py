"""Ground every value against its own evidence, never against "anywhere in the context".

For each leaf of a ground truth (core/evidence.py says what evidence is):

* with curator or draft evidence: the quote is located in the context (exactly, else ignoring case and
  runs of whitespace; given offsets must hold the quote), may not lie in transcript markup, and the value
  must be the quoted text (`span`) or a recognised normalisation of it (`normalised`); a `derived` value
  names leaves that exist and, with a `rule`, is recomputed from them; an `absent` value is null or empty.
  A broken piece of evidence is a hard failure with a code and the JSON path: the record goes back to its
  curator with the reason.
* without evidence: the toolkit locates the value itself (whole words outside transcript markup, numbers
  by value and sign, spelled-out numbers as `normalised`) and stores the span it found as `auto` evidence.
  A value it cannot find is `ungrounded_value`: a doubt for the judge and the curator, not a rejection,
  since answers may paraphrase.

Values are also tied to their field. In an object with a name-like anchor (`name`, `title`, ...) a value
must sit in the same sentence or line as the anchor, or in a paragraph headed by it, else
`value_not_near_entity` (birth dates swapped between two people). In a table row, or after a label on its
line, a value whose column header or label names a sibling field and not its own is
`value_in_wrong_field` (numbers permuted between fields). Both are doubts that lower the judge's scores."""

from __future__ import annotations

import re
from typing import Any

from core.evidence import Evidence
from validation.evidence_fields import _anchors, _check_fields, _locate, _object_strings, _other_readings
from validation.evidence_given import EvidenceResult, _check_given, _quote, _show
from validation.evidence_places import Layout, Leaf, _layout, _lowered, _occurrences, walk_leaves
from validation.field_checks import check_field_ties
from validation.field_hints import hint_for
from validation.field_rules.phrases import narrowed_spans
from validation.grounding import is_grounded, longest_first, normalize_context, transcript_speakers
from validation.readings.fields import FieldHint
from validation.readings.numbers import precision_of, to_decimal

_validate_evidence = Evidence.__pydantic_validator__.validate_python  # `Evidence.model_validate`, less a Python layer


def check_evidence(
    ground_truth: Any,
    context: str,
    evidence: dict[str, Evidence],
    hints: dict[str, FieldHint] | None = None,
    question: str = "",
) -> EvidenceResult:
    """`hints`: what the schema says of each leaf's field (validation/field_hints.py): its unit, money, a count,
    a clock time. Without them a leaf's key alone is read. `question`: the record's question, which may ask for
    a part of what the context lists."""
    result = EvidenceResult()
    ctx = normalize_context(context)
    layout = _layout(context)
    leaves, containers = walk_leaves(ground_truth)
    by_path = {leaf.path: leaf for leaf in leaves}
    anchors = _anchors(by_path)
    object_strings = _object_strings(leaves)
    for path in evidence:
        if path not in by_path and path not in containers:
            result.fail(
                "evidence_unknown_path", f"evidence is given for {path}, which is not in the ground truth", path
            )
    speakers = transcript_speakers(context) if layout.is_transcript else frozenset()
    spans: dict[str, tuple[int, int]] = {}
    for leaf in leaves:
        value = leaf.value
        counted = isinstance(value, str | int | float) and not isinstance(value, bool)
        result.leaves += counted
        given = evidence.get(leaf.path)
        if given is not None:
            hint = hint_for(hints, leaf.path, leaf.key)
            located = _check_given(leaf, given, context, ctx, evidence, by_path, containers, result, hint)
            if located is not None:
                spans[leaf.path] = located
                result.resolved[leaf.path] = given.model_copy(
                    update={"start": located[0], "end": located[1], "quote": context[located[0] : located[1]]}
                )
            elif not any(f.path == leaf.path for f in result.failures):
                result.resolved[leaf.path] = given
            ok = not any(f.path == leaf.path for f in result.failures)
            if counted and ok:
                result.grounded += 1
                result.support[given.kind] += 1
            elif counted:
                result.ungrounded.append(leaf.path)
            continue
        if value is None:
            result.doubt(
                "unexplained_null", "null without `absent` evidence: is the value really not in the context?", leaf.path
            )
            continue
        if not counted:
            continue
        if isinstance(value, str) and value.strip() in speakers:
            result.grounded += 1
            result.support["speaker"] += 1
            continue
        if layout.is_transcript and isinstance(value, str) and _is_line_time(value.strip(), context):
            result.grounded += 1
            result.support["timestamp"] += 1  # when in the meeting something was said: a line's own time
            continue
        place = _locate(
            leaf,
            ctx,
            layout,
            anchors,
            result,
            hint_for(hints, leaf.path, leaf.key),
            object_strings.get(leaf.parent, ()),
        )
        if place is None:
            if is_grounded(value, ctx):  # paraphrase-tolerant: normalised or fuzzy, no offsets
                result.grounded += 1
                result.support["fuzzy"] += 1
            elif _computed_from_leaves(value, leaves, containers):
                result.grounded += 1
                result.support["computed"] += 1
            elif _words_in_one_clause(value, layout):
                result.grounded += 1
                result.support["reworded"] += 1
            else:
                result.ungrounded.append(leaf.path)
                result.doubt("ungrounded_value", f"{_show(value)} is not found in the context", leaf.path)
            continue
        start, end, kind = place
        spans[leaf.path] = (start, end)
        # From a dict, by the model's own validator: one call into pydantic, about half the cost of the keyword
        # constructor (and less than `model_construct`, which is Python).
        result.resolved[leaf.path] = _validate_evidence(
            {"kind": kind, "quote": _quote(context, start, end), "start": start, "end": end, "auto": True}
        )
        result.grounded += 1
        result.support["located"] += 1
    spans = narrowed_spans(leaves, spans, layout.text)  # a number's place, not its curator's whole quote
    _check_fields(
        leaves, spans, layout, anchors, result, explicit=set(evidence), object_strings=object_strings, hints=hints
    )

    def find(value: Any, hint: FieldHint) -> list[tuple[int, int]]:
        found = _occurrences(value, ctx) or _other_readings(value, ctx.raw, hint, ctx.original)
        return [(start, end) for start, end, _ in found]

    check_field_ties(leaves, spans, layout, hints, ground_truth, containers, speakers, result.doubt, find, question)
    return result


def _is_line_time(value: str, context: str) -> bool:
    """A value that is the `[m:ss]` time of one of the transcript's lines, written with or without brackets."""
    bare = value.strip("[] ")
    return bool(re.fullmatch(r"\d{1,3}:\d{2}(?::\d{2})?", bare)) and f"\n[{bare}] " in f"\n{context}"


def _computed_from_leaves(value: Any, leaves: list[Leaf], containers: dict[str, Any]) -> bool:
    """A number that is the difference or sum of two other numbers of the answer, a share of one, or the length
    of one of its lists (a span of years, a total, a count): computed, not copied."""
    number = to_decimal(value) if not isinstance(value, str) else None
    if number is None:
        return False
    if any(isinstance(c, list) and len(c) == number for c in containers.values()):
        return True
    numbers = [d for leaf in leaves if (d := to_decimal(leaf.value) if not isinstance(leaf.value, str) else None)]
    numbers = [n for n in numbers if n != number][:40]
    step = precision_of(number)
    for i, first in enumerate(numbers):
        for second in numbers[i + 1 :]:
            if number in (abs(first - second), first + second):
                return True
            if (0 < first < 1 or 0 < second < 1) and abs(first * second - number) <= step / 2:
                return True  # a share of another amount: half (0.5) of a 1,240 fee is 620
            for top, bottom in ((first, second), (second, first)):
                if bottom and 0 < number < 1 and abs(top / bottom - number) <= step / 2:
                    return True  # a share: 93 of 98 is 0.95
    return False


_CONTENT_WORD = re.compile(r"[^\W_]{3,}")


_CLAUSE_STOP = {"the", "and", "for", "with", "from", "was", "were", "are", "has", "had", "its", "his", "her", "their"}


def _words_in_one_clause(value: Any, layout: Layout) -> bool:
    """A phrase of several words whose every content word stands in one sentence of the context (or within three
    lines of a transcript): a curator's rewording ("ambassador to Czechoslovakia" out of "ambassador to Ghana and
    to Czechoslovakia"), not an invention."""
    if not isinstance(value, str):
        return False
    words = {w.lower() for w in _CONTENT_WORD.findall(value)} - _CLAUSE_STOP
    if len(words) < 2 or len(words) > 12:
        return False
    rarest = longest_first(words)[0]
    text = layout.text
    lowered = _lowered(text)
    at = lowered.find(rarest)
    for _ in range(16):
        if at < 0:
            return False
        clause = layout.nearby_lines(at, 1) if layout.is_transcript else layout.sentence(at)
        found = {w.lower() for w in _CONTENT_WORD.findall(clause)}
        if words <= found or all(any(f.startswith(w[:5]) for f in found) for w in words):
            return True
        at = lowered.find(rarest, at + 1)
    return False
