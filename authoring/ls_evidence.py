"""Evidence per JSON path in Label Studio: span labels on the context, and a JSON editor for the rest.

The curator marks evidence by picking a label (one per JSON path of the answer; the task's
`evidence_paths` lists them) and selecting the words of the context that state the value: Label Studio
stores a `labels` region with the character offsets and the text. Evidence that is no span (`derived`,
`absent`, a `normalised` value, or a quote for a path the labels do not list yet) goes into the `evidence`
editor as JSON keyed by path, in the short forms of `core.evidence.parse_evidence`.

Label Studio counts offsets in UTF-16 code units (JavaScript strings); Python counts code points. Both
directions are converted here, so a context with emoji or other astral characters keeps its spans.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from annotation_ui_config import EVIDENCE_SPAN_CONTROL
from core.evidence import Evidence, parse_evidence_map
from core.models import Reason

STAGE = "authoring"
SPAN_KINDS = ("span", "normalised")


# -- offsets --------------------------------------------------------------------------------------
def to_utf16(text: str, index: int) -> int:
    """A code-point offset of `text` as a UTF-16 offset (what Label Studio's Text tag counts)."""
    return index + sum(1 for ch in text[:index] if ord(ch) > 0xFFFF)


def from_utf16(text: str, offset: int) -> int:
    """A UTF-16 offset into `text` as a code-point offset."""
    units = 0
    for i, ch in enumerate(text):
        if units >= offset:
            return i
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(text)


# -- labels ----------------------------------------------------------------------------------------------
def label_of(path: str) -> str:
    """A JSON path as a label: without the leading `$.` (Label Studio reads `$name` as a task-data variable)."""
    return path[2:] if path.startswith("$.") else path


def path_of(label: str) -> str:
    return label if label.startswith("$") else "$." + label


# -- what a task carries ------------------------------------------------------------------------------
def leaf_paths(ground_truth: Any) -> list[str]:
    """The JSON paths a curator can mark evidence for: every leaf and every empty list, in document order."""
    from validation.evidence_places import walk_leaves

    if not isinstance(ground_truth, dict):
        return []
    leaves, _ = walk_leaves(ground_truth)
    return [leaf.path for leaf in leaves]


def label_options(ground_truth: Any, evidence: Mapping[str, Evidence] | None = None) -> list[dict[str, str]]:
    """`evidence_paths` of a task: one dynamic label per path (the answer's leaves, then evidence-only paths),
    written without the leading `$.` (`books[0].author`)."""
    paths = leaf_paths(ground_truth)
    paths += [p for p in (evidence or {}) if p not in paths]
    return [{"value": label_of(path)} for path in paths]


def prefill(
    context: str, ground_truth: Any, evidence: Mapping[str, Evidence] | None
) -> tuple[list[dict[str, Any]], str]:
    """Prediction regions (span labels) and the evidence editor's JSON text for a draft's evidence.

    Spans are located in the context the way validation locates them; a span that cannot be located goes
    into the JSON editor as its quote, so the curator sees it and the problem is reported on submit.
    """
    from validation.evidence import check_evidence

    given = {p: e for p, e in (evidence or {}).items() if not e.auto}
    if not given:
        return [], ""
    resolved = check_evidence(ground_truth, context, given).resolved if isinstance(ground_truth, dict) else {}
    regions: list[dict[str, Any]] = []
    rest: dict[str, Any] = {}
    for path, item in given.items():
        located = resolved.get(path)
        if item.kind in SPAN_KINDS and located is not None and located.located:
            assert located.start is not None and located.end is not None
            start, end = located.start, located.end
            regions.append(
                {
                    "id": f"ev{len(regions) + 1}",
                    "from_name": EVIDENCE_SPAN_CONTROL,
                    "to_name": "context",
                    "type": "labels",
                    "origin": "prediction",
                    "value": {
                        "start": to_utf16(context, start),
                        "end": to_utf16(context, end),
                        "text": context[start:end],
                        "labels": [label_of(path)],
                    },
                }
            )
        else:
            rest[path] = _short_form(item)
    return regions, json.dumps(rest, ensure_ascii=False, indent=1) if rest else ""


def _short_form(item: Evidence) -> Any:
    if item.kind == "absent" and not item.note:
        return "absent"
    if item.kind == "span" and item.quote is not None and not item.note:
        return item.quote
    return item.model_dump(exclude_none=True, exclude_defaults=True, exclude={"start", "end", "auto"}) | {
        "kind": item.kind
    }


# -- reading an annotation ----------------------------------------------------------------------------
def parse_evidence(
    result: Iterable[Mapping[str, Any]], editor_text: str, context: str
) -> tuple[dict[str, Evidence], list[Reason]]:
    """Evidence keyed by JSON path from the span labels and the evidence editor, and what is wrong with it.

    Whether each path exists in the answer, and whether each span supports its value, is validation's
    check (it has the final answer); here only what cannot be read at all is a problem.
    """
    evidence: dict[str, Evidence] = {}
    problems: list[Reason] = []
    for region in result or []:
        if region.get("from_name") != EVIDENCE_SPAN_CONTROL:
            continue
        value = region.get("value") or {}
        labels = [path_of(str(label)) for label in value.get("labels") or []]
        text = str(value.get("text") or "")
        if not labels:
            problems.append(_problem("evidence_unlabelled", f"a marked span ({text[:60]!r}) has no field path", "$"))
            continue
        offsets = _code_point_offsets(context, value.get("start"), value.get("end"), text)
        for path in labels:
            if path in evidence:
                problems.append(
                    _problem(
                        "evidence_duplicate", f"{path} has more than one marked span: keep the one that states it", path
                    )
                )
                continue
            start, end = offsets if offsets else (None, None)
            quote = context[start:end] if offsets else text
            if not quote.strip():
                problems.append(_problem("evidence_empty_span", f"the span marked for {path} is empty", path))
                continue
            evidence[path] = Evidence(kind="span", quote=quote[:5000], start=start, end=end)
    if editor_text.strip():
        try:
            raw = json.loads(editor_text)
        except json.JSONDecodeError as exc:
            problems.append(
                _problem(
                    "malformed_json",
                    f"evidence is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
                    "$.evidence",
                )
            )
            raw = None
        parsed, unreadable = parse_evidence_map(raw)
        for path, message in unreadable:
            problems.append(_problem("evidence_unreadable", f"evidence for {path}: {message}", path))
        for path, item in parsed.items():
            if path in evidence:
                problems.append(
                    _problem(
                        "evidence_duplicate",
                        f"{path} has a marked span and an entry in the evidence editor: keep one",
                        path,
                    )
                )
                continue
            evidence[path] = item
    return evidence, problems


def _code_point_offsets(context: str, start: Any, end: Any, text: str) -> tuple[int, int] | None:
    """The region's offsets in code points, when they hold its text (else None: validation finds the quote)."""
    if not isinstance(start, int) or not isinstance(end, int) or not 0 <= start < end:
        return None
    for s, e in ((start, end), (from_utf16(context, start), from_utf16(context, end))):
        if e <= len(context) and (not text or context[s:e] == text):
            return s, e
    return None


def _problem(code: str, message: str, path: str) -> Reason:
    return Reason(stage=STAGE, code=code, message=message, path=path)
