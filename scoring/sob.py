"""SOB's metrics for one response, with the hardening factor and the coverage gates.

By default every rule is SOB's public evaluator's (JigsawStack/sob `evaluate.py`), so a record
scores here what it scores there:

- A response counts as parsed only when it is a JSON object or array (text, null, numbers and
  booleans do not parse: SOB scores parsed objects, and its runners store `null` for a failed call).
- JSON pass rate (`json_pass_rate`, SOB `schema_compliance`): the record's schema passes Draft 7's
  metaschema and the response validates against it with Draft 7 (formats not asserted).
- Leaf paths: keys joined by `.`, array items by `[i]`; empty objects and arrays have no leaf.
- Value accuracy (`value_accuracy`, SOB `leaf_value_em`): true leaf paths whose predicted value is
  `==` in Python (3 == 3.0 and true == 1) / true leaf paths; 1 when the truth has no leaf.
- Faithfulness (`faithfulness`, SOB `value_token_f1`): mean over true leaves of the token F1 of the
  two values written as text (lower case, no punctuation, no articles; 3.0 is "3 0", so 3 vs 3.0 is
  0.667); a missing path is read as null, so a null truth whose key is missing scores 1.
- Path recall and structure coverage (`path_recall`, `structure_coverage` = SOB `hier_path_recall`,
  `path_set_f1`): recall and F1 of the predicted leaf paths; 0 when either side has none.
- Type safety (`type_safety`, SOB `type_precision`): predicted leaves whose type is the one the
  schema declares at that path, followed by `properties` and `items` only (`scoring.sob_paths`) /
  predicted leaves; 0 for a response with no leaf.
- Perfect response (`perfect_response`, SOB `strict_json_em`): the response (null when not parsed)
  and the truth are the same text as sorted-key JSON. Not hardened.
- Required key recall (SOB `required_key_recall`, reported per record, not in the means).

Hardening: value accuracy, faithfulness, path recall, coverage and type safety are multiplied by
`parse x structured root x schema compliance`. Coverage gate, on value accuracy and faithfulness:
text needs structure coverage >= 0.95 (else 0); image and audio get min(1, (F1 / 0.90)^2).

Three departures from SOB's code, where SOB's evaluator stops with an exception instead of scoring:
a remote `$ref` is not fetched (the response does not comply), a schema SOB's path reader cannot
follow types nothing, and a response nested past Python's recursion limit is refused on its line.

The toolkit's refinements are one named option each (`ScoringOptions`), off by default.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from jsonschema import Draft7Validator
from referencing import Registry

from scoring import paths as toolkit_paths
from scoring import sob_paths
from scoring.text import same_value, token_f1_counts, tokens
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
# The toolkit's metric names -> SOB's field names in eval_records.jsonl and eval_summary.json.
SOB_FIELD: dict[str, str] = {
    "json_parse_success": "json_parse_success",
    "json_root_structured": "json_root_structured",
    "schema_valid_input": "schema_valid_input",
    "json_pass_rate": "schema_compliance",
    "value_accuracy": "leaf_value_em",
    "faithfulness": "value_token_f1",
    "path_recall": "hier_path_recall",
    "structure_coverage": "path_set_f1",
    "type_safety": "type_precision",
    "perfect_response": "strict_json_em",
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


@dataclass(frozen=True)
class ScoringOptions:
    """The toolkit's refinements of SOB's rules; all off means SOB's evaluator exactly."""

    # A response given as text is parsed with json.loads (SOB: text never parses).
    parse_text: bool = False
    # Type safety follows the schema as a validator does: nullable types, anyOf/oneOf/allOf, $ref,
    # free-form objects and maps, arrays without items, enum and untyped leaves; a response with no
    # leaf is type-safe (SOB: `properties`/`items` with one `type` only).
    nullable_types: bool = False
    # An empty object or array is a leaf, keys that are not plain names are quoted, and a ratio
    # over no paths on either side is 1 (SOB: no leaf, so `{}` against `{}` scores 0 coverage).
    empty_containers: bool = False
    # Values compared as JSON: 3 equals 3.0 (faithfulness 1, SOB 0.667), true never equals 1,
    # and a missing key scores 0 even when the truth is null (SOB: 1).
    numeric_faithfulness: bool = False
    # With a release: a record with no prediction scores as a parse failure in the model's means
    # (SOB scores only the records a response file holds).
    count_missing: bool = False


SOB_RULES = ScoringOptions()
OPTION_FLAGS: dict[str, str] = {  # option -> CLI flag
    "parse_text": "--parse-text",
    "nullable_types": "--nullable-types",
    "empty_containers": "--empty-containers",
    "numeric_faithfulness": "--numeric-faithfulness",
    "count_missing": "--count-missing",
}


