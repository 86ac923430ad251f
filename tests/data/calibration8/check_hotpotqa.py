"""Check tests/data/calibration8/hotpotqa.jsonl without running the gate on it.

Each line parses; ids are unique; labels are right/wrong, `split` "test"; every schema is a valid Draft 2020-12
object schema (at least 3 top-level properties, a description on every field, `additionalProperties: false`,
every property required); the ground truth validates; every quoted evidence span occurs verbatim in the context
(for dev-sample rows: the loader's context of that row, whose `_id` must exist). Run from the repository root:

    python tests/data/calibration8/check_hotpotqa.py [FILE]
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
DEV_SAMPLE = ROOT / "tests" / "data" / "hotpotqa" / "hotpot_dev_distractor_v1.sample.json"
REQUIRED_KEYS = {
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
}


def schema_problems(schema: dict[str, Any], path: str = "$") -> list[str]:
    problems = []
    if schema.get("type") == "object" or "properties" in schema:
        if schema.get("additionalProperties") is not False:
            problems.append(f"{path}: additionalProperties is not false")
        if set(schema.get("required", [])) != set(schema.get("properties", {})):
            problems.append(f"{path}: not every property is required")
        for key, sub in schema.get("properties", {}).items():
            if not sub.get("description"):
                problems.append(f"{path}.{key}: no description")
            problems += schema_problems(sub, f"{path}.{key}")
    if "items" in schema:
        problems += schema_problems(schema["items"], f"{path}[]")
    return problems


def line_problems(case: dict[str, Any], dev_contexts: dict[str, str]) -> list[str]:
    import jsonschema

    from core.evidence import parse_evidence_map

    problems = [f"missing key {k}" for k in sorted(REQUIRED_KEYS - set(case))]
    if case.get("label") not in ("right", "wrong"):
        problems.append(f"label {case.get('label')!r}")
    if case.get("split") != "test":  # the set is a holdout: every case in the test half
        problems.append('split is not "test"')
    schema = case["json_schema"]
    jsonschema.Draft202012Validator.check_schema(schema)
    problems += [
        f"ground truth: {e.message}" for e in jsonschema.Draft202012Validator(schema).iter_errors(case["ground_truth"])
    ]
    if len(schema.get("properties", {})) < 3:
        problems.append("fewer than 3 top-level properties")
    problems += schema_problems(schema)
    if "context" in case:
        context = case["context"]
        if not case["source_id"].startswith("v8-hp-ctx-"):
            problems.append("inline context with a source_id that is not v8-hp-ctx-NN")
        if not case.get("seed_question") or not case.get("seed_answer"):
            problems.append("inline context without seed_question/seed_answer")
        elif case["seed_answer"].lower() not in context.lower():
            problems.append("seed answer not in its context")
    else:
        if case["source_id"] not in dev_contexts:
            return problems + [f"source_id {case['source_id']} is not a row of {DEV_SAMPLE.name}"]
        context = dev_contexts[case["source_id"]]
    evidence, unreadable = parse_evidence_map(case.get("evidence"))
    problems += [f"evidence {path}: {why}" for path, why in unreadable]
    for path, entry in evidence.items():
        if entry.quote is not None and entry.quote not in context:
            problems.append(f"evidence {path}: quote not in the context: {entry.quote!r}")
    return problems


def main(file: Path) -> int:
    sys.path.insert(0, str(ROOT))
    from loaders.hotpotqa import load_hotpotqa

    dev_contexts = {item.source_id: item.context for item in load_hotpotqa(DEV_SAMPLE).items}
    ids: Counter[str] = Counter()
    tally: Counter[tuple[str, str]] = Counter()
    failures = 0
    for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
        case = json.loads(line)
        ids[case["id"]] += 1
        tally[("inline" if "context" in case else "dev-row", case["label"])] += 1
        for problem in line_problems(case, dev_contexts):
            failures += 1
            print(f"line {number} ({case['id']}): {problem}")
    for case_id, count in ids.items():
        if count > 1:
            failures += 1
            print(f"id {case_id} appears {count} times")
    print(
        f"{sum(ids.values())} cases: " + ", ".join(f"{kind} {label} {n}" for (kind, label), n in sorted(tally.items()))
    )
    print("OK" if not failures else f"{failures} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("hotpotqa.jsonl")))
