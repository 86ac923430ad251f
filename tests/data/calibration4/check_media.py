"""Check the AMI and olmOCR cases of calibration4 (run from the repository root):

    python tests/data/calibration4/check_media.py

Every line parses; ids are unique and prefixed; labels are balanced; each schema is a Draft 2020-12 object
schema with at least 3 top-level properties, `additionalProperties: false` and a description on every
field; each ground truth validates; every evidence entry parses, points at a leaf of the ground truth, and
quotes the context verbatim. AMI contexts are windows of the loader's ES2002d transcript or fresh
transcripts in its line shape; olmOCR contexts are real pipeline output or pages written for this set.
Exit status 1 with the problems listed when anything is off. It does not run the gate.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

from jsonschema import Draft202012Validator

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from core.evidence import QUOTED_KINDS, parse_evidence_map  # noqa: E402
from loaders.ami import load_ami  # noqa: E402

HERE = Path(__file__).parent
DATA = HERE.parent
KEYS = {
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
    "evidence",
    "context",
    "seed_question",
    "seed_answer",
    "split",  # always "test": the whole set is a holdout, never tuned on
}
REQUIRED = KEYS - {"evidence", "seed_question", "seed_answer"}
AMI_LINE = re.compile(r"^\[\d+:\d\d\] [MF][A-Z]{2}\d{3}: [A-Z0-9' -]+$")
PATH_PART = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")


def resolve(data, path: str):
    """The value at `$.a.b[0]`, or KeyError."""
    if not path.startswith("$"):
        raise KeyError(path)
    rest, value = path[1:], data
    while rest:
        m = PATH_PART.match(rest)
        if not m:
            raise KeyError(path)
        value = value[m.group(1)] if m.group(1) else value[int(m.group(2))]
        rest = rest[m.end() :]
    return value


def schema_problems(schema, where="$") -> list[str]:
    problems = []
    if schema.get("type") == "object" or "properties" in schema:
        if schema.get("additionalProperties") is not False:
            problems.append(f"{where}: additionalProperties is not false")
        props = schema.get("properties", {})
        if set(schema.get("required", [])) - set(props):
            problems.append(f"{where}: required names an unknown property")
        for name, sub in props.items():
            if not sub.get("description"):
                problems.append(f"{where}.{name}: no description")
            problems += schema_problems(sub, f"{where}.{name}")
    if "items" in schema:
        problems += schema_problems(schema["items"], f"{where}[]")
    return problems


def check_file(path: Path, source: str, prefix: str, real_context) -> list[str]:
    problems: list[str] = []
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            rows.append((n, json.loads(line)))
        except json.JSONDecodeError as exc:
            problems.append(f"{path.name}:{n}: not JSON ({exc})")
    ids = Counter(r["id"] for _, r in rows)
    problems += [f"{path.name}: duplicate id {i}" for i, c in ids.items() if c > 1]
    problems += [
        f"{path.name}: duplicate source_id {i}" for i, c in Counter(r["source_id"] for _, r in rows).items() if c > 1
    ]
    tally = Counter()
    for n, row in rows:
        at = f"{path.name}:{n} {row.get('id')}"
        if set(row) - KEYS or REQUIRED - set(row):
            problems.append(f"{at}: keys {sorted(set(row) ^ (set(row) | REQUIRED))} unexpected or missing")
            continue
        if row["split"] != "test":
            problems.append(f'{at}: split must be "test" (the set is a holdout)')
        if not row["id"].startswith(prefix) or row["source"] != source or row["label"] not in ("right", "wrong"):
            problems.append(f"{at}: bad id prefix, source or label")
        schema, truth, context = row["json_schema"], row["ground_truth"], row["context"]
        try:
            Draft202012Validator.check_schema(schema)
        except Exception as exc:  # noqa: BLE001 - any schema error is reported
            problems.append(f"{at}: invalid schema: {exc}")
            continue
        if schema.get("type") != "object" or len(schema.get("properties", {})) < 3:
            problems.append(f"{at}: top level must be an object with at least 3 properties")
        problems += [f"{at}: {p}" for p in schema_problems(schema)]
        problems += [f"{at}: ground truth: {e.message}" for e in Draft202012Validator(schema).iter_errors(truth)]
        evidence, bad = parse_evidence_map(row.get("evidence"))
        problems += [f"{at}: evidence {p}: {why}" for p, why in bad]
        for p, ev in evidence.items():
            try:
                value = resolve(truth, p)
            except (KeyError, IndexError, TypeError):
                problems.append(f"{at}: evidence path {p} is not in the ground truth")
                continue
            if ev.kind in QUOTED_KINDS and ev.quote not in context:
                problems.append(f"{at}: evidence {p} quote not in context: {ev.quote!r}")
            if ev.kind == "absent" and value not in (None, []):
                problems.append(f"{at}: evidence {p} is absent but the value is {value!r}")
            for src in ev.sources:
                try:
                    resolve(truth, src)
                except (KeyError, IndexError, TypeError):
                    problems.append(f"{at}: evidence {p} derives from unknown {src}")
        origin = real_context(context)
        if origin is None:
            problems.append(f"{at}: context is neither real data nor a well-formed fresh context")
        tally[(origin, row["label"])] += 1
    print(f"{path.name}: {len(rows)} cases, " + ", ".join(f"{o}/{lab}: {c}" for (o, lab), c in sorted(tally.items())))
    wanted = len(rows) // 4
    if any(tally[(o, lab)] != wanted for o in ("real", "fresh") for lab in ("right", "wrong")):
        problems.append(f"{path.name}: not balanced (want {wanted} per real/fresh x right/wrong)")
    return problems


def ami_origin():
    meeting = load_ami(DATA / "ami" / "ES2002d.ihm.jsonl").items[0].context.split("\n")
    joined = "\n".join(meeting)

    def origin(context: str):
        lines = context.split("\n")
        if not all(AMI_LINE.match(line) for line in lines):
            return None
        if context in joined and 30 <= len(lines) <= 150:
            start = meeting.index(lines[0])
            if meeting[start : start + len(lines)] == lines:
                return "real"
        return "fresh" if 30 <= len(lines) <= 100 else None

    return origin


def olmocr_origin():
    pages = {p.read_text(encoding="utf-8") for p in (DATA / "olmocr_bench" / "olmocr_pipeline").rglob("*.md")}

    def origin(context: str):
        if context in pages:
            return "real" if context.strip() else None
        return "fresh" if len(context) > 200 else None

    return origin


def main() -> int:
    problems = []
    for name, source, prefix, origin in (
        ("ami.jsonl", "ami", "v4-ami-", ami_origin()),
        ("olmocr.jsonl", "olmocr", "v4-olm-", olmocr_origin()),
    ):
        path = HERE / name
        if path.exists():
            problems += check_file(path, source, prefix, origin)
        else:
            problems.append(f"{name}: missing")
    for p in problems:
        print("PROBLEM", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
