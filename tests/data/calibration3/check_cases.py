"""Check the hand-made calibration cases: each line parses, ids are unique, labels are balanced,
the ground truth validates against its schema, evidence quotes occur verbatim in the context and
every source_id names a row of the HotpotQA data files.

Run: python tests/data/calibration3/check_cases.py
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from jsonschema import Draft202012Validator

HERE = Path(__file__).parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))  # the repository root, so its loaders and core are imported

from core.evidence import parse_evidence_map  # noqa: E402
from loaders.hotpotqa import load_hotpotqa  # noqa: E402

HOTPOT_FILES = ("tests/data/hotpotqa/hotpot_dev_distractor_v1.sample.json", "loaders/samples/hotpotqa/sample.json")


def _contexts() -> dict[str, str]:
    out: dict[str, str] = {}
    for name in HOTPOT_FILES:
        for item in load_hotpotqa(ROOT / name).items:
            out[item.source_id] = item.context
    return out


def _quotes(evidence: dict) -> list[str]:
    quotes = []
    for value in evidence.values():
        if isinstance(value, str) and value != "absent":
            quotes.append(value)
        elif isinstance(value, dict) and "quote" in value:
            quotes.append(value["quote"])
    return quotes


def check(path: Path) -> list[str]:
    contexts = _contexts()
    errors: list[str] = []
    ids: Counter[str] = Counter()
    labels: Counter[str] = Counter()
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            case = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"line {n}: not JSON ({exc})")
            continue
        ids[case["id"]] += 1
        labels[case["label"]] += 1
        where = f"line {n} ({case['id']})"
        if "context" in case or "split" in case:
            errors.append(f"{where}: hotpotqa lines carry no context and no split")
        schema = case["json_schema"]
        Draft202012Validator.check_schema(schema)
        if len(schema.get("properties", {})) < 3:
            errors.append(f"{where}: fewer than 3 top-level properties")
        for err in Draft202012Validator(schema).iter_errors(case["ground_truth"]):
            errors.append(f"{where}: ground truth invalid: {err.message}")
        context = contexts.get(case["source_id"])
        if context is None:
            errors.append(f"{where}: unknown source_id {case['source_id']}")
            continue
        _, unreadable = parse_evidence_map(case.get("evidence"))
        errors += [f"{where}: evidence {path}: {problem}" for path, problem in unreadable]
        for quote in _quotes(case.get("evidence", {})):
            if quote not in context:
                errors.append(f"{where}: quote not in context: {quote!r}")
    errors += [f"duplicate id {i}" for i, c in ids.items() if c > 1]
    print(
        f"{sum(labels.values())} cases, {dict(labels)}, with evidence: "
        f"{sum(1 for line in path.read_text().splitlines() if 'evidence' in json.loads(line))}"
    )
    return errors


if __name__ == "__main__":
    problems = check(HERE / "hotpotqa.jsonl")
    print("\n".join(problems) or "all checks passed")
    sys.exit(1 if problems else 0)
