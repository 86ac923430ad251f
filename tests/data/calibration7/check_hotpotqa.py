"""Check tests/data/calibration7/hotpotqa.jsonl: every line parses, ids are unique, ground truths validate
against their schemas, evidence quotes occur verbatim in the context, and real-row source ids exist.

Run from the repository root: python tests/data/calibration7/check_hotpotqa.py
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from jsonschema import Draft202012Validator

from loaders.hotpotqa import load_hotpotqa

HERE = Path(__file__).parent
CASES = HERE / "hotpotqa.jsonl"
DEV_SAMPLE = HERE.parent / "hotpotqa" / "hotpot_dev_distractor_v1.sample.json"
REQUIRED = (
    "id",
    "label",
    "kind",
    "note",
    "source",
    "source_id",
    "question",
    "json_schema",
    "ground_truth",
    "annotator",
)


def _quotes(entry: object) -> list[str]:
    if isinstance(entry, str):
        return [] if entry.strip().lower() == "absent" else [entry]
    if isinstance(entry, dict) and isinstance(entry.get("quote"), str):
        return [entry["quote"]]
    return []


def _schema_problems(schema: dict, where: str) -> list[str]:
    problems = []
    if schema.get("type") == "object":
        if schema.get("additionalProperties") is not False:
            problems.append(f"{where}: additionalProperties is not false")
        for name, sub in schema.get("properties", {}).items():
            if not sub.get("description"):
                problems.append(f"{where}.{name}: no description")
            problems += _schema_problems(sub, f"{where}.{name}")
    if isinstance(schema.get("items"), dict):
        problems += _schema_problems(schema["items"], f"{where}[]")
    return problems


def check(cases: Path = CASES) -> list[str]:
    rows = {item.source_id: item for item in load_hotpotqa(DEV_SAMPLE).items}
    problems: list[str] = []
    ids: Counter[str] = Counter()
    labels: Counter[str] = Counter()
    contexts: dict[str, str] = {}
    for n, line in enumerate(cases.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            case = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"line {n}: not JSON ({exc})")
            continue
        where = f"line {n} ({case.get('id')})"
        problems += [f"{where}: missing {key}" for key in REQUIRED if key not in case]
        ids[case.get("id")] += 1
        labels[case.get("label")] += 1
        if not str(case.get("id", "")).startswith("v7-hp-"):
            problems.append(f"{where}: id must start with v7-hp-")
        if (
            case.get("label") not in ("right", "wrong")
            or case.get("source") != "hotpotqa"
            or case.get("split") != "test"
        ):
            problems.append(f'{where}: bad label/source, or split is not "test" (the set is a holdout)')
        if "context" in case:
            context = case["context"]
            if not case.get("seed_question") or not case.get("seed_answer"):
                problems.append(f"{where}: inline context without seed question/answer")
            previous = contexts.setdefault(case["source_id"], context)
            if previous != context:
                problems.append(f"{where}: source_id reused with another context")
            if case["source_id"] in rows:
                problems.append(f"{where}: inline context on a real row id")
        else:
            item = rows.get(case.get("source_id"))
            if item is None:
                problems.append(f"{where}: source_id not in the dev sample")
                continue
            context = item.context
        schema = case["json_schema"]
        Draft202012Validator.check_schema(schema)
        if len(schema.get("properties", {})) < 3:
            problems.append(f"{where}: fewer than 3 top-level properties")
        if set(schema.get("required", [])) != set(schema.get("properties", {})):
            problems.append(f"{where}: not every top-level property is required")
        problems += _schema_problems(schema, where)
        errors = list(Draft202012Validator(schema).iter_errors(case["ground_truth"]))
        problems += [f"{where}: ground truth invalid: {e.message}" for e in errors]
        for path, entry in (case.get("evidence") or {}).items():
            for quote in _quotes(entry):
                if quote not in context:
                    problems.append(f"{where}: evidence {path} quote not in context: {quote!r}")
    problems += [f"duplicate id {i}" for i, c in ids.items() if c > 1]
    print(f"{sum(ids.values())} cases, labels {dict(labels)}, {len(contexts)} inline contexts")
    return problems


if __name__ == "__main__":
    found = check(Path(sys.argv[1]) if len(sys.argv) > 1 else CASES)
    print("\n".join(found) or "all checks passed")
    sys.exit(1 if found else 0)
