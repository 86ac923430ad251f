"""Exit codes 6 and 7: a run that finished but left conflicts unapplied, or drew a short audit, says so on its last
line and in its exit code; LLM failures (3, 4) still come first."""

from __future__ import annotations

from collections import Counter

from authoring.audit import AuditRun
from build_split import exit_codes
from build_split.exit_codes import StageFailures
from build_split.pipeline import CONFLICTS_KEY, RunSummary


def test_a_full_audit_and_no_conflict_exit_0() -> None:
    summary = RunSummary(imported={"new": 3, CONFLICTS_KEY: 0}, audit=AuditRun("a", asked=5, smallest_round=5))
    assert summary.exit_code == exit_codes.OK and summary.failure_lines() == []


def test_conflicts_left_unapplied_exit_6_and_say_how_many() -> None:
    summary = RunSummary(imported={"new": 0, CONFLICTS_KEY: 2})
    assert summary.exit_code == exit_codes.CONFLICTS_NOT_APPLIED == 6
    (line,) = summary.failure_lines()
    assert line.startswith("2 incoming version(s) conflict") and "--overwrite" in line


def test_an_audit_that_drew_fewer_than_asked_exits_7_and_says_how_many() -> None:
    audit = AuditRun("a", asked=100, smallest_round=7)
    summary = RunSummary(audit=audit)
    assert audit.short and summary.exit_code == exit_codes.AUDIT_SHORT == 7
    (line,) = summary.failure_lines()
    assert "asked for 100 record(s) per round" in line and "holds only 7" in line
    assert any("not the 100 asked" in shown for shown in audit.lines())


def test_llm_failures_come_before_conflicts() -> None:
    failed = StageFailures("judge", "gemini:m", counts=Counter(transient=1))
    summary = RunSummary(imported={CONFLICTS_KEY: 1}, llm_failures=[failed])
    assert summary.exit_code == exit_codes.LLM_UNAVAILABLE
    assert len(summary.failure_lines()) == 2  # both said
