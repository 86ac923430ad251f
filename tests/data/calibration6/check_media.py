"""Check the AMI and olmOCR lines of this set: each parses, ids are unique, the ground truth validates
against its schema, every quoted evidence span occurs verbatim in the inline context, labels balance.

    python tests/data/calibration6/check_media.py
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from functools import cache
from pathlib import Path

from jsonschema import Draft202012Validator

HERE = Path(__file__).parent
FILES = {"ami.jsonl": ("ami", "v6-ami-"), "olmocr.jsonl": ("olmocr", "v6-olm-")}
# The loader's line shape: `[m:ss] SPEAKER: TEXT`, upper case, no punctuation but apostrophes and hyphens.
AMI_LINE = re.compile(r"^\[(\d+):(\d\d)\] [MF][A-Z]{2}\d{3}: [A-Z0-9' -]+$")
# Real contexts: a window of lines of the AMI loader's ES2002d transcript, or an olmOCR page as it is.
REAL_WINDOW = re.compile(r"^ES2002d#c6-L(\d{4})-(\d{4})$")
REAL_PAGE_PREFIX = "c6-olmocr-"
REPO = HERE.parents[2]
OLMOCR_PAGES = REPO / "tests/data/olmocr_bench/olmocr_pipeline"


@cache
def meeting_lines() -> list[str]:
    sys.path.insert(0, str(REPO))
    from loaders.ami import load_ami

    return load_ami(REPO / "tests/data/ami/ES2002d.ihm.jsonl").items[0].context.split("\n")


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
    "context",
)


def quote_of(entry: object) -> str | None:
    if isinstance(entry, str):
        return None if entry.strip().lower() == "absent" else entry
    if isinstance(entry, dict) and "derived_from" not in entry and entry.get("kind") != "absent":
        return entry.get("quote")
    return None


def check_schema_shape(schema: dict, where: str, problems: list[str]) -> None:
    if schema.get("type") == "object":
        props = schema.get("properties", {})
        if schema.get("additionalProperties") is not False:
            problems.append(f"{where}: object without additionalProperties false")
        if set(schema.get("required", [])) != set(props):
            problems.append(f"{where}: required does not list every property")
        for name, sub in props.items():
            if "description" not in sub:
                problems.append(f"{where}.{name}: no description")
            check_schema_shape(sub, f"{where}.{name}", problems)
    elif schema.get("type") == "array":
        check_schema_shape(schema.get("items", {}), f"{where}[]", problems)


def main(folder: Path = HERE) -> int:
    problems: list[str] = []
    seen: set[str] = set()
    source_ids: set[str] = set()
    for name, (source, prefix) in FILES.items():
        path = folder / name
        if not path.exists():
            problems.append(f"{name}: missing")
            continue
        labels: Counter[str] = Counter()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{name}:{n}"
            case = json.loads(line)
            missing = [k for k in REQUIRED if k not in case]
            if missing:
                problems.append(f"{where}: missing {missing}")
                continue
            if case["id"] in seen or not case["id"].startswith(prefix):
                problems.append(f"{where}: id {case['id']} duplicated or not prefixed {prefix}")
            seen.add(case["id"])
            if case["source_id"] in source_ids:
                problems.append(f"{where}: source_id {case['source_id']} used twice")
            source_ids.add(case["source_id"])
            if case["source"] != source or case["label"] not in ("right", "wrong") or case.get("split") != "test":
                problems.append(f'{where}: bad source or label, or split is not "test" (the set is a holdout)')
            labels[case["label"]] += 1
            schema = case["json_schema"]
            Draft202012Validator.check_schema(schema)
            if len(schema.get("properties", {})) < 3:
                problems.append(f"{where}: fewer than 3 top-level properties")
            check_schema_shape(schema, f"{where} $", problems)
            for error in Draft202012Validator(schema).iter_errors(case["ground_truth"]):
                problems.append(f"{where}: ground truth invalid: {error.message}")
            for path_key, entry in (case.get("evidence") or {}).items():
                quote = quote_of(entry)
                if quote is not None and quote not in case["context"]:
                    problems.append(f"{where}: evidence {path_key} quote not in context: {quote!r}")
            if source == "ami":
                lines = case["context"].split("\n")
                if not 30 <= len(lines) <= 150:
                    problems.append(f"{where}: {len(lines)} transcript lines")
                times = []
                for line in lines:
                    match = AMI_LINE.match(line)
                    if match is None:
                        problems.append(f"{where}: not an AMI loader line: {line!r}")
                    else:
                        times.append(int(match[1]) * 60 + int(match[2]))
                if times != sorted(times):
                    problems.append(f"{where}: timestamps go backwards")
                window = REAL_WINDOW.match(case["source_id"])
                if window and case["context"] != "\n".join(meeting_lines()[int(window[1]) - 1 : int(window[2])]):
                    problems.append(f"{where}: context is not lines {window[1]}-{window[2]} of the loader's ES2002d")
            elif case["source_id"].startswith(REAL_PAGE_PREFIX):
                page = OLMOCR_PAGES / (case["source_id"].removeprefix(REAL_PAGE_PREFIX) + "_repeat1.md")
                if not page.exists():
                    page = OLMOCR_PAGES / "headers_footers" / page.name
                if not page.exists() or page.read_text(encoding="utf-8") != case["context"]:
                    problems.append(f"{where}: context is not the olmOCR output {page.name} as it is")
        print(f"{name}: {sum(labels.values())} cases, {dict(labels)}")
        if labels["right"] != labels["wrong"]:
            problems.append(f"{name}: right and wrong do not balance")
    for problem in problems:
        print("PROBLEM", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE))
