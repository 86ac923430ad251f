"""SOB's seven metrics for one response, with the hardening factor and the coverage gates.

Definitions follow SOB's public evaluator (JigsawStack/sob `evaluate.py`, paper §4 and Appendix F):

- JSON pass rate (`json_pass_rate`): the response parses, its root is an object or array, the
  record's schema is usable, and the response validates against it (formats off).
- Value accuracy (`value_accuracy`): the share of ground-truth leaf paths whose predicted value at
  the same path is equal (paths carry concrete array indices, so arrays are scored by index).
- Faithfulness (`faithfulness`): the mean over ground-truth leaves of the token F1 between the
  ground-truth value and the predicted value at the same path (lower case, no punctuation, no
  articles; a missing path scores 0; an equal value scores 1, so 3 and 3.0 agree).
- Path recall (`path_recall`): ground-truth leaf paths present in the response / ground-truth leaf paths.
- Structure coverage (`structure_coverage`): F1 of the predicted and ground-truth leaf path sets.
- Type safety (`type_safety`): predicted leaves whose JSON type the schema allows at their path /
  predicted leaves (an integer is a number; a key the schema does not declare is a mismatch,
  except inside a free-form object that declares no properties).
- Perfect response (`perfect_response`): the response equals the ground truth as canonical JSON.

Hardening: every metric but perfect response is multiplied by `parse x structured root x schema
compliance`, so an invalid response scores 0. Coverage gate, on value accuracy and faithfulness
only: text needs structure coverage >= 0.95 (else 0); image and audio get min(1, (F1 / 0.90)^2).

Sub-checks kept per record: `json_parse_success`, `json_root_structured`, `schema_valid_input`.

Where this module differs from SOB's code, on purpose (each keeps "the ground truth scored against
itself gives 1.0"): values are compared as JSON (`true` != 1; SOB uses Python `==`); a nullable
type (`["string", "null"]`, or an `anyOf` with a null branch) accepts null in type safety (SOB keeps
only the non-null type); empty objects and arrays are leaves (see `scoring.paths`); a ratio over
zero ground-truth paths is 1.0 when the response has none either. A response given as text is
parsed with `json.loads` after trimming whitespace; text around the JSON (a Markdown fence, a
preamble) is a parse failure, as in SOB, which scores only parsed objects.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from referencing.exceptions import Unresolvable

from scoring.paths import flatten
from scoring.text import canonical, same_value, token_f1_counts, tokens
from validation.cache import schema_key
from validation.ground_truth import compiled_validator
from validation.schema_check import check_schema, is_schema_usable
from validation.schema_nav import accepts, branches, item_schema, merge_all_of, property_schema, resolve

Modality = Literal["text", "image", "audio"]
MODALITY_OF_CONFIG: dict[str, Modality] = {"default": "text", "image": "image", "audio": "audio"}

# The seven headline metrics, in SOB's table order, with SOB's display names.
METRICS: dict[str, str] = {
    "json_pass_rate": "JSON Pass Rate",
    "value_accuracy": "Value Accuracy",
    "faithfulness": "Faithfulness",
    "path_recall": "Path Recall",
    "structure_coverage": "Structure Coverage",
    "type_safety": "Type Safety",
    "perfect_response": "Perfect Response",
}
SUB_CHECKS: dict[str, str] = {
    "json_parse_success": "JSON Parse Success",
    "json_root_structured": "Structured JSON Root",
    "schema_valid_input": "Schema Valid Input",
}
# SOB's five evaluation categories: a record's category score is the mean of its components.
CATEGORIES: dict[str, tuple[str, ...]] = {
    "Long Context Extraction": ("value_accuracy", "faithfulness", "path_recall"),
    "Complex Schema Handling": ("json_pass_rate", "structure_coverage", "type_safety"),
    "Multi-Context Linking": ("value_accuracy", "faithfulness"),
    "Output Contract Reliability": ("json_parse_success", "json_pass_rate", "type_safety"),
    "Strict Precision": ("perfect_response",),
}
TEXT_COVERAGE_THRESHOLD = 0.95
SOFT_COVERAGE_TARGET = 0.90


class NoResponse:
    """Marks a record the predictions file has no response for (scored as a parse failure)."""

    def __repr__(self) -> str:
        return "NO_RESPONSE"


NO_RESPONSE = NoResponse()


@dataclass
class Reference:
    """A record's ground truth and schema, prepared once and scored against many responses."""

    record_id: str
    ground_truth: Any
    schema: Any
    leaves: dict[str, Any]
    leaf_tokens: dict[str, Counter[str]]
    canonical: bytes
    schema_usable: bool
    schema_key: str | None
    has_field_config: bool = False
    # canonical response -> (schema compliance, type safety): the schema work, done once per distinct
    # answer (models often give the same answer, and validation is the expensive part).
    schema_memo: dict[bytes, tuple[bool, float]] = field(default_factory=dict, repr=False)

    @classmethod
    def build(cls, record_id: str, ground_truth: Any, schema: Any) -> Reference:
        leaves = flatten(ground_truth)
        key = schema_key(schema) if isinstance(schema, dict) else None
        usable = isinstance(schema, dict) and is_schema_usable(check_schema(schema, key=key))
        return cls(
            record_id=record_id,
            ground_truth=ground_truth,
            schema=schema,
            leaves=leaves,
            leaf_tokens={path: Counter(tokens(value)) for path, value in leaves.items()},
            canonical=canonical(ground_truth),
            schema_usable=usable,
            schema_key=key,
            has_field_config=usable and "evaluation_config" in canonical(schema).decode("utf-8"),
        )


