"""Rules of the offline heuristic judge (judge/heuristic.py): an answer with no value is rejected; the rest flag."""

from __future__ import annotations

import copy

from validation.rules.base import SCHEMA, case, lake
from validation.rules.model import Rule

RIGHT = lake("the lake record: every value stated, the seed answer agrees")
JUDGE = "judge.heuristic:HeuristicJudge.judge"
FAMILY = "heuristic judge"


def _nullable_schema() -> dict[str, object]:
    schema = copy.deepcopy(SCHEMA)
    for spec in schema["properties"].values():
        spec["type"] = [spec["type"], "null"]
    return schema


def _generic_schema() -> dict[str, object]:
    return {
        "type": "object",
        "properties": {"answer": {"type": "string"}, "value": {"type": "integer"}, "result": {"type": "number"}},
        "required": ["answer", "value", "result"],
        "additionalProperties": False,
    }


RULES = (
    Rule(
        code="low_accuracy",
        summary="An answer with no value at all (every leaf null, empty or a filler word), or a judge's accuracy "
        "score below the threshold.",
        outcome="reject",
        stage="judge",
        why="There is nothing to release: whatever a person says, the record answers nothing.",
        right=RIGHT,
        wrong=lake(
            "every value null",
            json_schema=_nullable_schema(),
            ground_truth={"lake": None, "built": None, "dam_height_m": None},
        ),
        checks=(JUDGE, "judge.heuristic:_laziness"),
        guards=True,
        family=FAMILY,
    ),
    Rule(
        code="lazy_answer",
        summary="More null leaves without `absent` evidence than values, or a value that copies most of the context.",
        outcome="flag",
        stage="judge",
        why="A half-filled answer or a pasted context is most often an unfinished record.",
        right=RIGHT,
        wrong=lake(
            "two of three values null",
            json_schema=_nullable_schema(),
            ground_truth={"lake": "Lake Varn", "built": None, "dam_height_m": None},
        ),
        checks=(JUDGE, "judge.heuristic:_laziness"),
        family=FAMILY,
    ),
    Rule(
        code="seed_answer_mismatch",
        summary="The dataset's own answer to the question is contradicted, in the wrong field, or the other option "
        "of a choice.",
        outcome="flag",
        stage="judge",
        why="HotpotQA's seed answer is checked by its authors: disagreeing with it is most often a slip.",
        right=case("calibration/hp-novels-right"),
        wrong=case("calibration/hp-novels-wrong-boolean", "the yes/no answer flipped"),
        checks=(JUDGE, "judge.heuristic_answers:_answer_match"),
        readings=("numbers", "dates", "units"),
        family=FAMILY,
    ),
    Rule(
        code="ungrounded_value",
        summary="A value not found in the context that looks like a slip: digits transposed or one off, a sign or a "
        "fraction dropped, a time on the wrong side of the clock, a name the context never mentions.",
        outcome="flag",
        stage="judge",
        why="A value not found is most often a right one written another way; only a near miss is asked about. "
        "(Validation records every value it cannot find as a note with the same code.)",
        right=case("calibration6/v6-olm-006"),
        wrong=case("calibration6/v6-olm-008", "a value the page does not state"),
        checks=(JUDGE, "judge.heuristic_slips:near_miss", "validation.evidence:check_evidence"),
        readings=("numbers", "dates", "clock", "money", "codes"),
        family=FAMILY,
    ),
    Rule(
        code="weak_schema",
        summary="The schema scores below the threshold on the rules a reviewer applies: typed, structured, "
        "described, not generic names.",
        outcome="flag",
        stage="judge",
        why="A weak schema tests little structure; a person decides whether to keep it.",
        right=RIGHT,
        wrong=lake(
            "generic names, no descriptions",
            json_schema=_generic_schema(),
            ground_truth={"answer": "Lake Varn", "value": 1931, "result": 38},
        ),
        checks=(JUDGE, "judge.heuristic:schema_quality"),
        family=FAMILY,
    ),
    Rule(
        code="weak_question",
        summary="The question is too short to ask for a structured answer, or one value answers it.",
        outcome="flag",
        stage="judge",
        why="A lookup of a single field is no structured-output test; a person decides whether to keep it.",
        right=RIGHT,
        wrong=lake("a three-word question", question="Lake Varn facts?"),
        checks=(JUDGE, "judge.heuristic:_question_quality"),
        family=FAMILY,
    ),
)
