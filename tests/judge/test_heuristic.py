import random

import pytest

from core.models import Record, SourceItem
from core.verdicts import ComplexityInfo, GroundingInfo, ValidationReport
from judge.heuristic import HeuristicJudge, multi_turn
from judge.heuristic_answers import answer_match
from judge.heuristic_slips import any_word_in_context
from judge.heuristic_text import leaf_list, leaves, normalize

SCHEMA = {
    "type": "object",
    "properties": {
        "people": {
            "type": "array",
            "description": "people compared",
            "items": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
        },
        "same": {"type": "boolean", "description": "same nationality"},
        "basis": {"type": "string", "description": "what is compared"},
    },
    "required": ["people", "same", "basis"],
}
HARD = ComplexityInfo(level="hard", properties=4, top_level_properties=3, required=4, leaves=3, depth=3)


QUESTION = "Were the people named A and B of the same nationality?"
CONTEXT = "A is a writer of nat nationality. B is a painter of nat nationality."


def make(answer: str | None, ground_truth: dict, source: str = "hotpotqa", context: str = CONTEXT) -> Record:
    item = SourceItem(source=source, source_id="s1", context=context, question=QUESTION, answer=answer)
    return Record.build(item, QUESTION, SCHEMA, ground_truth)


def report(fraction: float, ungrounded: list[str] | None = None) -> ValidationReport:
    return ValidationReport(
        passed=True,
        grounding=GroundingInfo(
            leaves=4, grounded=round(4 * fraction), fraction=fraction, ungrounded_paths=ungrounded or []
        ),
        complexity=HARD,
    )


def test_yes_no_answer_matches_a_boolean_leaf() -> None:
    assert answer_match("yes", {"same": True})[0] == 100
    assert answer_match("no", {"same": True})[0] < 60
    assert answer_match("no", {"same": False})[0] == 100


def test_numbers_match_however_typed() -> None:
    assert answer_match("1,500", {"n": 1500})[0] == 100
    assert answer_match("1976", {"year": "1976"})[0] == 100
    assert answer_match("3", {"n": 3.0})[0] == 100
    assert answer_match("1977", {"year": 1976})[0] < 60


def test_strings_match_after_normalisation() -> None:
    assert answer_match("The Tidewaters", {"x": {"y": ["the tidewaters"]}})[0] == 100
    assert answer_match("University of Oslo", {"u": "Oslo University of"})[0] < 60


def test_good_record_passes_every_dimension() -> None:
    verdict = HeuristicJudge().judge(
        make("yes", {"people": [{"name": "A"}], "same": True, "basis": "nat"}), report(1.0), 60
    )
    assert verdict.passed, verdict
    assert set(verdict.scores) == {"accuracy", "grounding", "schema_quality", "question_quality"}
    assert verdict.judge == "heuristic" and verdict.version.startswith("heuristic-")


def test_what_it_cannot_prove_is_flagged_not_rejected() -> None:
    """A seed answer contradicted and a value not found may still be right: flags for a person, with reasons."""
    verdict = HeuristicJudge().judge(
        make("yes", {"people": [{"name": "A"}], "same": False, "basis": "nat"}), report(0.25, ["$.basis"]), 60
    )
    assert verdict.passed
    assert [(f.code, f.path) for f in verdict.flags] == [("seed_answer_mismatch", "$")]
    assert "yes" in verdict.flags[0].reason and "seed answer" in verdict.flags[0].reason
    assert "$.basis" in verdict.rationales["grounding"]


def test_an_answer_with_no_value_is_rejected() -> None:
    verdict = HeuristicJudge().judge(make("yes", {"people": [], "same": None, "basis": None}), report(0.0), 60)
    assert verdict.failing_dimensions() == ["accuracy"]


def test_rules_of_thumb_on_quality_flag_below_the_threshold() -> None:
    record = make("yes", {"people": [{"name": "A"}], "same": True, "basis": "nat"})
    assert HeuristicJudge().judge(record, report(0.7), 60).passed
    strict = HeuristicJudge().judge(record, report(0.7), 95)
    assert strict.passed and "weak_question" in {f.code for f in strict.flags}


