"""Check a labelled calibration file: lines parse, ids unique, ground truth fits its schema,
every quoted evidence span occurs in the row's context (HotpotQA: loaded with the toolkit's loader)."""

import json
import sys
from pathlib import Path

from jsonschema import Draft202012Validator

from core.evidence import parse_evidence_map
from loaders.hotpotqa import load_hotpotqa

ROWS = ["tests/data/hotpotqa/hotpot_dev_distractor_v1.sample.json", "loaders/samples/hotpotqa/sample.json"]


def main(path: str) -> int:
    contexts = {it.source_id: it.context for p in ROWS for it in load_hotpotqa(Path(p)).items}
    problems, ids = [], set()
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        case = json.loads(line)
        if case["id"] in ids:
            problems.append(f"{n}: duplicate id {case['id']}")
        ids.add(case["id"])
        schema = case["json_schema"]
        Draft202012Validator.check_schema(schema)
        if len(schema["properties"]) < 3:
            problems.append(f"{n}: fewer than 3 top-level properties")
        for err in Draft202012Validator(schema).iter_errors(case["ground_truth"]):
            problems.append(f"{n}: ground truth: {err.message}")
        context = contexts.get(case["source_id"])
        if context is None:
            problems.append(f"{n}: unknown source_id {case['source_id']}")
            continue
        evidence, bad = parse_evidence_map(case.get("evidence"))
        problems += [f"{n}: evidence {p}: {m}" for p, m in bad]
        for p, ev in evidence.items():
            if ev.quote is not None and ev.kind != "expands" and ev.quote not in context:
                problems.append(f"{n}: {p} quote not in context: {ev.quote!r}")
            if ev.kind == "expands" and ev.quote not in context and ev.quote not in case["question"]:
                problems.append(f"{n}: {p} expands quote nowhere: {ev.quote!r}")
    print("\n".join(problems) or f"{len(ids)} cases OK")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
