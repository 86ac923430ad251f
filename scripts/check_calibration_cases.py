"""Checks labelled calibration case files (`python scripts/check_calibration_cases.py FILE...`).

Each line must parse, carry a unique id and a right/wrong label, a ground truth that validates against its
schema (Draft 2020-12, at least 3 top-level properties, no additional properties), an inline context for
AMI and olmOCR, and evidence whose quoted spans occur verbatim in that context.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from core.evidence import parse_evidence_map

INLINE_CONTEXT_SOURCES = ("ami", "olmocr")


def case_problems(case: dict, seen_ids: set[str]) -> list[str]:
    """Reasons this case is unusable (empty when it is fine); adds its id to `seen_ids`."""
    problems: list[str] = []
    if case.get("id") in seen_ids:
        problems.append("duplicate id")
    seen_ids.add(case.get("id"))
    if case.get("label") not in ("right", "wrong"):
        problems.append(f"label must be right or wrong, not {case.get('label')!r}")
    schema = case.get("json_schema") or {}
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return problems + [f"invalid schema: {exc.message}"]
    validator = Draft202012Validator(schema)
    problems += [f"ground truth: {e.message}" for e in validator.iter_errors(case.get("ground_truth"))]
    if len(schema.get("properties", {})) < 3:
        problems.append("schema declares fewer than 3 top-level properties")
    if schema.get("additionalProperties") is not False:
        problems.append("schema allows additional properties")
    context = case.get("context") or ""
    if case.get("source") in INLINE_CONTEXT_SOURCES and not context:
        problems.append("no inline context")
    evidence, unreadable = parse_evidence_map(case.get("evidence"))
    problems += [f"evidence {path}: {reason}" for path, reason in unreadable]
    for path, entry in evidence.items():
        if entry.quote is not None and entry.quote not in context:
            problems.append(f"evidence {path}: quote not in context: {entry.quote!r}")
    return problems


def check_files(paths: Iterable[str | Path]) -> list[str]:
    """One line per problem found, `file:line id: reason`."""
    seen: set[str] = set()
    report: list[str] = []
    for path in paths:
        for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
            try:
                case = json.loads(line)
            except ValueError as exc:
                report.append(f"{path}:{number}: does not parse: {exc}")
                continue
            report += [f"{path}:{number} {case.get('id')}: {p}" for p in case_problems(case, seen)]
    return report


if __name__ == "__main__":
    found = check_files(sys.argv[1:])
    print("\n".join(found) or "no problems")
    sys.exit(1 if found else 0)
