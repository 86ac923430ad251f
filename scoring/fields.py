"""ExtractBench-style per-field scoring: the schema says how each field is compared.

A schema node may carry `evaluation_config`, either a preset name or
`{"metric": PRESET, "threshold": 0.9, "tolerance": 0.0, "relative_tolerance": 0.0}`:

- `string_exact`, `string_case_insensitive` (case and runs of whitespace ignored),
  `string_fuzzy` (rapidfuzz `ratio` of the case-folded strings >= `threshold`, default 0.9);
- `number_tolerance` (|a - b| <= max(`tolerance`, `relative_tolerance` x |truth|), default exact),
  `integer_exact` (3 and 3.0 are the same integer), `boolean_exact`;
- on an array: `array_unordered` pairs predicted and true items by the Hungarian algorithm on
  their field scores (order ignored); `array_ordered` (the default, as SOB scores) pairs by index.

A field without a config is compared by the true value's type: strings exact, integers exact,
other numbers exact, booleans exact. Nothing here reads the context.

Missing and null are different states, and each true leaf gets exactly one outcome:
`match`; `mismatch` (a different value, or the wrong type); `missing` (the key or item is absent:
an omission); `null_predicted` (null where the truth has a value: an omission the model admitted);
`hallucinated` (a value where the truth is null). Keys or items the truth does not have are
`extra` (a hallucinated field). A true null answered with null is a `match`; a true null whose key
is absent is `missing`, not a match.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from rapidfuzz import fuzz
from scipy.optimize import linear_sum_assignment

from scoring.paths import child_path
from scoring.text import canonical, json_kind
from validation.schema_nav import item_schema, merge_all_of, property_schema, resolve

STRING_PRESETS = ("string_exact", "string_case_insensitive", "string_fuzzy")
SCALAR_PRESETS = (*STRING_PRESETS, "number_tolerance", "integer_exact", "boolean_exact")
ARRAY_PRESETS = ("array_ordered", "array_unordered")
PRESETS = (*SCALAR_PRESETS, *ARRAY_PRESETS)
OUTCOMES = ("match", "mismatch", "missing", "null_predicted", "hallucinated", "extra")
DEFAULT_FUZZY_THRESHOLD = 0.9


class EvaluationConfigError(ValueError):
    """A schema's `evaluation_config` names no known preset or has a bad parameter."""


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()


@dataclass(frozen=True)
class FieldConfig:
    metric: str | None = None
    threshold: float = DEFAULT_FUZZY_THRESHOLD
    tolerance: float = 0.0
    relative_tolerance: float = 0.0

    @classmethod
    def parse(cls, raw: Any, path: str) -> FieldConfig:
        if raw is None:
            return cls()
        if isinstance(raw, str):
            raw = {"metric": raw}
        if not isinstance(raw, dict):
            raise EvaluationConfigError(f"{path}: evaluation_config must be a preset name or an object, got {raw!r}")
        metric = raw.get("metric")
        if metric not in PRESETS:
            raise EvaluationConfigError(f"{path}: unknown evaluation_config metric {metric!r}; known: {list(PRESETS)}")
        numbers = {}
        for name, default in (("threshold", DEFAULT_FUZZY_THRESHOLD), ("tolerance", 0.0), ("relative_tolerance", 0.0)):
            value = raw.get(name, default)
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0 or not math.isfinite(value):
                raise EvaluationConfigError(f"{path}: evaluation_config {name} must be a number >= 0, got {value!r}")
            numbers[name] = float(value)
        if numbers["threshold"] > 1:
            raise EvaluationConfigError(
                f"{path}: evaluation_config threshold is a ratio in [0, 1], got {raw['threshold']}"
            )
        return cls(metric=metric, **numbers)


@dataclass(frozen=True)
class FieldResult:
    path: str
    outcome: str
    metric: str


@dataclass
class FieldReport:
    results: list[FieldResult] = field(default_factory=list)

    @property
    def counts(self) -> Counter[str]:
        return Counter(r.outcome for r in self.results)

    @property
    def true_fields(self) -> int:
        return sum(1 for r in self.results if r.outcome != "extra")

    @property
    def score(self) -> float:
        """Matched true fields / true fields (1.0 for an empty truth and no extras)."""
        fields_ = self.true_fields
        if fields_ == 0:
            return 0.0 if self.counts["extra"] else 1.0
        return self.counts["match"] / fields_

    def summary(self) -> dict[str, Any]:
        counts = self.counts
        fields_ = self.true_fields
        return {
            "fields": fields_,
            "score": self.score,
            **{outcome: counts[outcome] for outcome in OUTCOMES},
            "omission_rate": (counts["missing"] + counts["null_predicted"]) / fields_ if fields_ else 0.0,
            "hallucination_count": counts["hallucinated"] + counts["extra"],
        }


def has_evaluation_config(schema: Any) -> bool:
    if isinstance(schema, dict):
        return "evaluation_config" in schema or any(has_evaluation_config(v) for v in schema.values())
    if isinstance(schema, list):
        return any(has_evaluation_config(v) for v in schema)
    return False


def score_fields(truth: Any, prediction: Any, schema: Any) -> FieldReport:
    """Per-field outcomes of a prediction against the truth, by the schema's evaluation configs."""
    report = FieldReport()
    _Walker(schema).walk(truth, prediction, schema, "", report.results)
    return report


