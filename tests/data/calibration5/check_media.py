"""Check the AMI and olmOCR labelled cases of this folder (format only, never the gate's verdict).

Run from the repository root:  python tests/data/calibration5/check_media.py
Each line must parse; ids must be unique and carry the file's prefix; the ground truth must validate
against its schema (Draft 2020-12); every object schema must be closed, with a description on every field
and at least 3 top-level properties; every quoted evidence span must occur verbatim in the inline context;
every evidence path must name a leaf of the ground truth; labels must be half right, half wrong.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from jsonschema import Draft202012Validator

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from core.evidence import parse_evidence_map  # noqa: E402  (the evidence format, not the gate)

HERE = Path(__file__).parent
FILES = {"ami.jsonl": ("v5-ami-", "ami"), "olmocr.jsonl": ("v5-olm-", "olmocr")}
QUOTED = {"span", "normalised", "convert", "expands"}


def schema_problems(schema: dict, where: str = "$") -> list[str]:
    problems = []
    types = schema.get("type")
    types = types if isinstance(types, list) else [types]
    if "object" in types:
        props = schema.get("properties", {})
        if schema.get("additionalProperties") is not False:
            problems.append(f"{where}: object without additionalProperties false")
        if set(schema.get("required", [])) != set(props):
            problems.append(f"{where}: required does not list every property")
        for name, sub in props.items():
            if not sub.get("description"):
                problems.append(f"{where}.{name}: no description")
            problems += schema_problems(sub, f"{where}.{name}")
    if "array" in types:
        problems += schema_problems(schema.get("items", {}), f"{where}[]")
    return problems


def all_paths(value, path="$"):
    yield path
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from all_paths(sub, f"{path}.{key}")
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            yield from all_paths(sub, f"{path}[{i}]")


def leaf_paths(value, path="$"):
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from leaf_paths(sub, f"{path}.{key}")
        return
    if isinstance(value, list):
        if not value:
            yield path
        for i, sub in enumerate(value):
            yield from leaf_paths(sub, f"{path}[{i}]")
        return
    yield path


def check_line(case: dict, prefix: str, source: str) -> list[str]:
    problems = []
    for key in (
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
        "context",
    ):
        if key not in case:
            problems.append(f"missing {key}")
    if problems:
        return problems
    if not case["id"].startswith(prefix):
        problems.append(f"id without prefix {prefix}")
    if case["source"] != source or case["label"] not in ("right", "wrong") or case.get("split") != "test":
        problems.append('bad source or label, or split is not "test" (the set is a holdout)')
    schema = case["json_schema"]
    Draft202012Validator.check_schema(schema)
    if len(schema.get("properties", {})) < 3:
        problems.append("fewer than 3 top-level properties")
    problems += schema_problems(schema)
    problems += [f"ground truth: {e.message}" for e in Draft202012Validator(schema).iter_errors(case["ground_truth"])]
    _, unreadable = parse_evidence_map(case.get("evidence"))
    problems += [f"evidence {path}: {why}" for path, why in unreadable]
    leaves = set(leaf_paths(case["ground_truth"]))
    paths = set(all_paths(case["ground_truth"]))
    for path, ev in (case.get("evidence") or {}).items():
        if path not in leaves:
            problems.append(f"evidence path {path} is not a leaf of the ground truth")
        if isinstance(ev, str):
            quote = None if ev == "absent" else ev
        elif isinstance(ev, dict):
            quote = ev.get("quote") if ev.get("kind", "span") in QUOTED and "derived_from" not in ev else None
            for src in ev.get("derived_from", []):
                if src not in paths:
                    problems.append(f"evidence {path} derives from {src}, not a path of the ground truth")
        else:
            problems.append(f"evidence {path}: not a string or object")
            continue
        if quote is not None and quote not in case["context"]:
            problems.append(f"evidence {path}: quote not in context: {quote!r}")
    return problems


def main() -> int:
    failures = 0
    for name, (prefix, source) in FILES.items():
        path = HERE / name
        if not path.exists():
            print(f"{name}: missing")
            failures += 1
            continue
        ids: Counter[str] = Counter()
        labels: Counter[str] = Counter()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            try:
                case = json.loads(line)
            except json.JSONDecodeError as exc:
                print(f"{name}:{n}: not JSON: {exc}")
                failures += 1
                continue
            ids[case.get("id")] += 1
            labels[case.get("label")] += 1
            for problem in check_line(case, prefix, source):
                print(f"{name}:{n} {case.get('id')}: {problem}")
                failures += 1
        for cid, count in ids.items():
            if count > 1:
                print(f"{name}: id {cid} used {count} times")
                failures += 1
        if labels["right"] != labels["wrong"]:
            print(f"{name}: {labels['right']} right vs {labels['wrong']} wrong")
            failures += 1
        print(f"{name}: {sum(ids.values())} cases, {dict(labels)}")
    print("OK" if not failures else f"{failures} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
