"""Check the hand-made HotpotQA-style calibration cases of this folder (run from the repository root).

    python tests/data/calibration6/check_hotpotqa.py [tests/data/calibration6/hotpotqa.jsonl]

Checks only the form of the cases, never the gate: every line parses, ids are unique, each schema is a
Draft 2020-12 object schema with at least 3 top-level properties, a description on every field and no extra
properties, the ground truth validates against it, every evidence entry parses and names a path of the
answer, every quoted span occurs verbatim in the record's context (the loader's context for dev rows), and
every dev-row source_id exists in the HotpotQA dev sample. Exits 1 with the problems listed.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

from jsonschema import Draft202012Validator

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the toolkit, when run as a script

from core.evidence import parse_evidence_map
from loaders.hotpotqa import load_hotpotqa

ROOT = Path(__file__).resolve().parents[3]
DEV_SAMPLE = ROOT / "tests/data/hotpotqa/hotpot_dev_distractor_v1.sample.json"
DEFAULT = Path(__file__).with_name("hotpotqa.jsonl")
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
QUOTED = {"span", "normalised", "convert", "expands"}


def schema_problems(schema: dict, where: str = "$") -> list[str]:
    """Every object declares its properties, forbids others and describes each field."""
    problems = []
    types = schema.get("type")
    types = types if isinstance(types, list) else [types]
    if "object" in types:
        if schema.get("additionalProperties") is not False:
            problems.append(f"{where}: object without additionalProperties: false")
        for name, sub in schema.get("properties", {}).items():
            if not sub.get("description"):
                problems.append(f"{where}.{name}: no description")
            problems += schema_problems(sub, f"{where}.{name}")
    if "array" in types and isinstance(schema.get("items"), dict):
        problems += schema_problems(schema["items"], f"{where}[]")
    return problems


def leaf_paths(value, path: str = "$") -> set[str]:
    if isinstance(value, dict):
        out = set()
        for key, sub in value.items():
            out |= leaf_paths(sub, f"{path}.{key}")
        return out | {path}
    if isinstance(value, list):
        out = {path}
        for i, sub in enumerate(value):
            out |= leaf_paths(sub, f"{path}[{i}]")
        return out
    return {path}


def check(path: Path) -> list[str]:
    dev = {item.source_id: item for item in load_hotpotqa(DEV_SAMPLE).items}
    problems: list[str] = []
    ids: Counter[str] = Counter()
    labels: Counter[tuple[bool, str]] = Counter()
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            case = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"line {n}: not JSON ({exc})")
            continue
        cid = case.get("id", f"line {n}")
        ids[cid] += 1
        missing = [k for k in REQUIRED if k not in case]
        if missing:
            problems.append(f"{cid}: missing {missing}")
            continue
        if not cid.startswith("v6-hp-"):
            problems.append(f"{cid}: id must start with v6-hp-")
        if case["label"] not in ("right", "wrong") or case["source"] != "hotpotqa" or case.get("split") != "test":
            problems.append(f'{cid}: bad label/source, or split is not "test" (the set is a holdout)')
        schema, truth = case["json_schema"], case["ground_truth"]
        try:
            Draft202012Validator.check_schema(schema)
        except Exception as exc:  # noqa: BLE001 - report any schema error with its case
            problems.append(f"{cid}: invalid schema ({exc})")
            continue
        if schema.get("type") != "object" or len(schema.get("properties", {})) < 3:
            problems.append(f"{cid}: top level must be an object with at least 3 properties")
        problems += [f"{cid}: {p}" for p in schema_problems(schema)]
        for error in Draft202012Validator(schema).iter_errors(truth):
            problems.append(f"{cid}: ground truth invalid at {list(error.path)}: {error.message}")
        if "context" in case:
            context = case["context"]
            if not case.get("seed_question") or not case.get("seed_answer"):
                problems.append(f"{cid}: inline context without seed_question/seed_answer")
            if not re.fullmatch(r"v6-hp-ctx-\d\d", case["source_id"]):
                problems.append(f"{cid}: inline-context source_id must be v6-hp-ctx-NN")
            paragraphs = context.split("\n\n")
            if not 4 <= len(paragraphs) <= 10 or any("\n" not in p for p in paragraphs):
                problems.append(f"{cid}: context must be 4-10 titled paragraphs")
        else:
            item = dev.get(case["source_id"])
            if item is None:
                problems.append(f"{cid}: source_id {case['source_id']} not in the dev sample")
                continue
            context = item.context
        labels[("context" in case, case["label"])] += 1
        evidence, bad = parse_evidence_map(case.get("evidence"))
        problems += [f"{cid}: evidence {p}: {why}" for p, why in bad]
        paths = leaf_paths(truth)
        for p, ev in evidence.items():
            if p not in paths:
                problems.append(f"{cid}: evidence path {p} is not in the ground truth")
            if ev.kind in QUOTED and ev.quote is not None and ev.quote not in context:
                problems.append(f"{cid}: evidence quote for {p} not in the context: {ev.quote!r}")
            for source in ev.sources:
                if source not in paths:
                    problems.append(f"{cid}: derived source {source} of {p} is not in the ground truth")
    problems += [f"{cid}: id used {k} times" for cid, k in ids.items() if k > 1]
    print(
        f"{sum(ids.values())} cases; dev rows right/wrong: {labels[(False, 'right')]}/{labels[(False, 'wrong')]}; "
        f"inline contexts right/wrong: {labels[(True, 'right')]}/{labels[(True, 'wrong')]}"
    )
    return problems


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    found = check(target)
    for problem in found:
        print(problem)
    sys.exit(1 if found else 0)
