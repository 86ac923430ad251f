"""Score every model's predictions on a release: per-record SOB metrics, means with CIs, field scores.

As SOB does, a model is scored on the records it has a prediction for; with `count_missing`
(`--count-missing`) every record of the release is scored and a record without a prediction scores
as a parse failure. Either way the records without one are counted in `missing_predictions`.
Predictions for record ids the release does not hold are not scored and are counted in
`unknown_records` (the first few ids are listed); a model none of whose predictions match a record
of the release is an error (predictions for another release).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.progress import tracked
from scoring.aggregate import DEFAULT_BOOTSTRAP_SAMPLES, summarize
from scoring.fields import MISSING, EvaluationConfigError, FieldReport, score_fields
from scoring.inputs import Predictions, Release, ScoringInputError
from scoring.sob import NO_RESPONSE, SOB_RULES, RecordScore, Reference, ScoringOptions, parse_response, score_response
from scoring.sob_files import ScoredRecord, big_integers

LISTED_IDS = 10


@dataclass
class ModelResult:
    model: str
    records: list[ScoredRecord]
    missing_predictions: int = 0
    unknown_records: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # record ids whose response was nested too deep to score
    fields: dict[str, Any] | None = None

    @property
    def scores(self) -> list[RecordScore]:
        return [r.score for r in self.records]

    @property
    def weights(self) -> list[float]:
        return [r.weight for r in self.records]

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


def build_references(release: Release, options: ScoringOptions = SOB_RULES) -> dict[str, Reference]:
    return {
        rid: Reference.build(rid, record.ground_truth, record.json_schema, options)
        for rid, record in release.records.items()
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
    """One model's records (the options are the references'), with ExtractBench field outcomes."""
    scored: list[ScoredRecord] = []
    field_reports: list[FieldReport] = []
    field_errors: list[str] = []
    missing, refused = 0, []
    with big_integers():
        for rid, record in release.records.items():
            reference = references[rid]
            response = responses.get(rid, NO_RESPONSE)
            missing += response is NO_RESPONSE
            if response is NO_RESPONSE and not reference.options.count_missing:
                continue
            try:
                score = score_response(reference, response, release.modality)
            except RecursionError:
                refused.append(rid)
                continue
            scored.append(
                ScoredRecord(
                    record_id=rid,
                    model_id=model,
                    schema_complexity=record.schema_complexity or "unknown",
                    question_difficulty=record.question_difficulty or "unknown",
                    score=score,
                )
            )
            if reference.has_field_config:
                parsed, candidate = parse_response(response, parse_text=reference.options.parse_text)
                try:  # an unparsable or absent response leaves every field missing
                    field_reports.append(
                        score_fields(record.ground_truth, candidate if parsed else MISSING, record.json_schema)
                    )
                except EvaluationConfigError as exc:
                    field_errors.append(f"{rid}: {exc}")
                except RecursionError:
                    field_errors.append(f"{rid}: response nested too deep to compare field by field")
    result = ModelResult(
        model=model,
        records=scored,
        missing_predictions=missing,
        unknown_records=sorted(rid for rid in responses if rid not in release.records),
        refused=refused,
    )
    if field_reports or field_errors:
        result.fields = _field_summary(field_reports) | {"config_errors": field_errors[:LISTED_IDS]}
    return result


def check_matches(release: Release, predictions: Predictions) -> None:
    """Error when a model's predictions match no record of the release (another release's ids)."""
    for model, responses in sorted(predictions.by_model.items()):
        if responses and not any(rid in release.records for rid in responses):
            example = next(iter(responses))
            raise ScoringInputError(
                f"none of the {len(responses)} predictions of {model} is for a record of release "
                f"{release.path} (e.g. record id {example!r}): are they for another release?"
            )


def score_models(release: Release, predictions: Predictions, options: ScoringOptions = SOB_RULES) -> list[ModelResult]:
    check_matches(release, predictions)
    references = build_references(release, options)
    models = sorted(predictions.by_model.items())
    return [
        score_model(release, references, model, responses)
        for model, responses in tracked(models, "score", total=len(models), unit="model")
    ]


def evaluate(
    release: Release,
    predictions: Predictions,
    *,
    samples: int = DEFAULT_BOOTSTRAP_SAMPLES,
    seed: int = 42,
    options: ScoringOptions = SOB_RULES,
    results: list[ModelResult] | None = None,
) -> dict[str, Any]:
    """The whole report: one summary per model, plus the prediction lines that were rejected."""
    results = results if results is not None else score_models(release, predictions, options)
    rejected = [vars(r) for r in predictions.rejections]
    for result in results:
        for rid in result.refused:
            file, line = predictions.origin.get(result.model, {}).get(rid, ("", 0))
            rejected.append({"file": file, "line": line, "reason": "nested deeper than Python can score: refused"})
    return {
        "release": {"path": str(release.path), "config": release.config, "version": release.version},
        "modality": release.modality,
        "records": len(release.records),
        "options": [name for name, on in vars(options).items() if on],
        "models": [result.summary(samples, seed) for result in results],
        "prediction_lines": predictions.lines,
        "rejected_lines": rejected,
    }
