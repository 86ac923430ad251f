"""The gate's rules as a catalogue: one unit per code (docs/rules.md is generated from it), and the rule set a run
selects (`rule_set`)."""

from validation.rules.model import Example, Outcome, Rule
from validation.rules.registry import all_rules, rule_for
from validation.rules.selection import DEFAULT, RuleSelectionError, RuleSet, rule_set

__all__ = [
    "DEFAULT",
    "Example",
    "Outcome",
    "Rule",
    "RuleSelectionError",
    "RuleSet",
    "all_rules",
    "rule_for",
    "rule_set",
]
