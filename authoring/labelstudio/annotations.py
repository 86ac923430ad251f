"""Reading one annotation: its editors, evidence spans and verdict, and what is wrong with them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from annotation_ui_config import TEXT_CONTROLS, VERDICT_CONTROL, VERDICTS
from authoring import ls_evidence
from core.boundary import InputRejected, parse_json_text
from core.evidence import Evidence
from core.limits import MAX_STRING_CHARS
from core.models import Reason
from validation import characters

STAGE = "authoring"  # reasons for editors that do not parse or validate


@dataclass
class ParsedAnnotation:
    """The editors and the verdict of one annotation, and what is wrong with them."""

    question: str
    json_schema: dict[str, Any] | None
    ground_truth: dict[str, Any] | None
    verdict: str | None
    notes: str
    problems: list[Reason] = field(default_factory=list)
    evidence: dict[str, Evidence] = field(default_factory=dict)  # by JSON path: span labels + evidence editor
    flag_resolutions: str = ""  # the curator's answer to the reviewer's flags (authoring.flag_resolutions)


def _texts(result: Iterable[Mapping[str, Any]]) -> tuple[dict[str, str], list[str]]:
    texts: dict[str, list[str]] = {}
    choices: list[str] = []
    for region in result or []:
        name = region.get("from_name")
        value = region.get("value") or {}
        if name in TEXT_CONTROLS:
            texts.setdefault(name, []).extend(str(t) for t in value.get("text") or [])
        elif name == VERDICT_CONTROL:
            choices.extend(str(c) for c in value.get("choices") or [])
    return {name: "\n".join(parts).strip() for name, parts in texts.items()}, choices


def _parse_json_editor(name: str, text: str, problems: list[Reason]) -> dict[str, Any] | None:
    path = f"$.{name}"
    if not text:
        problems.append(Reason(stage=STAGE, code=f"missing_{name}", message=f"{name} is empty", path=path))
        return None
    try:
        value = parse_json_text(text)  # the input limits, before anything is stored
    except InputRejected as exc:
        message = f"{name} is {exc}" if exc.code == "malformed_json" else f"{name}: {exc}"
        problems.append(Reason(stage=STAGE, code=exc.code, message=message, path=path))
        return None
    if not isinstance(value, dict):
        problems.append(
            Reason(
                stage=STAGE,
                code="not_an_object",
                message=f"{name} must be a JSON object, got {type(value).__name__}",
                path=path,
            )
        )
        return None
    return value


def parse_annotation(result: Iterable[Mapping[str, Any]], context: str = "") -> ParsedAnnotation:
    """Read the editors (question, json_schema, ground_truth, evidence, notes, flag resolutions), the evidence
    spans marked on `context` and the verdict of one annotation.

    JSON that does not parse, a schema that is not a JSON Schema, an answer that does not validate
    against the schema and evidence that cannot be read are problems: the record goes back to the curator
    with them.
    """
    result = list(result or [])
    texts, choices = _texts(result)
    problems: list[Reason] = []
    evidence, evidence_problems = ls_evidence.parse_evidence(result, texts.get("evidence", ""), context)
    problems += evidence_problems
    question = texts.get("question", "")
    if not question:
        problems.append(Reason(stage=STAGE, code="missing_question", message="question is empty", path="$.question"))
    elif len(question) > MAX_STRING_CHARS:  # the input limit on any one value, before anything is stored
        message = f"question has {len(question):,} characters (at most {MAX_STRING_CHARS:,})"
        problems.append(Reason(stage=STAGE, code="value_too_long", message=message, path="$.question"))
        question = question[:MAX_STRING_CHARS]
    schema = _parse_json_editor("json_schema", texts.get("json_schema", ""), problems)
    answer = _parse_json_editor("ground_truth", texts.get("ground_truth", ""), problems)
    question, answer = characters.normalised(question), characters.normalised(answer)  # one normalisation (NFC)
    problems += [
        Reason(stage=STAGE, code=code, message=f"ground_truth{where[1:]}: {message}", path=f"$.ground_truth{where[1:]}")
        for where, code, message in characters.value_problems(answer or {})
    ]
    if schema is not None and answer is not None:
        # The full schema checks are the validation stage's; this catches what a curator can fix at once.
        # (A metaschema check per record costs milliseconds; an unusable schema fails here anyway.)
        try:
            validator_cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
            errors = sorted(validator_cls(schema).iter_errors(answer), key=lambda e: list(e.absolute_path))
        except Exception as exc:  # noqa: BLE001 - any failure here means the schema is unusable
            problems.append(
                Reason(
                    stage=STAGE,
                    code="invalid_json_schema",
                    message=f"json_schema cannot be used to validate: {type(exc).__name__}: {exc}".strip(),
                    path="$.json_schema",
                )
            )
        else:
            for error in errors[:5]:
                where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
                problems.append(
                    Reason(
                        stage=STAGE,
                        code="ground_truth_invalid",
                        message=f"ground_truth{where} does not validate against the schema: {error.message}",
                        path=f"$.ground_truth{where}",
                    )
                )
    verdict = choices[0] if choices else None
    if verdict is None:
        problems.append(
            Reason(
                stage=STAGE,
                code="missing_verdict",
                message=f"no verdict: choose one of {', '.join(VERDICTS)}",
                path="$.verdict",
            )
        )
    elif verdict not in VERDICTS:
        problems.append(
            Reason(
                stage=STAGE,
                code="unknown_verdict",
                message=f"verdict {verdict!r} is not one of {', '.join(VERDICTS)}",
                path="$.verdict",
            )
        )
    return ParsedAnnotation(
        question=question,
        json_schema=schema,
        ground_truth=answer,
        verdict=verdict,
        notes=texts.get("notes", ""),
        problems=problems,
        evidence=evidence,
        flag_resolutions=texts.get("flag_resolutions", ""),
    )


def latest_annotation(annotations: Iterable[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The latest submitted (non-cancelled) annotation: newest `updated_at`, then highest id."""
    live = [a for a in annotations or [] if not a.get("was_cancelled")]
    if not live:
        return None
    return max(live, key=lambda a: (str(a.get("updated_at") or ""), int(a.get("id") or 0)))
