"""SOB's metrics on hand-built cases, the paper's worked example, hardening, gates and type safety."""

from __future__ import annotations

import json

import pytest

from scoring.paths import flatten
from scoring.sob import (
    CATEGORIES,
    METRICS,
    NO_RESPONSE,
    OPTION_FLAGS,
    SOB_RULES,
    Reference,
    ScoringOptions,
    coverage_gate,
    score_response,
    type_safety_of,
)

TOOLKIT = ScoringOptions(**dict.fromkeys(OPTION_FLAGS, True))  # every refinement on

PERSON = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}, "city": {"type": "string"}},
    "required": ["name", "age", "city"],
}


def ref(truth, schema=PERSON, options=SOB_RULES):
    return Reference.build("r", truth, schema, options)


def test_appendix_f_worked_example():
    # SOB Appendix F: one wrong leaf value out of three, structure intact.
    truth = {"name": "Alice", "age": 30, "city": "Paris"}
    score = score_response(ref(truth), {"name": "Alice", "age": 30, "city": "London"})
    m = score.metrics
    assert m["json_pass_rate"] == 1.0
    assert m["value_accuracy"] == pytest.approx(2 / 3)
    assert m["faithfulness"] == pytest.approx(2 / 3)
    assert (m["path_recall"], m["structure_coverage"], m["type_safety"]) == (1.0, 1.0, 1.0)
    assert m["perfect_response"] == 0.0
    assert score.wrong_paths == ["city"] and score.missing_paths == []
    assert score.category("Strict Precision") == 0.0
    assert score.category("Multi-Context Linking") == pytest.approx(2 / 3)
    assert score.category("Complex Schema Handling") == 1.0


NULLABLE = {
    "type": "object",
    "properties": {
        "title": {"type": "string"},
        "sequel": {"anyOf": [{"$ref": "#/$defs/name"}, {"type": "null"}]},
        "awards": {"type": "array", "items": {"type": "string"}},
        "cast": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "age": {"type": ["integer", "null"]}},
            },
        },
        "meta": {"type": "object"},
        "rating": {"type": "number"},
    },
    "$defs": {"name": {"type": "string"}},
}


@pytest.mark.parametrize(
    "truth",
    [
        {"name": "Alice", "age": 30, "city": "Paris"},
        {
            "title": "Arrival",
            "sequel": None,
            "awards": [],
            "cast": [{"name": "Amy", "age": None}],
            "meta": {},
            "rating": 7,
        },
        {"title": "Dune", "sequel": "Dune 2", "awards": ["a", "b"], "cast": [], "meta": {"k": 1}, "rating": 8.5},
    ],
)
def test_ground_truth_against_itself_is_perfect_with_the_refinements(truth):
    schema = PERSON if "city" in truth else NULLABLE
    for response in (truth, json.dumps(truth), "  " + json.dumps(truth) + "\n"):
        metrics = score_response(ref(truth, schema, TOOLKIT), response).metrics
        assert all(v == 1.0 for v in metrics.values()), metrics


def test_paths_have_concrete_indices_and_quoted_keys():
    leaves = flatten({"a": [{"b": 1}, {"b": 2}], "c.d": "x", "e": [], "f": {}})
    assert leaves == {"a[0].b": 1, "a[1].b": 2, '["c.d"]': "x", "e": [], "f": {}}


