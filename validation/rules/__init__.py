"""The gate's rules as a catalogue: one unit per code (docs/rules.md is generated from it), and the rule set a run
selects (`rule_set`)."""

from validation.rules.model import Example, Outcome, Rule
from validation.rules.registry import all_rules, rule_for

__all__ = ["Example", "Outcome", "Rule", "all_rules", "rule_for"]