def _default_metric(value: Any) -> str:
    kind = json_kind(value)
    if kind == "string":
        return "string_exact"
    if kind == "boolean":
        return "boolean_exact"
    if isinstance(value, int):
        return "integer_exact"
    return "number_tolerance"


def compare_scalar(truth: Any, predicted: Any, config: FieldConfig) -> bool:
    metric = config.metric if config.metric in SCALAR_PRESETS else _default_metric(truth)
    if metric in STRING_PRESETS:
        if not isinstance(truth, str) or not isinstance(predicted, str):
            return False
        if metric == "string_exact":
            return truth == predicted
        a, b = " ".join(truth.casefold().split()), " ".join(predicted.casefold().split())
        if metric == "string_case_insensitive":
            return a == b
        return fuzz.ratio(a, b) / 100 >= config.threshold
    if metric == "boolean_exact":
        return isinstance(truth, bool) and isinstance(predicted, bool) and truth == predicted
    if json_kind(truth) != "number" or json_kind(predicted) != "number":
        return False
    if metric == "integer_exact":
        return float(truth).is_integer() and float(predicted).is_integer() and int(truth) == int(predicted)
    allowed = max(config.tolerance, config.relative_tolerance * abs(truth))
    return abs(truth - predicted) <= allowed


class _Walker:
    def __init__(self, root: Any) -> None:
        self.root = root

    def _node(self, node: Any) -> Any:
        node = resolve(node, self.root)
        if isinstance(node, dict) and isinstance(node.get("allOf"), list):
            node = merge_all_of(node, self.root)
        return node if isinstance(node, dict) else {}

    def _config(self, node: dict[str, Any], path: str) -> FieldConfig:
        return FieldConfig.parse(node.get("evaluation_config"), path or "$")

    def walk(self, truth: Any, predicted: Any, node: Any, path: str, out: list[FieldResult]) -> None:
        node = self._node(node)
        config = self._config(node, path)
        if isinstance(truth, dict) and truth:
            if not isinstance(predicted, dict):
                self._whole(truth, predicted, node, path, out)
                return
            for key, child in truth.items():
                _, child_node = property_schema(node, key)
                self.walk(child, predicted.get(key, MISSING), child_node, child_path(path, key), out)
            out.extend(FieldResult(child_path(path, k), "extra", "-") for k in predicted if k not in truth)
            return
        if isinstance(truth, list) and truth:
            if not isinstance(predicted, list):
                self._whole(truth, predicted, node, path, out)
                return
            if config.metric == "array_unordered":
                self._unordered(truth, predicted, node, path, out)
            else:
                for index, child in enumerate(truth):
                    item = predicted[index] if index < len(predicted) else MISSING
                    self.walk(child, item, item_schema(node, index), f"{path}[{index}]", out)
                out.extend(FieldResult(f"{path}[{i}]", "extra", "-") for i in range(len(truth), len(predicted)))
            return
        out.append(FieldResult(path or "$", self._leaf_outcome(truth, predicted, config), self._metric(truth, config)))

    def _metric(self, truth: Any, config: FieldConfig) -> str:
        if config.metric in SCALAR_PRESETS:
            return config.metric
        if isinstance(truth, dict | list):
            return "json_exact"
        return "null_exact" if truth is None else _default_metric(truth)

    def _leaf_outcome(self, truth: Any, predicted: Any, config: FieldConfig) -> str:
        if predicted is MISSING:
            return "missing"
        if truth is None:
            return "match" if predicted is None else "hallucinated"
        if predicted is None:
            return "null_predicted"
        if isinstance(truth, dict | list):  # an empty container
            return "match" if canonical(truth) == canonical(predicted) else "mismatch"
        return "match" if compare_scalar(truth, predicted, config) else "mismatch"

    def _whole(self, truth: Any, predicted: Any, node: Any, path: str, out: list[FieldResult]) -> None:
        """A container answered by something else: each true leaf below gets the same outcome."""
        below: list[FieldResult] = []
        self.walk(truth, truth, node, path, below)  # the true leaves, with their metrics
        if predicted is MISSING:
            outcome = "missing"
        elif predicted is None:
            outcome = "null_predicted"
        else:
            outcome = "mismatch"
        out.extend(FieldResult(r.path, outcome, r.metric) for r in below)

    def _unordered(self, truth: list[Any], predicted: list[Any], node: Any, path: str, out: list[FieldResult]) -> None:
        trials: dict[tuple[int, int], list[FieldResult]] = {}
        matrix = np.zeros((len(truth), len(predicted)))
        for i, item in enumerate(truth):
            for j, guess in enumerate(predicted):
                results: list[FieldResult] = []
                self.walk(item, guess, item_schema(node, i), f"{path}[{i}]", results)
                trials[i, j] = results
                scored = [r for r in results if r.outcome != "extra"]
                matrix[i, j] = sum(r.outcome == "match" for r in scored) / len(scored) if scored else 0.0
        rows, cols = linear_sum_assignment(matrix, maximize=True) if matrix.size else ([], [])
        paired = dict(zip(rows, cols, strict=True))
        for i, item in enumerate(truth):
            if i in paired:
                out.extend(trials[i, paired[i]])
            else:
                self.walk(item, MISSING, item_schema(node, i), f"{path}[{i}]", out)
        used = set(paired.values())
        out.extend(FieldResult(f"{path}[+{j}]", "extra", "-") for j in range(len(predicted)) if j not in used)
