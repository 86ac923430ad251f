"""The rule catalogue (validation/rules/): every rule's wrong example raises its code and its right example does
not; every code the gate's code can emit has an entry; every function an entry names exists."""

from __future__ import annotations

import ast
import importlib
import importlib.util
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from judge.calibration import Case
from judge.rule_worth import CodeTally, cases_by_reference, example_codes
from validation.rules import Rule, all_rules, rule_for

ROOT = Path(__file__).resolve().parents[2]
RULES = all_rules()
EMITTERS = {"doubt", "fail", "_fail", "_broken"}  # functions whose first argument is a code


@cache
def _cases() -> dict[str, Case]:
    return cases_by_reference(ROOT)


def _codes(rule: Rule, which: str) -> set[str]:
    return example_codes(rule, getattr(rule, which), _cases())


def _raised(rule: Rule, codes: set[str]) -> bool:
    return any(rule.matches(code) for code in codes)


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_the_wrong_example_raises_the_code(rule: Rule) -> None:
    codes = _codes(rule, "wrong")
    assert _raised(rule, codes), f"{rule.code}: its wrong example raised {sorted(codes)}"


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_the_right_example_does_not(rule: Rule) -> None:
    codes = _codes(rule, "right")
    assert not _raised(rule, codes), f"{rule.code}: its right example raised it ({sorted(codes)})"


def _emitted_codes() -> dict[str, str]:
    """Every code literal the checks can emit (code -> where), read from the source: a `code=` keyword, the
    first argument of an emitting helper, a "code: reason" string a quote resolver returns, a quality flag."""
    found: dict[str, str] = {}
    files = sorted((ROOT / "validation").rglob("*.py")) + sorted((ROOT / "judge").glob("heuristic*.py"))
    files += [ROOT / "core" / "limits.py"]
    for path in files:
        if "rules" in path.parts:
            continue
        where = str(path.relative_to(ROOT))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                for keyword in node.keywords:
                    if keyword.arg == "code":
                        found.update({code: where for code in _literals(keyword.value)})
                if name in EMITTERS and node.args:
                    found.update({code: where for code in _literals(node.args[0])})
                if name == "_Dialect" and node.args:
                    found.update({code: where for code in _literals(node.args[0])})
                if name == "_failures" and len(node.args) >= 2:  # core/limits.py: f"{what}_too_deep" / _too_large
                    what_node = node.args[1]
                    for what in [what_node.value] if isinstance(what_node, ast.Constant) else []:
                        found.update({f"{what}_too_deep": where, f"{what}_too_large": where})
            elif isinstance(node, ast.Dict) and any(_literals(k) == {"schema_quality"} for k in node.keys if k):
                found.update({code: where for value in node.values for code in _literals(value)})
            elif isinstance(node, ast.Return) and isinstance(node.value, (ast.JoinedStr, ast.Constant)):
                head = node.value.values[0] if isinstance(node.value, ast.JoinedStr) else node.value
                text = head.value if isinstance(head, ast.Constant) and isinstance(head.value, str) else ""
                code = text.split(":", 1)[0]
                if ":" in text and code.startswith("evidence_") and code.replace("_", "").isalpha():
                    found[code] = where
    return found


def _literals(node: ast.AST | None) -> set[str]:
    """The snake_case codes a code expression can be: a string, an f-string's fixed prefix as a family."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.replace("_", "").isalnum():
        return {node.value} if "_" in node.value and node.value.islower() else set()
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
        return {f"{node.values[0].value}*"}
    return set()


def test_every_emitted_code_has_an_entry() -> None:
    emitted = _emitted_codes()
    assert {"unit_mismatch", "possible_swap", "schema_not_a_schema", "evidence_not_in_context"} <= set(emitted)
    # A family ("pydantic_*") is looked up as one of its members.
    missing = {code: where for code, where in emitted.items() if rule_for(code.replace("*", "x")) is None}
    assert not missing, f"codes without a catalogue entry (validation/rules/): {missing}"


def test_every_entry_is_emitted_somewhere() -> None:
    emitted = set(_emitted_codes())
    orphans = [rule.code for rule in RULES if rule.code not in emitted and rule.code != "low_accuracy"]
    assert not orphans, f"catalogue entries no code emits: {orphans}"


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_the_checks_it_names_exist(rule: Rule) -> None:
    assert rule.summary and rule.why and rule.checks
    for check in rule.checks:
        module_name, _, attribute = check.partition(":")
        target: object = importlib.import_module(module_name)
        for part in attribute.split("."):
            assert hasattr(target, part), f"{rule.code}: {check} does not exist"
            target = getattr(target, part)


def test_no_file_of_the_gate_is_over_600_lines() -> None:
    files = sorted((ROOT / "validation").rglob("*.py")) + sorted((ROOT / "judge").rglob("*.py"))
    long = {str(p.relative_to(ROOT)): n for p in files if (n := len(p.read_text(encoding="utf-8").splitlines())) > 600}
    assert not long, f"split these by job: {long}"


def test_the_catalogue_page_is_current() -> None:
    spec = importlib.util.spec_from_file_location("gen_rule_catalogue", ROOT / "scripts/gen_rule_catalogue.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sets = module.measured_sets()
    worse = [code for code in module.worse_than_worthless(sets) if (rule := rule_for(code)) and rule.default]
    assert not worse, f"on by default, yet their flags hold more right answers than they catch wrong ones: {worse}"
    page = module.page(sets, module.costs())
    assert "| `unit_mismatch` |" in page or "[`unit_mismatch`]" in page
    assert module.PAGE.read_text(encoding="utf-8") == page, (
        "docs/rules.md is stale: run .venv/bin/python scripts/gen_rule_catalogue.py"
    )


def test_alone_counts_the_answers_a_flag_alone_held() -> None:
    """What turning a flag off would release: answers it held with no other flag and no rejection."""
    tally = CodeTally()
    tally.add("wrong", {"reject": set(), "flag": {"unit_mismatch"}, "note": set()})  # held by it alone
    tally.add("wrong", {"reject": set(), "flag": {"unit_mismatch", "possible_swap"}, "note": set()})  # not alone
    tally.add("wrong", {"reject": {"empty_array"}, "flag": {"unit_mismatch"}, "note": set()})  # rejected anyway
    # a note holds nothing
    tally.add("right", {"reject": set(), "flag": {"unit_mismatch"}, "note": {"unexplained_null"}})
    tally.add("right", {"reject": set(), "flag": set(), "note": set()})  # released
    unit, swap = rule_for("unit_mismatch"), rule_for("possible_swap")
    assert unit is not None and swap is not None
    assert tally.of(unit) == (1, 3)
    assert tally.alone(unit) == (1, 1)
    assert tally.alone(swap) == (0, 0)
    pydantic, note = rule_for("pydantic_*"), rule_for("unexplained_null")
    assert pydantic is not None and note is not None
    assert tally.alone(pydantic) is None and tally.alone(note) is None  # only a flag can be turned off to release
    merged = CodeTally()
    merged.update(tally)
    merged.update(tally)
    assert merged.alone(unit) == (2, 2) and merged.cases == Counter({"wrong": 6, "right": 4})
