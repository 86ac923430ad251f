"""Score every model's predictions on a release: per-record SOB metrics, means with CIs, field scores.

Every record of the release is scored for every model: a record a model has no prediction for
scores as a parse failure (SOB's table is over all records), and is counted in
`missing_predictions`. Predictions for record ids the release does not hold are not scored and
are counted in `unknown_records` (the first few ids are listed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scoring.aggregate import DEFAULT_BOOTSTRAP_SAMPLES, record_weight, summarize
from scoring.fields import EvaluationConfigError, FieldReport, score_fields
from scoring.inputs import Predictions, Release
from scoring.sob import NO_RESPONSE, RecordScore, Reference, parse_response, score_response

LISTED_IDS = 10


@dataclass
class ModelResult:
    model: str
    scores: list[RecordScore]
    weights: list[float]
    missing_predictions: int = 0
    unknown_records: list[str] = field(default_factory=list)
    fields: dict[str, Any] | None = None

    def summary(self, samples: int = DEFAULT_BOOTSTRAP_SAMPLES, seed: int = 42) -> dict[str, Any]:
        out = {
            "model": self.model,
            **summarize(self.scores, self.weights, samples=samples, seed=seed),
            "missing_predictions": self.missing_predictions,
            "unknown_records": len(self.unknown_records),
            "unknown_record_examples": self.unknown_records[:LISTED_IDS],
        }
        if self.fields is not None:
            out["fields"] = self.fields
        return out


def build_references(release: Release) -> dict[str, Reference]:
    return {
        rid: Reference.build(rid, record.ground_truth, record.json_schema) for rid, record in release.records.items()
    }


def _field_summary(reports: list[FieldReport]) -> dict[str, Any]:
    totals: dict[str, float] = {}
    for report in reports:
        for key, value in report.summary().items():
            if key not in ("score", "omission_rate"):
                totals[key] = totals.get(key, 0) + value
    fields_ = totals.get("fields", 0)
    return {
        "records": len(reports),
        **{k: int(v) for k, v in totals.items()},
        "field_accuracy": totals.get("match", 0) / fields_ if fields_ else 0.0,
        "omission_rate": (totals.get("missing", 0) + totals.get("null_predicted", 0)) / fields_ if fields_ else 0.0,
    }


def score_model(
    release: Release, references: dict[str, Reference], model: str, responses: dict[str, Any]
) -> ModelResult:
    scores: list[RecordScore] = []
    weights: list[float] = []
    field_reports: list[FieldReport] = []
    field_errors: list[str] = []
    missing = 0
    for rid, record in release.records.items():
        response = responses.get(rid, NO_RESPONSE)
        missing += response is NO_RESPONSE
        scores.append(score_response(references[rid], response, release.modality))
        weights.append(record_weight(record.schema_complexity, record.question_difficulty))
        if references[rid].has_field_config:
            parsed, candidate = parse_response(response)
            try:
                field_reports.append(
                    score_fields(record.ground_truth, candidate if parsed else None, record.json_schema)
                )
            except EvaluationConfigError as exc:
                field_errors.append(f"{rid}: {exc}")
    result = ModelResult(
        model=model,
        scores=scores,
        weights=weights,
        missing_predictions=missing,
        unknown_records=sorted(rid for rid in responses if rid not in release.records),
    )
    if field_reports or field_errors:
        result.fields = _field_summary(field_reports) | {"config_errors": field_errors[:LISTED_IDS]}
    return result


def evaluate(
    release: Release,
    predictions: Predictions,
    *,
    samples: int = DEFAULT_BOOTSTRAP_SAMPLES,
    seed: int = 42,
    references: dict[str, Reference] | None = None,
) -> dict[str, Any]:
    """The whole report: one summary per model, plus the prediction lines that were rejected."""
    references = references or build_references(release)
    models = [
        score_model(release, references, model, responses).summary(samples, seed)
        for model, responses in sorted(predictions.by_model.items())
    ]
    return {
        "release": {"path": str(release.path), "config": release.config, "version": release.version},
        "modality": release.modality,
        "records": len(release.records),
        "models": models,
        "prediction_lines": predictions.lines,
        "rejected_lines": [vars(r) for r in predictions.rejections],
    }
