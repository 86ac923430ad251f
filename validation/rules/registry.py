"""The registry of rules: every rule module's `RULES`, by code; the engine and the catalogue page read them."""

from __future__ import annotations

from validation.rules import evidence, fields, judge, neighbours, schema
from validation.rules.model import Rule

MODULES = (schema, evidence, fields, neighbours, judge)


def _by_code() -> dict[str, Rule]:
    found: dict[str, Rule] = {}
    for module in MODULES:
        for rule in module.RULES:
            if rule.code in found:
                raise ValueError(f"rule {rule.code} is registered twice")
            found[rule.code] = rule
    return found


_RULES = _by_code()


def all_rules() -> list[Rule]:
    return sorted(_RULES.values(), key=lambda r: (r.stage != "validation", r.family, r.code))


def rule_for(code: str) -> Rule | None:
    """The rule that emits `code` (an exact code first, then a family such as `pydantic_*`)."""
    found = _RULES.get(code)
    if found is not None:
        return found
    return next((rule for rule in _RULES.values() if rule.matches(code)), None)
