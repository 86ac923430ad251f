"""Check the HotpotQA-style labelled cases of this folder: run from the repository root.

    python tests/data/calibration5/check_hotpotqa.py

Every line parses; ids are unique; labels, sources and fields are as the set's format says; every schema
is an object schema with at least 3 top-level properties, `additionalProperties: false` and a description
on every field; the ground truth validates against its schema (Draft 2020-12); the evidence parses
(core/evidence.py) and every quote occurs verbatim in the context (the line's own, or the loader's context
of the dev-sample row); dev-sample source ids exist, inline contexts have unique made-up ids; right and
wrong are balanced per half. It does not run the gate: the set stays blind to it.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from jsonschema import Draft202012Validator

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from core.evidence import QUOTED_KINDS, parse_evidence_map  # noqa: E402
from loaders.hotpotqa import load_hotpotqa  # noqa: E402

CASES = Path(__file__).with_name("hotpotqa.jsonl")
DEV_SAMPLE = ROOT / "tests" / "data" / "hotpotqa" / "hotpot_dev_distractor_v1.sample.json"
KEYS = {"id", "label", "kind", "note", "source", "source_id", "question", "json_schema", "ground_truth", "annotator",
        "split"}  # fmt: skip  # split: always "test", the whole set is a holdout, never tuned on
OPTIONAL = {"evidence", "context", "seed_question", "seed_answer"}


def field_problems(schema: dict, path: str = "$") -> list[str]:
    """Every object declares its properties with descriptions and forbids others."""
    problems = []
    if schema.get("type") == "object" or "properties" in schema:
        if schema.get("additionalProperties") is not False:
            problems.append(f"{path}: additionalProperties is not false")
        for name, sub in schema.get("properties", {}).items():
            if not sub.get("description"):
                problems.append(f"{path}.{name}: no description")
            problems += field_problems(sub, f"{path}.{name}")
    if isinstance(schema.get("items"), dict):
        problems += field_problems(schema["items"], f"{path}[]")
    return problems


def check(lines: list[str]) -> list[str]:
    rows = {item.source_id: item.context for item in load_hotpotqa(DEV_SAMPLE).items}
    problems: list[str] = []
    ids: Counter[str] = Counter()
    inline_ids: Counter[str] = Counter()
    balance: Counter[tuple[bool, str]] = Counter()
    for n, raw in enumerate(lines, start=1):
        try:
            case = json.loads(raw)
        except json.JSONDecodeError as exc:
            problems.append(f"line {n}: not JSON ({exc})")
            continue
        where = f"line {n} ({case.get('id')})"
        ids[case.get("id")] += 1
        missing, extra = KEYS - case.keys(), case.keys() - KEYS - OPTIONAL
        if missing or extra:
            problems.append(f"{where}: missing {sorted(missing)}, unexpected {sorted(extra)}")
            continue
        if case["split"] != "test":
            problems.append(f'{where}: split must be "test" (the set is a holdout)')
        if not str(case["id"]).startswith("v5-hp-"):
            problems.append(f"{where}: id does not start with v5-hp-")
        if case["label"] not in ("right", "wrong") or case["source"] != "hotpotqa":
            problems.append(f"{where}: bad label or source")
        inline = "context" in case
        if inline:
            context = case["context"]
            inline_ids[case["source_id"]] += 1
            if not case["source_id"].startswith("v5-hp-ctx-") or case["source_id"] in rows:
                problems.append(f"{where}: an inline context needs a made-up v5-hp-ctx- source id")
            if not case.get("seed_question") or not case.get("seed_answer"):
                problems.append(f"{where}: an inline context needs its seed question and answer")
            if not 4 <= context.count("\n\n") + 1 <= 8:
                problems.append(f"{where}: an inline context has 4-8 paragraphs")
        else:
            context = rows.get(case["source_id"])
            if context is None:
                problems.append(f"{where}: source_id {case['source_id']} is not a row of {DEV_SAMPLE.name}")
                continue
            if "seed_question" in case or "seed_answer" in case:
                problems.append(f"{where}: seed question/answer only go with an inline context")
        balance[(inline, case["label"])] += 1
        schema = case["json_schema"]
        if len(schema.get("properties", {})) < 3:
            problems.append(f"{where}: the schema declares fewer than 3 top-level properties")
        problems += [f"{where}: {p}" for p in field_problems(schema)]
        Draft202012Validator.check_schema(schema)
        for error in Draft202012Validator(schema).iter_errors(case["ground_truth"]):
            problems.append(f"{where}: ground truth does not validate: {error.message}")
        evidence, bad = parse_evidence_map(case.get("evidence"))
        problems += [f"{where}: evidence {path}: {why}" for path, why in bad]
        for path, ev in evidence.items():
            if ev.kind in QUOTED_KINDS and ev.quote not in context:
                problems.append(f"{where}: evidence {path}: quote not in the context: {ev.quote!r}")
    problems += [f"id {i} appears {c} times" for i, c in ids.items() if c > 1]
    problems += [f"inline source_id {i} appears {c} times" for i, c in inline_ids.items() if c > 1]
    for inline in (False, True):
        if balance[(inline, "right")] != balance[(inline, "wrong")]:
            problems.append(f"{'inline' if inline else 'dev-row'} half is not balanced: {dict(balance)}")
    return problems


def main() -> int:
    lines = [line for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()]
    problems = check(lines)
    for problem in problems:
        print(problem)
    with_evidence = sum(1 for line in lines if '"evidence"' in line)
    print(f"{len(lines)} cases, {with_evidence} with evidence, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