def test_arrays_are_scored_by_index():
    schema = {"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "string"}}}}
    m = score_response(ref({"xs": ["a", "b"]}, schema), {"xs": ["b", "a"]}).metrics
    assert m["value_accuracy"] == 0.0 and m["path_recall"] == 1.0 and m["perfect_response"] == 0.0


@pytest.mark.parametrize(
    "response, parse, root",
    [
        (
            '```json\n{"name": "Alice", "age": 30, "city": "Paris"}\n```',
            0.0,
            0.0,
        ),  # fenced: SOB scores parsed JSON only
        ('Sure! {"name": "Alice"}', 0.0, 0.0),
        (NO_RESPONSE, 0.0, 0.0),
        ("42", 0.0, 0.0),
        ('"Alice"', 0.0, 0.0),
        (None, 0.0, 0.0),  # SOB's runners store null for a failed call
        (42, 0.0, 0.0),
        (True, 0.0, 0.0),
        ('{"name": "Alice", "age": 30, "city": "Paris"}', 0.0, 0.0),  # text: SOB parses only objects
    ],
)
def test_unparsed_or_scalar_responses_score_zero(response, parse, root):
    for options in (ScoringOptions(), TOOLKIT):
        m = score_response(ref({"name": "Alice", "age": 30, "city": "Paris"}, options=options), response).metrics
        if options.parse_text and isinstance(response, str) and response.startswith("{"):
            assert m["json_parse_success"] == 1.0 and m["perfect_response"] == 1.0  # --parse-text reads it
            continue
        assert (m["json_parse_success"], m["json_root_structured"]) == (parse, root)
        assert all(m[name] == 0.0 for name in METRICS)


def test_hardening_zeroes_a_response_that_breaks_the_schema():
    truth = {"name": "Alice", "age": 30, "city": "Paris"}
    score = score_response(ref(truth), {"name": "Alice", "age": "30", "city": "Paris"})
    assert score.metrics["json_pass_rate"] == 0.0
    assert all(score.metrics[name] == 0.0 for name in METRICS)
    assert score.raw["value_accuracy"] == pytest.approx(2 / 3)  # the raw numbers are kept for diagnosis
    assert score.raw["type_safety"] == pytest.approx(2 / 3)


def test_an_unusable_schema_fails_the_sub_check():
    score = score_response(Reference.build("r", {"a": 1}, {"type": "object", "properties": 5}), {"a": 1})
    assert score.metrics["schema_valid_input"] == 0.0 and score.metrics["json_pass_rate"] == 0.0
    assert score.metrics["perfect_response"] == 1.0  # canonical equality is not hardened, as in SOB


def test_values_are_python_equal_by_default_and_json_equal_with_numeric_faithfulness():
    schema = {"type": "object", "properties": {"x": {}}}
    sob = {"x": True}, {"x": 1.0}, {"x": "1"}
    assert [score_response(ref({"x": 1}, schema), r).metrics["value_accuracy"] for r in sob] == [1.0, 1.0, 0.0]
    json_equal = ScoringOptions(numeric_faithfulness=True)
    assert [score_response(ref({"x": 1}, schema, json_equal), r).metrics["value_accuracy"] for r in sob] == [
        0.0,
        1.0,
        0.0,
    ]


def test_faithfulness_spells_numbers_as_sob_unless_numeric_faithfulness():
    schema = {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": ["string", "null"]}}}
    truth = {"x": 3, "y": None}
    raw = score_response(ref(truth, schema), {"x": 3.0})  # "3" vs "3 0"; the missing y is read as null
    assert raw.raw["faithfulness"] == pytest.approx((2 / 3 + 1.0) / 2)
    numeric = score_response(ref(truth, schema, ScoringOptions(numeric_faithfulness=True)), {"x": 3.0})
    assert numeric.raw["faithfulness"] == pytest.approx(0.5)  # 3 == 3.0 scores 1, the missing null key 0


def test_faithfulness_gives_partial_credit_for_tokens():
    schema = {"type": "object", "properties": {"t": {"type": "string"}}}
    m = score_response(ref({"t": "The Eiffel Tower in Paris"}, schema), {"t": "Eiffel Tower"}).metrics
    # truth tokens: eiffel tower in paris (4), predicted: eiffel tower (2): P=1, R=0.5
    assert m["faithfulness"] == pytest.approx(2 / 3)
    assert m["value_accuracy"] == 0.0


def test_text_coverage_gate_is_a_step_at_095():
    schema = {"type": "object", "properties": {f"k{i}": {"type": "integer"} for i in range(20)}}
    truth = {f"k{i}": i for i in range(20)}
    nineteen = {f"k{i}": i for i in range(19)}  # coverage F1 = 2*1*0.95/1.95 = 0.974 -> passes
    assert score_response(ref(truth, schema), nineteen).metrics["value_accuracy"] == pytest.approx(0.95)
    eighteen = {f"k{i}": i for i in range(18)}  # F1 = 0.947 < 0.95 -> gated to 0
    m = score_response(ref(truth, schema), eighteen).metrics
    assert m["value_accuracy"] == 0.0 and m["faithfulness"] == 0.0
    assert m["path_recall"] == pytest.approx(0.9) and m["structure_coverage"] == pytest.approx(2 * 0.9 / 1.9)


def test_image_and_audio_gate_is_soft():
    assert coverage_gate("image", 0.9) == 1.0 and coverage_gate("audio", 1.0) == 1.0
    assert coverage_gate("image", 0.45) == pytest.approx(0.25)
    assert coverage_gate("audio", 0.0) == 0.0
    assert coverage_gate("text", 0.949) == 0.0 and coverage_gate("text", 0.95) == 1.0
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}
    score = score_response(ref({"a": 1, "b": 2}, schema), {"a": 1}, "image")  # F1 = 2/3
    assert score.metrics["value_accuracy"] == pytest.approx(0.5 * min(1, ((2 / 3) / 0.9) ** 2))


def test_type_safety_per_leaf():
    assert type_safety_of({"name": "A", "age": "30", "city": "P"}, PERSON) == pytest.approx(2 / 3)
    assert type_safety_of({"name": "A", "age": 30, "zip": "8000"}, PERSON) == pytest.approx(2 / 3)  # undeclared
    assert type_safety_of({"title": "x", "sequel": None, "rating": 3}, NULLABLE) == 1.0  # integer is a number
    assert type_safety_of({"sequel": 5}, NULLABLE) == 0.0
    assert type_safety_of({"cast": [{"name": "A", "age": None}, {"name": 3, "age": 4}]}, NULLABLE) == 0.75


def test_extra_paths_lower_structure_coverage_not_recall():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}
    m = score_response(ref({"a": 1}, schema), {"a": 1, "b": 2}).metrics
    assert m["path_recall"] == 1.0 and m["structure_coverage"] == pytest.approx(2 / 3)
    assert m["value_accuracy"] == 0.0  # 0.667 < 0.95: the text gate closes


