"""Check the AMI and olmOCR cases of calibration7: every line parses, ids are unique, fields are the
expected ones, the ground truth validates against its schema (Draft 2020-12), every schema declares at
least 3 top-level properties, every quoted evidence span occurs verbatim in the inline context, and the
labels are balanced per file; every evidence entry reads as the toolkit's\nevidence format (core/evidence.py).

    python tests/data/calibration7/check_media.py
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from jsonschema import Draft202012Validator

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for core.evidence
from core.evidence import parse_evidence_map  # noqa: E402

HERE = Path(__file__).parent
FILES = {"ami.jsonl": ("ami", "v7-ami-"), "olmocr.jsonl": ("olmocr", "v7-olm-")}
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
    "context",
}
OPTIONAL = {"evidence", "seed_question", "seed_answer", "split"}
QUOTED = {"span", "normalised", "convert", "expands"}


def objects_closed(schema: dict, where: str, problems: list[str]) -> None:
    """Every object schema has properties, required, additionalProperties false, and described fields."""
    if schema.get("type") == "object" or "properties" in schema:
        if schema.get("additionalProperties") is not False:
            problems.append(f"{where}: additionalProperties is not false")
        for name, sub in schema.get("properties", {}).items():
            if not sub.get("description"):
                problems.append(f"{where}.{name}: no description")
            objects_closed(sub, f"{where}.{name}", problems)
    if "items" in schema:
        objects_closed(schema["items"], f"{where}[]", problems)


def check_line(case: dict, source: str, prefix: str) -> list[str]:
    problems: list[str] = []
    keys = set(case)
    if REQUIRED - keys:
        problems.append(f"missing {sorted(REQUIRED - keys)}")
    if keys - REQUIRED - OPTIONAL:
        problems.append(f"unexpected {sorted(keys - REQUIRED - OPTIONAL)}")
    if case.get("source") != source or not str(case.get("id", "")).startswith(prefix):
        problems.append("wrong source or id prefix")
    if case.get("label") not in ("right", "wrong"):
        problems.append(f"label {case.get('label')!r}")
    if case.get("split") != "test":
        problems.append('split is not "test" (the set is a holdout)')
    schema = case["json_schema"]
    Draft202012Validator.check_schema(schema)
    if len(schema.get("properties", {})) < 3:
        problems.append("schema has fewer than 3 top-level properties")
    objects_closed(schema, "$", problems)
    for error in Draft202012Validator(schema).iter_errors(case["ground_truth"]):
        problems.append(f"ground truth does not validate: {error.message}")
    context = case["context"]
    _, unreadable = parse_evidence_map(case.get("evidence"))
    problems.extend(f"evidence {path}: {reason}" for path, reason in unreadable)
    for path, entry in (case.get("evidence") or {}).items():
        if isinstance(entry, str):
            quote = None if entry.strip().lower() == "absent" else entry
        elif entry.get("kind", "span") in QUOTED and "derived_from" not in entry:
            quote = entry.get("quote")
        else:
            quote = None
        if quote is not None and quote not in context:
            problems.append(f"evidence {path}: quote not in context: {quote!r}")
    return problems


def main(folder: Path = HERE) -> int:
    failed = False
    ids: Counter[str] = Counter()
    source_ids: Counter[str] = Counter()
    for name, (source, prefix) in FILES.items():
        path = folder / name
        if not path.exists():
            print(f"{name}: missing")
            failed = True
            continue
        labels: Counter[str] = Counter()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            case = json.loads(line)
            ids[case["id"]] += 1
            source_ids[case["source_id"]] += 1
            labels[case["label"]] += 1
            for problem in check_line(case, source, prefix):
                print(f"{name}:{number} {case.get('id')}: {problem}")
                failed = True
        print(f"{name}: {sum(labels.values())} cases, {dict(labels)}")
        if labels["right"] != labels["wrong"]:
            print(f"{name}: labels are not balanced")
            failed = True
    for key, counter in (("id", ids), ("source_id", source_ids)):
        duplicates = [value for value, count in counter.items() if count > 1]
        if duplicates:
            print(f"duplicate {key}s: {duplicates}")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE))