@dataclass
class RecordScore:
    record_id: str
    metrics: dict[str, float]  # the seven metrics and the three sub-checks, hardened and gated
    raw: dict[str, float]  # value accuracy, faithfulness, path recall, coverage, type safety before hardening
    missing_paths: list[str] = field(default_factory=list)
    wrong_paths: list[str] = field(default_factory=list)

    def category(self, name: str) -> float:
        components = CATEGORIES[name]
        return sum(self.metrics[m] for m in components) / len(components)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # Python's json accepts NaN and Infinity; JSON does not


def parse_response(response: Any) -> tuple[bool, Any]:
    """(parsed?, value). Objects and arrays are taken as given; text must be exactly one JSON value."""
    if response is NO_RESPONSE:
        return False, None
    if isinstance(response, dict | list):
        return True, response
    if isinstance(response, str):
        try:
            return True, json.loads(response.strip(), parse_constant=_reject_constant)
        except ValueError:
            return False, None
    if response is None or isinstance(response, bool | int | float):
        return True, response  # a bare JSON scalar parsed upstream: parsed, but not a structured root
    return False, None


def coverage_gate(modality: Modality, structure_coverage: float) -> float:
    if modality == "text":
        return 1.0 if structure_coverage >= TEXT_COVERAGE_THRESHOLD else 0.0
    if structure_coverage <= 0:
        return 0.0
    return min(1.0, (structure_coverage / SOFT_COVERAGE_TARGET) ** 2)


def _ratio(numerator: float, denominator: float, *, empty: float) -> float:
    return numerator / denominator if denominator else empty


def _complies(candidate: Any, reference: Reference) -> bool:
    if not reference.schema_usable:
        return False
    try:
        return compiled_validator(reference.schema, key=reference.schema_key).is_valid(candidate)
    except (Unresolvable, RecursionError, ValueError):
        return False


