"""Checks labelled calibration case files: each line parses, ids unique, ground truth validates against its
schema, every quoted evidence span occurs verbatim in the context, top-level schemas have >= 3 properties."""

import json
import sys

from jsonschema import Draft202012Validator

from core.evidence import parse_evidence_map

ids: set[str] = set()
bad = 0
for path in sys.argv[1:]:
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        where = f"{path}:{n}"
        try:
            c = json.loads(line)
        except ValueError as exc:
            print(where, "does not parse:", exc)
            bad += 1
            continue
        probs = []
        if c["id"] in ids:
            probs.append("duplicate id")
        ids.add(c["id"])
        if c["label"] not in ("right", "wrong"):
            probs.append("label")
        s = c["json_schema"]
        Draft202012Validator.check_schema(s)
        probs += [f"gt: {e.message}" for e in Draft202012Validator(s).iter_errors(c["ground_truth"])]
        if len(s["properties"]) < 3:
            probs.append("fewer than 3 top-level properties")
        if s.get("additionalProperties") is not False:
            probs.append("additionalProperties not false")
        ctx = c.get("context", "")
        if c["source"] in ("ami", "olmocr") and not ctx:
            probs.append("no context")
        ev, eprobs = parse_evidence_map(c.get("evidence"))
        probs += [f"evidence {p}: {m}" for p, m in eprobs]
        for p, e in ev.items():
            if e.quote is not None and e.quote not in ctx:
                probs.append(f"evidence {p}: quote not in context: {e.quote!r}")
        if probs:
            bad += 1
            print(where, c["id"], probs)
print("lines with problems:", bad, "| ids:", len(ids))
sys.exit(1 if bad else 0)
