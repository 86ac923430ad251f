"""A project's rule set: `--select/--ignore/--reject` (build_split) and `rule_set`, which a project file can feed."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.calibration import validated
from judge.gate import decide
from judge.heuristic import HeuristicJudge
from judge.rule_worth import cases_by_reference, example_record
from validation.rules import DEFAULT, RuleSelectionError, rule_for, rule_set

ROOT = Path(__file__).resolve().parents[2]


def _outcome(judge: HeuristicJudge, code: str) -> tuple[str, list[str]]:
    rule = rule_for(code)
    assert rule is not None
    record, report = validated(example_record(rule.wrong, cases_by_reference(ROOT)))
    verdict = judge.judge(record, report, 60)
    return decide(record, verdict).outcome, [flag.code for flag in verdict.flags]


def test_the_defaults_flag_and_an_ignored_rule_does_not() -> None:
    assert _outcome(HeuristicJudge(), "weak_question") == ("needs_review", ["weak_question"])
    ignored = HeuristicJudge(rule_set(ignore=["weak_question"]))
    assert _outcome(ignored, "weak_question") == ("passed", [])
    assert ignored.version != HeuristicJudge().version  # judged afresh, never a stored verdict of other rules


def test_a_flag_made_a_rejection_rejects_with_its_code_in_the_reason() -> None:
    judge = HeuristicJudge(rule_set(reject=["weak_question"]))
    rule = rule_for("weak_question")
    assert rule is not None
    record, report = validated(example_record(rule.wrong, {}))
    verdict = judge.judge(record, report, 60)
    decision = decide(record, verdict)
    assert decision.outcome == "rejected"
    assert "weak_question" in decision.reasons[0].message


def test_select_runs_only_the_selected_flags_and_every_rejection() -> None:
    chosen = rule_set(select=["unit_mismatch"])
    assert chosen.raises("unit_mismatch") and chosen.raises("evidence_mismatch")
    assert not chosen.raises("weak_question")
    assert chosen.describe()["on"].count("unit_mismatch") == 1
    assert "weak_question" in chosen.describe()["off"]
    assert rule_set() == DEFAULT and DEFAULT.is_default


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"ignore": ["nope"]}, "--ignore: unknown rule code 'nope'"),
        ({"select": ["unit_mismatch", "typo"]}, "--select: unknown rule code 'typo'"),
        ({"ignore": ["missing_property"]}, "--ignore: missing_property guards against a schema error or data loss"),
        ({"reject": ["unexplained_null"]}, "--reject: unexplained_null is a note rule, not a flag"),
    ],
)
def test_a_bad_selection_is_refused_with_one_line(kwargs: dict[str, list[str]], message: str) -> None:
    with pytest.raises(RuleSelectionError) as raised:
        rule_set(**kwargs)
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value)


def test_build_split_refuses_an_unknown_code(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from build_split.cli import main

    code = main(["--source", "hotpotqa", "--sample", "--workspace", str(tmp_path), "--judge", "heuristic",
                 "--ignore", "unit_mismatch,bogus"])  # fmt: skip
    assert code == 2
    assert "error: --ignore: unknown rule code 'bogus'" in capsys.readouterr().err
