"""Benchmark: score 21 models x 5,000 text records with SOB's metrics, as SOB's leaderboard table.

Writes a real 5,000-record text release (HotpotQA-shaped answers over four schema shapes: flat,
nullable, nested arrays of objects, lists of strings; easy/medium/hard complexity) into a
temporary workspace, then 21 prediction files of synthetic model answers in SOB's response format
(each model with its own error rates: unparsable text, wrong values, missing keys, wrong types,
reordered arrays). Times, as `python -m scoring` does it: reading the predictions, scoring every
record for every model, and the plain and complexity-weighted means with 1,000-sample bootstrap
CIs for every metric and category.

Prints records per second and the total. Target: the whole table (21 x 5,000) under 60 s.

    python benchmarks/bench_scoring.py --records 5000 --models 21
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import tempfile
import time
from pathlib import Path

from core.models import Provenance, Record, RecordState, SourceItem
from core.store import StateChange, Store
from core.verdicts import ComplexityInfo, JudgeVerdict, ValidationReport
from exports.release import write_release
from scoring.evaluate import build_references, score_model
from scoring.inputs import Predictions, load_predictions, load_release
from scoring.suspects import find_suspects

TARGET_SECONDS = 60.0
LEVELS = ("easy", "medium", "hard")
WORDS = "river castle novel election bridge album senator comet harbour opera glacier treaty museum".split()

SCHEMAS = [
    {
        "type": "object",
        "properties": {"answer": {"type": "string"}, "year": {"type": "integer"}, "confirmed": {"type": "boolean"}},
        "required": ["answer", "year", "confirmed"],
    },
    {
        "type": "object",
        "properties": {
            "entity": {"type": "string"},
            "alias": {"type": ["string", "null"]},
            "score": {"type": "number"},
            "sources": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["entity", "alias", "score", "sources"],
    },
    {
        "type": "object",
        "properties": {
            "people": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "role": {"type": "string"}, "born": {"type": "integer"}},
                    "required": ["name", "role", "born"],
                },
            },
            "summary": {"type": "string"},
        },
        "required": ["people", "summary"],
    },
    {
        "type": "object",
        "properties": {
            "comparison": {
                "type": "object",
                "properties": {"first": {"type": "string"}, "second": {"type": "string"}, "same": {"type": "boolean"}},
                "required": ["first", "second", "same"],
            },
            "facts": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["comparison", "facts"],
    },
]


def phrase(rng: random.Random, n: int = 3) -> str:
    return " ".join(rng.choice(WORDS).capitalize() for _ in range(n))


def truth_for(kind: int, rng: random.Random) -> dict:
    if kind == 0:
        return {"answer": phrase(rng), "year": rng.randint(1800, 2020), "confirmed": rng.random() < 0.5}
    if kind == 1:
        return {
            "entity": phrase(rng),
            "alias": phrase(rng, 2) if rng.random() < 0.5 else None,
            "score": round(rng.uniform(0, 100), 2),
            "sources": [phrase(rng, 2) for _ in range(rng.randint(0, 4))],
        }
    if kind == 2:
        people = [
            {"name": phrase(rng, 2), "role": rng.choice(WORDS), "born": rng.randint(1800, 2000)}
            for _ in range(rng.randint(1, 5))
        ]
        return {"people": people, "summary": phrase(rng, 8)}
    return {
        "comparison": {"first": phrase(rng, 2), "second": phrase(rng, 2), "same": rng.random() < 0.5},
        "facts": [phrase(rng, 4) for _ in range(rng.randint(1, 3))],
    }


def build_release(workspace: Path, n: int, rng: random.Random) -> Path:
    records, changes = [], []
    for i in range(n):
        kind = i % len(SCHEMAS)
        truth = truth_for(kind, rng)
        item = SourceItem(
            source="hotpotqa",
            source_id=f"bench-{i}",
            context=json.dumps(truth),
            answer="x",
            metadata={"type": "bridge", "level": "hard"},
        )
        records.append(
            Record.build(item, f"Question {i}?", copy.deepcopy(SCHEMAS[kind]), truth, Provenance(annotator="c"))
        )
    with Store.open(workspace) as store:
        store.upsert_source_items(
            SourceItem(source="hotpotqa", source_id=r.metadata.source_id, context=r.input.context) for r in records
        )
        store.upsert_records(records, RecordState.AUTHORED, "import")
        for record in records:
            level = LEVELS[rng.randrange(3)]
            validation = ValidationReport(passed=True, complexity=ComplexityInfo(level=level)).model_dump()
            verdict = JudgeVerdict(judge="heuristic", version="rubric-1", scores={"accuracy": 90}).model_dump()
            changes.append(
                StateChange(record.record_id, RecordState.ACCEPTED, "judge", validation=validation, judge=verdict)
            )
        store.apply(changes)
        result = write_release(
            store,
            "hotpotqa",
            "1.0.0",
            workspace,
            judge_name="heuristic",
            judge_version="rubric-1",
            threshold=60,
            toolkit_version="bench",
            plots=False,
        )
    return result.path


def model_answer(truth: dict, rng: random.Random, skill: float) -> object:
    roll = rng.random()
    if roll < 0.02 * (1 - skill):
        return "```json\n" + json.dumps(truth) + "\n```"  # unparsable as SOB scores it
    answer = copy.deepcopy(truth)
    if rng.random() > skill:
        key = rng.choice(list(answer))
        value = answer[key]
        if isinstance(value, str):
            answer[key] = value.split()[0]  # partly right: faithfulness credit, no exact match
        elif isinstance(value, list) and len(value) > 1:
            answer[key] = list(reversed(value))  # reordered: SOB scores by index
        elif isinstance(value, bool):
            answer[key] = "yes"  # wrong type: fails the schema
        elif rng.random() < 0.5:
            del answer[key]  # missing key
    return answer


def write_predictions(folder: Path, release_records: dict, models: int, rng: random.Random) -> list[Path]:
    files = []
    for m in range(models):
        skill = 0.55 + 0.4 * m / max(1, models - 1)
        path = folder / f"response_model-{m:02d}.jsonl"
        with path.open("w", encoding="utf-8") as fh:
            for rid, record in release_records.items():
                line = {
                    "metadata": {"record_id": rid, "model_id": f"model-{m:02d}", "schema_complexity": "easy"},
                    "input": {"question": record.question, "json_schema": record.json_schema},
                    "output": {
                        "candidate_response": model_answer(record.ground_truth, rng, skill),
                        "ground_truth": record.ground_truth,
                    },
                }
                fh.write(json.dumps(line) + "\n")
        files.append(path)
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=5000)
    parser.add_argument("--models", type=int, default=21)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--suspects", action="store_true", help="also time the suspect search over all models")
    args = parser.parse_args()
    rng = random.Random(args.seed)

    with tempfile.TemporaryDirectory(prefix="bench-scoring-") as tmp:
        t0 = time.perf_counter()
        release_path = build_release(Path(tmp) / "ws", args.records, rng)
        release = load_release(release_path)
        files = write_predictions(Path(tmp), release.records, args.models, rng)
        setup = time.perf_counter() - t0
        print(f"setup (release of {len(release.records)} records, {len(files)} prediction files): {setup:.1f} s")

        start, cpu_start = time.perf_counter(), time.process_time()
        predictions = Predictions()
        for file in files:
            predictions.add(load_predictions(file))
        loaded = time.perf_counter()
        references = build_references(release)
        results = [
            score_model(release, references, model, responses)
            for model, responses in sorted(predictions.by_model.items())
        ]
        scored = time.perf_counter()
        summaries = [r.summary(samples=args.bootstrap, seed=42) for r in results]
        done, cpu_done = time.perf_counter(), time.process_time()
        if args.suspects:
            truths = {rid: r.ground_truth for rid, r in release.records.items()}
            found = find_suspects(truths, predictions.by_model)
            print(f"suspects: {len(found)} found in {time.perf_counter() - done:.2f} s (not part of the target)")

    pairs = args.models * len(release.records)
    total = done - start
    print(f"read predictions: {loaded - start:.2f} s ({pairs} lines)")
    print(f"score: {scored - loaded:.2f} s = {pairs / (scored - loaded):,.0f} records/s")
    print(f"means + {args.bootstrap}-sample bootstrap CIs (plain and weighted): {done - scored:.2f} s")
    print(
        f"total: {total:.2f} s for {args.models} models x {len(release.records)} records "
        f"= {pairs / total:,.0f} records/s"
    )
    print(f"CPU time of the process: {cpu_done - cpu_start:.2f} s (the machine is shared: wall time includes waiting)")
    best = max(summaries, key=lambda s: s["weighted"]["value_accuracy"]["mean"])
    worst = min(summaries, key=lambda s: s["weighted"]["value_accuracy"]["mean"])
    for label, s in (("best", best), ("worst", worst)):
        va = s["weighted"]["value_accuracy"]
        print(
            f"{label}: {s['model']} weighted value accuracy {va['mean']:.3f} "
            f"[{va['ci95_low']:.3f}, {va['ci95_high']:.3f}], "
            f"JSON pass {s['weighted']['json_pass_rate']['mean']:.3f}"
        )
    print(f"target: under {TARGET_SECONDS:.0f} s: {'met' if total < TARGET_SECONDS else 'NOT met'}")
    return 0 if total < TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
