"""Check the labelled cases of this folder as data (not the gate): run from the repository root,
`python tests/data/calibration4/check_hotpotqa.py [FILE ...]` (default: hotpotqa.jsonl here).

Each line parses; ids are unique; label, kind and note are there; the schema is a Draft 2020-12 object
schema whose objects are closed, fully required and described, with at least 3 top-level properties;
the ground truth validates; every evidence entry parses, names a path that exists, quotes its context
verbatim, and `absent` stands on null or []; a HotpotQA line without an inline context names a row of
the dev sample; the labels are balanced per source. Prints one line per problem, exits 1 if any."""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from core.evidence import parse_evidence_map  # noqa: E402
from loaders.hotpotqa import load_hotpotqa  # noqa: E402

HOTPOT_ROWS = ROOT / "tests" / "data" / "hotpotqa" / "hotpot_dev_distractor_v1.sample.json"
REQUIRED = {
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
    "split",  # always "test": the whole set is a holdout, never tuned on
}
OPTIONAL = {"evidence", "context", "seed_question", "seed_answer"}
PATH_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")
MISSING = object()


def resolve(value: Any, path: str) -> Any:
    rest, pos = path[1:], 0
    while pos < len(rest):
        step = PATH_STEP.match(rest, pos)
        if step is None:
            return MISSING
        key, index = step.groups()
        if key is not None:
            if not isinstance(value, dict) or key not in value:
                return MISSING
            value = value[key]
        else:
            if not isinstance(value, list) or int(index) >= len(value):
                return MISSING
            value = value[int(index)]
        pos = step.end()
    return value


def schema_problems(schema: dict[str, Any], where: str = "$") -> list[str]:
    problems = []
    types = schema.get("type")
    types = types if isinstance(types, list) else [types]
    if "object" in types:
        props = schema.get("properties", {})
        if schema.get("additionalProperties") is not False:
            problems.append(f"{where}: object not closed")
        if set(schema.get("required", [])) != set(props):
            problems.append(f"{where}: not every property required")
        for name, sub in props.items():
            if not sub.get("description"):
                problems.append(f"{where}.{name}: no description")
            problems += schema_problems(sub, f"{where}.{name}")
    if "array" in types and isinstance(schema.get("items"), dict):
        problems += schema_problems(schema["items"], f"{where}[]")
    return problems


def check(path: Path, contexts: dict[str, str], seen: set[str]) -> tuple[list[str], Counter]:
    problems: list[str] = []
    labels: Counter = Counter()
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path.name}:{n}"
        try:
            case = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"{where}: not JSON ({exc})")
            continue
        missing, unknown = REQUIRED - set(case), set(case) - REQUIRED - OPTIONAL
        if not missing and case.get("split") != "test":
            problems.append(f'{where}: split must be "test" (the set is a holdout)')
        if missing or unknown:
            problems.append(f"{where}: missing {sorted(missing)} unknown {sorted(unknown)}")
            continue
        where = f"{where} {case['id']}"
        if case["id"] in seen:
            problems.append(f"{where}: duplicate id")
        seen.add(case["id"])
        if case["label"] not in ("right", "wrong"):
            problems.append(f"{where}: label {case['label']!r}")
        labels[(case["source"], case["label"])] += 1
        schema, truth = case["json_schema"], case["ground_truth"]
        try:
            Draft202012Validator.check_schema(schema)
        except Exception as exc:  # noqa: BLE001 - any schema error is reported, with its message
            problems.append(f"{where}: bad schema ({str(exc).splitlines()[0]})")
            continue
        if schema.get("type") != "object" or len(schema.get("properties", {})) < 3:
            problems.append(f"{where}: top level is not an object with at least 3 properties")
        problems += [f"{where}: schema {p}" for p in schema_problems(schema)]
        errors = list(Draft202012Validator(schema).iter_errors(truth))
        problems += [f"{where}: ground truth invalid at {list(e.path)}: {e.message}" for e in errors]
        if "context" in case:
            context = case["context"]
            if not (case.get("seed_question") and case.get("seed_answer")):
                problems.append(f"{where}: inline context without seed question and answer")
        elif case["source"] == "hotpotqa":
            context = contexts.get(case["source_id"])
            if context is None:
                problems.append(f"{where}: source_id {case['source_id']} not in the dev sample")
                continue
        else:
            problems.append(f"{where}: no context")
            continue
        evidence, bad = parse_evidence_map(case.get("evidence"))
        problems += [f"{where}: evidence {p}: {msg}" for p, msg in bad]
        for jpath, ev in evidence.items():
            value = resolve(truth, jpath)
            if value is MISSING:
                problems.append(f"{where}: evidence path {jpath} not in the ground truth")
                continue
            if ev.quote is not None and ev.quote not in context:
                problems.append(f"{where}: evidence quote of {jpath} not in the context: {ev.quote!r}")
            if ev.kind == "absent" and value not in (None, []):
                problems.append(f"{where}: absent evidence on a stated value at {jpath}")
            for source in ev.sources:
                if resolve(truth, source) is MISSING:
                    problems.append(f"{where}: {jpath} derived from missing {source}")
    return problems, labels


def main(argv: list[str]) -> int:
    files = [Path(a) for a in argv] or [Path(__file__).parent / "hotpotqa.jsonl"]
    contexts = {item.source_id: item.context for item in load_hotpotqa(HOTPOT_ROWS).items}
    seen: set[str] = set()
    problems: list[str] = []
    labels: Counter = Counter()
    for path in files:
        found, counted = check(path, contexts, seen)
        problems += found
        labels += counted
    for source in sorted({s for s, _ in labels}):
        right, wrong = labels[(source, "right")], labels[(source, "wrong")]
        print(f"{source}: {right} right, {wrong} wrong")
        if right != wrong:
            problems.append(f"{source}: labels not balanced ({right} right, {wrong} wrong)")
    print("\n".join(problems) or f"{len(seen)} cases, no problems")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