def test_categories_are_means_of_their_components():
    score = score_response(
        ref({"name": "Alice", "age": 30, "city": "Paris"}), {"name": "Bob", "age": 30, "city": "Paris"}
    )
    for name, components in CATEGORIES.items():
        assert score.category(name) == pytest.approx(sum(score.metrics[c] for c in components) / len(components))


def test_free_form_objects_and_arrays_type_anything_below_them():
    schema = {"type": "object", "properties": {"meta": {"type": "object"}, "tags": {"type": "array"}}}
    value = {"meta": {"a": {"b": [1, "x"]}}, "tags": [{"k": 1}, 2]}
    assert type_safety_of(value, schema) == 1.0
    closed = {"type": "object", "properties": {"meta": {"type": "object", "properties": {"a": {"type": "string"}}}}}
    assert type_safety_of({"meta": {"a": "x", "b": "y"}}, closed) == 0.5


def test_nan_is_a_number_as_sob_reads_it_and_never_equal_to_itself():
    schema = {"type": "object", "properties": {"a": {"type": ["number", "null"]}}}
    nan = float("nan")
    m = score_response(ref({"a": nan}, schema), {"a": nan}).metrics
    assert m["json_parse_success"] == 1.0 and m["json_pass_rate"] == 1.0
    assert m["perfect_response"] == 1.0 and m["value_accuracy"] == 0.0  # same text, but NaN != NaN
    assert m["faithfulness"] == 1.0  # "nan" against "nan"
    text = ScoringOptions(parse_text=True)
    for spelled in ('{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}'):
        assert score_response(ref({"a": None}, schema, text), spelled).metrics["json_parse_success"] == 1.0


def test_schemas_are_draft_7():
    dependencies = {"type": "object", "properties": {"a": {}, "b": {}}, "dependencies": {"a": ["b"]}}
    assert score_response(ref({"a": 1, "b": 2}, dependencies), {"a": 1}).metrics["json_pass_rate"] == 0.0
    tuple_items = {"type": "object", "properties": {"p": {"type": "array", "items": [{"type": "integer"}]}}}
    m = score_response(ref({"p": [1]}, tuple_items), {"p": [1]}).metrics
    assert m["schema_valid_input"] == 1.0 and m["json_pass_rate"] == 1.0  # usable in Draft 7
    prefix = {"type": "object", "properties": {"p": {"type": "array", "prefixItems": [{"type": "string"}]}}}
    assert score_response(ref({"p": [1]}, prefix), {"p": [1]}).metrics["json_pass_rate"] == 1.0  # not a Draft 7 word


def test_sob_type_safety_reads_one_declared_type_by_path():
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": ["string", "null"]},
            "b": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "c": {"type": "array", "items": [{"type": "object", "properties": {"x": {"type": "string"}}}]},
            "d": {"type": "number"},
        },
    }
    truth = {"a": "x", "b": "y", "c": [{"x": "z"}], "d": 1}
    sob = score_response(ref(truth, schema), truth)
    assert sob.raw["type_safety"] == pytest.approx(2 / 4)  # a and d typed; anyOf and list-form items are not
    refined = score_response(ref(truth, schema, ScoringOptions(nullable_types=True)), truth)
    assert refined.raw["type_safety"] == 1.0
    empty = score_response(ref({}, {"type": "object"}), {})
    assert empty.raw["type_safety"] == 0.0 and empty.metrics["structure_coverage"] == 0.0  # SOB: no leaf, 0


def test_required_key_recall_and_missing_paths_as_sob_lists_them():
    schema = {
        "type": "object",
        "properties": {"p": {"type": "array", "items": {"type": "object", "required": ["q"]}}, "r": {}},
        "required": ["p", "r"],
    }
    score = score_response(ref({"p": [{"q": 1}], "r": 2}, schema), {"p": [{}]})
    assert score.required_key_recall == pytest.approx(1 / 3) and score.missing_required_paths == ["p[].q", "r"]
    assert score.missing_paths == ["p[0].q", "r"]
    unparsed = score_response(ref({"p": [{"q": 1}], "r": 2}, schema), "text")
    assert unparsed.required_key_recall == 0.0 and unparsed.missing_required_paths == ["p", "p[].q", "r"]
