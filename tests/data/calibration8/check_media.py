"""Check the AMI and olmOCR case files of this set (ami.jsonl, olmocr.jsonl in a folder): well-formed data only.

Usage: python tests/data/calibration8/check_media.py [FOLDER]   (default: this file's folder)

Per line: it parses; the id is unique and carries its source's prefix; the label is right/wrong and the two are
balanced per file; every field the authored-record format needs is there, `split` "test"; the schema is an object schema
with at least 3 top-level properties, `additionalProperties: false` and a description on every property (nested too);
the ground truth validates against it (Draft 2020-12); every evidence entry parses (core/evidence.py), names a leaf
path of the ground truth, and every quote occurs verbatim in the inline context; an `absent` leaf is null or [].
Contexts cut from the repository's data are checked against it: `ES2002d#L<a>-<b>` must be lines a..b of the loader's
transcript of tests/data/ami/ES2002d.ihm.jsonl (30 to 150 lines); `bench:<path>` must be that olmOCR output file,
as it is. This checks the cases, never the gate. Exit 1 with one line per fault.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from jsonschema import Draft202012Validator  # noqa: E402

from core.evidence import QUOTED_KINDS, parse_evidence_map  # noqa: E402

PREFIX = {"ami": "v8-ami-", "olmocr": "v8-olm-"}
REQUIRED = ("id", "label", "kind", "note", "source", "source_id", "question", "json_schema", "ground_truth",
            "annotator", "context")  # fmt: skip
AMI_FILE = ROOT / "tests" / "data" / "ami" / "ES2002d.ihm.jsonl"
BENCH_DIR = ROOT / "tests" / "data" / "olmocr_bench" / "olmocr_pipeline"
WINDOW = re.compile(r"^ES2002d#L(\d+)-(\d+)$")


def _transcript_lines() -> list[str]:
    from loaders.ami import load_ami

    return load_ami(AMI_FILE).items[0].context.split("\n")


def _schema_faults(schema: Any, where: str) -> list[str]:
    faults = []
    if not isinstance(schema, dict):
        return [f"{where}: not an object"]
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "object" in kinds:
        props = schema.get("properties", {})
        if schema.get("additionalProperties") is not False:
            faults.append(f"{where}: additionalProperties is not false")
        if not set(schema.get("required", [])) <= set(props):
            faults.append(f"{where}: required names a missing property")
        for name, sub in props.items():
            if not isinstance(sub, dict) or not sub.get("description"):
                faults.append(f"{where}.{name}: no description")
            faults += _schema_faults(sub, f"{where}.{name}")
    if "array" in kinds and isinstance(schema.get("items"), dict):
        faults += _schema_faults(schema["items"], f"{where}[]")
    return faults


def _leaves(value: Any, path: str = "$") -> dict[str, Any]:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, sub in value.items():
            out.update(_leaves(sub, f"{path}.{key}"))
        return out
    if isinstance(value, list):
        if not value:
            return {path: value}
        out = {}
        for i, sub in enumerate(value):
            out.update(_leaves(sub, f"{path}[{i}]"))
        return out
    return {path: value}


def check_case(case: dict[str, Any], source: str, lines: list[str]) -> list[str]:
    faults = [f"missing {key}" for key in REQUIRED if key not in case]
    if faults:
        return faults
    if case.get("split") != "test":  # the set is a holdout: every case in the test half
        faults.append('split is not "test"')
    if case["source"] != source:
        faults.append(f"source {case['source']!r} in the {source} file")
    if not case["id"].startswith(PREFIX[source]):
        faults.append(f"id does not start with {PREFIX[source]}")
    if case["label"] not in ("right", "wrong"):
        faults.append(f"label {case['label']!r}")
    schema, truth, context = case["json_schema"], case["ground_truth"], case["context"]
    if schema.get("type") != "object" or len(schema.get("properties", {})) < 3:
        faults.append("schema is not an object with at least 3 top-level properties")
    faults += _schema_faults(schema, "$")
    Draft202012Validator.check_schema(schema)
    faults += [f"ground truth: {e.message}" for e in Draft202012Validator(schema).iter_errors(truth)]
    leaves = _leaves(truth)
    evidence, problems = parse_evidence_map(case.get("evidence"))
    faults += [f"evidence {path}: {problem}" for path, problem in problems]
    for path, entry in evidence.items():
        if path not in leaves:
            faults.append(f"evidence {path}: not a leaf of the ground truth")
            continue
        if entry.kind in QUOTED_KINDS and entry.quote is not None and entry.quote not in context:
            faults.append(f"evidence {path}: quote not in the context: {entry.quote[:60]!r}")
        if entry.kind == "absent" and leaves[path] not in (None, []):
            faults.append(f"evidence {path}: absent but the value is {leaves[path]!r}")
        for src in entry.sources:
            if src not in leaves and not any(p.startswith(src) for p in leaves):
                faults.append(f"evidence {path}: derived from {src}, not in the ground truth")
    window = WINDOW.match(case["source_id"])
    if window:
        a, b = int(window[1]), int(window[2])
        if not 30 <= b - a + 1 <= 150:
            faults.append(f"window of {b - a + 1} lines")
        if context != "\n".join(lines[a - 1 : b]):
            faults.append("context is not that window of the loader's ES2002d transcript")
    elif case["source_id"].startswith("bench:"):
        page = BENCH_DIR / case["source_id"].removeprefix("bench:")
        if not page.is_file() or page.read_text(encoding="utf-8") != context:
            faults.append("context is not that olmOCR output file as it is")
    return faults


def check_folder(folder: Path) -> list[str]:
    faults: list[str] = []
    lines = _transcript_lines()
    seen: set[str] = set()
    for source, name in (("ami", "ami.jsonl"), ("olmocr", "olmocr.jsonl")):
        path = folder / name
        if not path.is_file():
            faults.append(f"{name}: missing")
            continue
        labels = {"right": 0, "wrong": 0}
        for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not raw.strip():
                continue
            try:
                case = json.loads(raw)
            except json.JSONDecodeError as exc:
                faults.append(f"{name}:{number}: not JSON ({exc})")
                continue
            if case.get("id") in seen:
                faults.append(f"{name}:{number}: duplicate id {case.get('id')}")
            seen.add(case.get("id"))
            labels[case.get("label")] = labels.get(case.get("label"), 0) + 1
            faults += [f"{name}:{number} {case.get('id')}: {f}" for f in check_case(case, source, lines)]
        if labels["right"] != labels["wrong"]:
            faults.append(f"{name}: {labels['right']} right, {labels['wrong']} wrong")
        print(f"{name}: {labels['right']} right, {labels['wrong']} wrong")
    return faults


def main(argv: list[str]) -> int:
    folder = Path(argv[1]) if len(argv) > 1 else Path(__file__).parent
    faults = check_folder(folder)
    for fault in faults:
        print(fault)
    print("ok" if not faults else f"{len(faults)} fault(s)")
    return 1 if faults else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