def score_response(reference: Reference, response: Any, modality: Modality = "text") -> RecordScore:
    """All metrics of one response against one reference (see the module docstring)."""
    parsed, candidate = parse_response(response)
    structured = parsed and isinstance(candidate, dict | list)
    spelled = canonical(candidate) if parsed else b""
    compliant, type_safety = False, 0.0
    if structured:
        memo = reference.schema_memo.get(spelled)
        if memo is None:
            compliant = _complies(candidate, reference)
            type_safety = type_safety_of(candidate, reference.schema) if reference.schema_usable else 0.0
            reference.schema_memo[spelled] = (compliant, type_safety)
        else:
            compliant, type_safety = memo
    truth = reference.leaves
    identical = structured and spelled == reference.canonical
    predicted = truth if identical else flatten(candidate) if structured else {}
    common = truth.keys() & predicted.keys()
    path_recall = _ratio(len(common), len(truth), empty=1.0 if not predicted else 0.0)
    if truth and predicted:
        precision, recall = len(common) / len(predicted), len(common) / len(truth)
        coverage = 2 * precision * recall / (precision + recall) if common else 0.0
    else:
        coverage = 1.0 if not truth and not predicted and structured else 0.0
    if identical:
        correct = list(truth)
    else:
        correct = [path for path in truth if path in predicted and same_value(truth[path], predicted[path])]
    correct_set = set(correct)
    value_accuracy = _ratio(len(correct), len(truth), empty=1.0 if structured else 0.0)
    # An equal value has token F1 1; only the other leaves are tokenised.
    f1_sum = len(correct) + sum(
        token_f1_counts(reference.leaf_tokens[path], Counter(tokens(predicted[path])))
        for path in truth
        if path in predicted and path not in correct_set
    )
    faithfulness = _ratio(f1_sum, len(truth), empty=1.0 if structured else 0.0)

    hardening = 1.0 if compliant else 0.0
    gate = coverage_gate(modality, coverage)
    metrics = {
        "json_pass_rate": hardening,
        "value_accuracy": value_accuracy * hardening * gate,
        "faithfulness": faithfulness * hardening * gate,
        "path_recall": path_recall * hardening,
        "structure_coverage": coverage * hardening,
        "type_safety": type_safety * hardening,
        "perfect_response": 1.0 if parsed and spelled == reference.canonical else 0.0,
        "json_parse_success": 1.0 if parsed else 0.0,
        "json_root_structured": 1.0 if structured else 0.0,
        "schema_valid_input": 1.0 if reference.schema_usable else 0.0,
    }
    raw = {
        "value_accuracy": value_accuracy,
        "faithfulness": faithfulness,
        "path_recall": path_recall,
        "structure_coverage": coverage,
        "type_safety": type_safety,
    }
    return RecordScore(
        record_id=reference.record_id,
        metrics=metrics,
        raw=raw,
        missing_paths=[p for p in truth if p not in predicted],
        wrong_paths=[p for p in truth if p in predicted and p not in correct_set],
    )


# -- type safety -----------------------------------------------------------------------------------
def type_safety_of(candidate: Any, schema: Any) -> float:
    """Predicted leaves whose type the schema allows at their path / predicted leaves."""
    counts = [0, 0]  # [allowed, total]
    _walk_types(candidate, schema, schema, counts)
    return _ratio(counts[0], counts[1], empty=1.0)


def _effective(node: Any, root: Any) -> Any:
    node = resolve(node, root)
    if isinstance(node, dict) and isinstance(node.get("allOf"), list):
        node = merge_all_of(node, root)
    return node


def _leaf_allowed(node: Any, value: Any, root: Any, depth: int = 0) -> bool:
    node = _effective(node, root)
    if node is True or node == {}:
        return True
    if not isinstance(node, dict) or depth > 16:
        return False
    alternatives = branches(node)
    if alternatives is not None:
        return any(_leaf_allowed(branch, value, root, depth + 1) for branch in alternatives)
    return accepts(node, value)


def _container_schema(node: Any, value: Any, root: Any, depth: int = 0) -> Any:
    """The branch of `node` that describes a non-empty object or array value, or None."""
    node = _effective(node, root)
    if node is True:
        return {}
    if not isinstance(node, dict) or depth > 16:
        return None
    alternatives = branches(node)
    if alternatives is None:
        return node if accepts(node, value) else None
    for branch in alternatives:
        found = _container_schema(branch, value, root, depth + 1)
        if found is not None:
            return found
    return None


def _walk_types(value: Any, node: Any, root: Any, counts: list[int], declared: bool = True) -> None:
    if isinstance(value, dict | list) and value:
        container = _container_schema(node, value, root) if declared else None
        if isinstance(value, dict):
            # A free-form object (no `properties`, extra keys allowed) types nothing below it; an
            # object that names its fields makes every other key a mismatch, as in SOB.
            free_form = (
                container is not None
                and not container.get("properties")
                and container.get("additionalProperties", True) is True
            )
            for key, child in value.items():
                known, child_schema = property_schema(container, key) if container is not None else (False, None)
                if not known and free_form:
                    known, child_schema = True, True
                _walk_types(child, child_schema, root, counts, known)
        else:
            for index, child in enumerate(value):
                child_schema = item_schema(container, index) if container is not None else None
                if child_schema is None and container is not None and "items" not in container:
                    child_schema = True  # an array that declares no items: any item
                _walk_types(child, child_schema, root, counts, child_schema is not None)
        return
    counts[1] += 1
    if declared and _leaf_allowed(node, value, root):
        counts[0] += 1
