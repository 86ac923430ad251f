"""The registry of rules: each rule module registers its rules here; the engine and the catalogue page read them."""

from __future__ import annotations

from validation.rules.model import Rule

_RULES: dict[str, Rule] = {}


class UnknownRule(ValueError):
    pass


def register(*rules: Rule) -> None:
    for rule in rules:
        if rule.code in _RULES:
            raise ValueError(f"rule {rule.code} is registered twice")
        _RULES[rule.code] = rule


def all_rules() -> list[Rule]:
    _load()
    return sorted(_RULES.values(), key=lambda r: (r.stage != "validation", r.family, r.code))


def rule_for(code: str) -> Rule | None:
    """The rule that emits `code` (an exact code first, then a family such as `pydantic_*`)."""
    _load()
    found = _RULES.get(code)
    if found is not None:
        return found
    return next((rule for rule in _RULES.values() if rule.matches(code)), None)


def _load() -> None:
    # The rule modules register on import; imported here, not at the top, so they can import this module.
    from validation.rules import evidence, fields, judge, neighbours, schema  # noqa: F401