class NoResponse:
    """Marks a record the predictions file has no response for (scored as a parse failure)."""

    def __repr__(self) -> str:
        return "NO_RESPONSE"


NO_RESPONSE = NoResponse()
_NO_REMOTE_REFS = Registry()  # a schema's remote $ref is never fetched: it is unresolvable
_schema_checks: dict[str, Draft7Validator | None] = {}


def sob_json(value: Any) -> str:
    """SOB's canonical spelling (`json.dumps`, sorted keys, compact): its perfect-response test."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def draft7_validator(schema: Any) -> Draft7Validator | None:
    """The Draft 7 validator of a schema that passes Draft 7's metaschema, else None (cached)."""
    if not isinstance(schema, dict):
        return None
    key = sob_json(schema)
    if key not in _schema_checks:
        try:
            Draft7Validator.check_schema(schema)
            _schema_checks[key] = Draft7Validator(json.loads(key), registry=_NO_REMOTE_REFS)
        except Exception:  # noqa: BLE001 - any failure of the metaschema check is an unusable schema, as in SOB
            _schema_checks[key] = None
    return _schema_checks[key]


@dataclass
class Reference:
    """A record's ground truth and schema, prepared once and scored against many responses."""

    record_id: str
    ground_truth: Any
    schema: Any
    options: ScoringOptions
    leaves: dict[str, Any]
    leaf_tokens: dict[str, Counter[str]]
    canonical: str
    validator: Draft7Validator | None
    required: list[str]
    has_field_config: bool = False
    # canonical response -> (compliant, type safety, required key recall, missing required paths):
    # the schema work, done once per distinct answer (models often give the same answer).
    schema_memo: dict[str, tuple[bool, float, float, list[str]]] = field(default_factory=dict, repr=False)
    type_memo: dict[str, str | None] = field(default_factory=dict, repr=False)

    @property
    def schema_usable(self) -> bool:
        return self.validator is not None

    @classmethod
    def build(cls, record_id: str, ground_truth: Any, schema: Any, options: ScoringOptions = SOB_RULES) -> Reference:
        leaves = _flatten(ground_truth, options)
        validator = draft7_validator(schema)
        try:
            required = sob_paths.required_paths(schema)
        except RecursionError:
            required = []
        return cls(
            record_id=record_id,
            ground_truth=ground_truth,
            schema=schema,
            options=options,
            leaves=leaves,
            leaf_tokens={path: Counter(tokens(value)) for path, value in leaves.items()},
            canonical=sob_json(ground_truth),
            validator=validator,
            required=required,
            has_field_config=validator is not None and '"evaluation_config"' in sob_json(schema),
        )


@dataclass
class RecordScore:
    record_id: str
    metrics: dict[str, float]  # the seven metrics and the three sub-checks, hardened and gated
    raw: dict[str, float]  # value accuracy, faithfulness, path recall, coverage, type safety before hardening
    required_key_recall: float = 0.0
    missing_paths: list[str] = field(default_factory=list)  # sorted, as SOB's missing_gt_paths
    missing_required_paths: list[str] = field(default_factory=list)
    wrong_paths: list[str] = field(default_factory=list)

    def category(self, name: str) -> float:
        components = CATEGORIES[name]
        return sum(self.metrics[m] for m in components) / len(components)


def _flatten(value: Any, options: ScoringOptions) -> dict[str, Any]:
    return toolkit_paths.flatten(value) if options.empty_containers else sob_paths.flatten(value)


def parse_response(response: Any, *, parse_text: bool = False) -> tuple[bool, Any]:
    """(parsed?, value): parsed means a JSON object or array; text only with `parse_text`."""
    if isinstance(response, dict | list):
        return True, response
    if parse_text and isinstance(response, str):
        try:
            value = json.loads(response.strip())
        except (ValueError, RecursionError):  # RecursionError: nested past what Python can read
            return False, None
        if isinstance(value, dict | list):
            return True, value
    return False, None


def coverage_gate(modality: Modality, structure_coverage: float) -> float:
    if modality == "text":
        return 1.0 if structure_coverage >= TEXT_COVERAGE_THRESHOLD else 0.0
    if structure_coverage <= 0:
        return 0.0
    return min(1.0, (structure_coverage / SOFT_COVERAGE_TARGET) ** 2)


def _ratio(numerator: float, denominator: float, *, empty: float = 0.0) -> float:
    return numerator / denominator if denominator else empty


def _complies(candidate: Any, validator: Draft7Validator) -> bool:
    try:
        return validator.is_valid(candidate)
    except Exception:  # noqa: BLE001 - SOB's evaluator stops here (unresolvable $ref, bad regex): no compliance
        return False