def test_audio_records_get_a_multi_turn_score() -> None:
    """One utterance answering everything is reported, not rejected: the LLM judge weighs multi-turn quality."""
    transcript = "[0:01] A: WE SHOULD USE RUBBER\n[0:05] B: I AGREE\n[0:09] C: MAURO WILL DRAW IT"
    assert multi_turn(transcript, {"material": "RUBBER", "owner": "MAURO"})[0] >= 60
    assert multi_turn(transcript, {"material": "RUBBER"})[0] < 60
    verdict = HeuristicJudge().judge(make(None, {"m": "RUBBER"}, "ami", transcript), report(1.0), 60)
    assert "multi_turn" in verdict.scores and "measured 30" in verdict.rationales["multi_turn"]


def test_leaves_are_listed_in_document_order() -> None:
    value = {"a": [1, {"b": None}], "c": {"d": "x"}, "e": []}
    assert leaf_list(value) == [("$.a[0]", 1), ("$.a[1].b", None), ("$.c.d", "x")]
    assert list(leaves(value)) == leaf_list(value)


@pytest.mark.parametrize(
    ("words", "context", "found"),
    [
        (["derrickson"], "Scott Derrickson (born 1966) is a director.", True),
        (["us"], "He moved to the U.S. in 1990.", True),  # joined only once normalised
        (["derrick"], "Scott Derrickson is a director.", False),
        (["woods"], "Ed Wood's films", True),
        (["wood"], "Ed Wood's films", False),
        (["bʼ"], "1S5– Bʼ_", False),  # "ʼ" survives normalising, but not between two word characters
        (["cafe"], "le Café—bar", False),
        (["café"], "le Café—bar", True),
        ([], "anything", False),
    ],
)
def test_a_question_word_is_a_whole_word_of_the_normalised_context(words: list[str], context: str, found: bool) -> None:
    assert any_word_in_context(words, context) is found


def test_the_quick_word_test_agrees_with_the_normalised_context() -> None:
    """Random texts of separators, joining marks, control characters and non-ASCII letters and symbols."""
    alphabet = list("ab AB.,'’ʼ_-\n\t\x01\x7féÉ–“”ßﬁ½²\u0301\u00a0\u3000U1") + ["ab", "a.b", "a'b"]
    rng = random.Random(7)
    for _ in range(20_000):
        context = "".join(rng.choices(alphabet, k=rng.randint(0, 24)))
        words = normalize("".join(rng.choices(alphabet, k=rng.randint(1, 10)))).split()
        expected = any(f" {w} " in f" {normalize(context)} " for w in words)
        assert any_word_in_context(words, context) is expected, (context, words)


def test_lines_of_values_are_counted_from_the_transcript_start() -> None:
    transcript = "[0:01] A: RUBBER\n[0:05] B: I AGREE\n[0:09] C: PLASTIC\n[0:12] D: MAURO"
    assert multi_turn(transcript, {"m": "RUBBER", "o": "MAURO"}, {"$.m": (10, 16), "$.o": (62, 67)})[0] == 75
    assert multi_turn(transcript, {"m": "RUBBER", "o": "MAURO"}, {"$.m": (10, 16), "$.o": (12, 16)})[0] == 30


@pytest.mark.parametrize(
    ("seed", "truth", "agrees"),
    [
        ("Réunion", {"island": "Reunion"}, True),
        ("FBS", {"division": "Football Bowl Subdivision"}, True),
        ("FBS", {"division": "Football Championship Subdivision"}, False),
        ("5,2 billion", {"revenue": 5200000000}, True),
        ("seven", {"arches": 7}, True),
        ("seven", {"arches": 8}, False),
        ("Chief of Protocol", {"position": "Chief of Protocol of the United States"}, True),
    ],
)
def test_a_seed_answer_written_another_way_agrees(seed: str, truth: dict, agrees: bool) -> None:
    assert (answer_match(seed, truth)[0] >= 60) is agrees


def test_the_seed_answer_in_another_field_than_the_one_asked() -> None:
    question = "What screenwriter with credits for Evolution co-wrote The Family Man?"
    swapped = {"screenwriter": "David Diamond", "co_writer": "David Weissman", "film": "The Family Man"}
    right = {"screenwriter": "David Weissman", "co_writer": "David Diamond", "film": "The Family Man"}
    assert answer_match("David Weissman", swapped, question)[0] < 60
    assert answer_match("David Weissman", right, question)[0] == 100