def _sob_type_precision(candidate_leaves: dict[str, Any], reference: Reference) -> float:
    if not candidate_leaves:
        return 0.0
    memo = reference.type_memo
    matches = 0
    for path, value in candidate_leaves.items():
        if path not in memo:
            memo[path] = sob_paths.type_at(reference.schema, path)
        expected = memo[path]
        matches += expected is not None and sob_paths.type_matches(value, expected)
    return matches / len(candidate_leaves)


def _required_recall(candidate: Any, reference: Reference) -> tuple[float, list[str]]:
    wanted = sorted(set(reference.required))
    if not wanted:
        return 1.0, []
    present = sob_paths.present_paths(candidate)
    missing = [path for path in wanted if path not in present]
    return (len(wanted) - len(missing)) / len(wanted), missing


def _schema_work(
    candidate: Any, spelled: str, predicted: dict[str, Any], reference: Reference
) -> tuple[bool, float, float, list[str]]:
    memo = reference.schema_memo.get(spelled)
    if memo is None:
        validator = reference.validator
        assert validator is not None
        if reference.options.nullable_types:
            safety = type_safety_of(candidate, reference.schema)
        else:
            safety = _sob_type_precision(predicted, reference)
        recall, missing = _required_recall(candidate, reference)
        memo = (_complies(candidate, validator), safety, recall, missing)
        reference.schema_memo[spelled] = memo
    return memo


def score_response(reference: Reference, response: Any, modality: Modality = "text") -> RecordScore:
    """All metrics of one response against one reference (see the module docstring). A response
    nested past Python's recursion limit raises RecursionError: the caller refuses its line."""
    options = reference.options
    parsed, candidate = parse_response(response, parse_text=options.parse_text)
    spelled = sob_json(candidate)  # null when not parsed, as in SOB
    truth = reference.leaves
    # The same text means the same leaves, except that NaN is not == to itself (as in SOB).
    identical = parsed and spelled == reference.canonical and "NaN" not in spelled
    predicted = truth if identical else _flatten(candidate, options) if parsed else {}
    if parsed and reference.validator is not None:
        compliant, type_safety, required_recall, missing_required = _schema_work(
            candidate, spelled, predicted, reference
        )
    else:
        compliant, type_safety, required_recall = False, 0.0, 0.0
        missing_required = list(reference.required)
    common = truth.keys() & predicted.keys()
    if options.empty_containers:
        path_recall = _ratio(len(common), len(truth), empty=1.0 if not predicted else 0.0)
        both_empty = not truth and not predicted and parsed
    else:
        path_recall = _ratio(len(common), len(truth))
        both_empty = False
    if truth and predicted:
        precision, recall = len(common) / len(predicted), len(common) / len(truth)
        coverage = 2 * precision * recall / (precision + recall) if common else 0.0
    else:
        coverage = 1.0 if both_empty else 0.0

    if identical:
        correct = list(truth)
    elif options.numeric_faithfulness:
        correct = [p for p in truth if p in predicted and same_value(truth[p], predicted[p])]
    else:
        correct = [p for p in truth if p in predicted and truth[p] == predicted[p]]
    correct_set = set(correct)
    empty_truth = 1.0 if (parsed or not options.empty_containers) else 0.0
    value_accuracy = _ratio(len(correct), len(truth), empty=empty_truth)
    if options.numeric_faithfulness:  # an equal value scores 1; a missing path scores 0
        f1_sum = len(correct) + sum(
            token_f1_counts(reference.leaf_tokens[p], Counter(tokens(predicted[p])))
            for p in truth
            if p in predicted and p not in correct_set
        )
    else:  # SOB: every path by its tokens, a missing one read as null
        f1_sum = (
            float(len(truth))
            if identical
            else sum(
                token_f1_counts(truth_tokens, Counter(tokens(predicted.get(p))))
                for p, truth_tokens in reference.leaf_tokens.items()
            )
        )
    faithfulness = _ratio(f1_sum, len(truth), empty=empty_truth)

    hardening = 1.0 if compliant else 0.0
    gate = coverage_gate(modality, coverage)
    metrics = {
        "json_pass_rate": hardening,
        "value_accuracy": value_accuracy * hardening * gate,
        "faithfulness": faithfulness * hardening * gate,
        "path_recall": path_recall * hardening,
        "structure_coverage": coverage * hardening,
        "type_safety": type_safety * hardening,
        "perfect_response": 1.0 if spelled == reference.canonical else 0.0,
        "json_parse_success": 1.0 if parsed else 0.0,
        "json_root_structured": 1.0 if parsed else 0.0,
        "schema_valid_input": 1.0 if reference.validator is not None else 0.0,
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
        required_key_recall=required_recall,
        missing_paths=sorted(truth.keys() - predicted.keys()),
        missing_required_paths=missing_required,
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
