"""Benchmark: write and read back a 25,000-record text release with its card and plots.

Fills a temporary workspace with N accepted HotpotQA-shaped records (contexts of about 5 KB:
ten paragraphs over a Zipf-distributed vocabulary with numbers, accents and dashes, validation
reports and judge verdicts attached), then times:

- write: `write_release` (data files, token counts, statistics, plots, card, manifest);
- read back: `datasets.load_dataset` on the release folder, every split, into a fresh cache;
- a second version (five per cent of the records edited, one per cent added) with its changelog,
  and the publication of both versions to a local folder in the Hub repo's layout (not part of
  the target).

Prints seconds, the release's size on disk and the tokenizer used. Target: write + read back of
25,000 records under 20 s.

    python benchmarks/bench_release.py --records 25000
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

import datasets

from core.models import Provenance, Record, RecordState, SourceItem
from core.store import StateChange, Store
from core.verdicts import ComplexityInfo, GroundingInfo, JudgeVerdict, ValidationReport
from exports.hub import publish_release
from exports.release import write_release
from exports.stats import get_tokenizer

TARGET_SECONDS = 20.0
SYLLABLES = "ka lo mi ra ve tu sen dor al bri cha fel gan hom ist jur ket lum nor pol quen ros tal ur vin wes".split()
EXTRA = ["Zürich", "São", "Malmö", "Dvořák", "1990–1995", "naïve", "café", "Łódź", "—", "“quoted”"]


def vocabulary(rng: random.Random, size: int = 20_000) -> tuple[list[str], list[float]]:
    words = {"".join(rng.choices(SYLLABLES, k=rng.randint(1, 4))) for _ in range(size * 2)}
    ordered = sorted(words)[:size] + EXTRA
    rng.shuffle(ordered)
    cumulative = list(itertools.accumulate(1.0 / (rank + 1) for rank in range(len(ordered))))  # Zipf
    return ordered, cumulative


def context(rng: random.Random, words: list[str], cumulative: list[float], i: int) -> str:
    paragraphs = []
    for k in range(10):
        sentences = []
        for _ in range(4):
            body = rng.choices(words, cum_weights=cumulative, k=rng.randint(10, 16))
            body[0] = body[0].capitalize()
            if rng.random() < 0.4:
                body.insert(rng.randrange(len(body)), str(rng.randint(1700, 2024)))
            sentences.append(" ".join(body) + rng.choice([".", ".", ",", ";"])[-1])
        paragraphs.append(f"Title {i}-{k}\n" + " ".join(sentences))
    return "\n\n".join(paragraphs)


SCHEMA = {
    "type": "object",
    "properties": {
        "entities": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "founded": {"type": "integer"}},
                "required": ["name", "founded"],
            },
        },
        "earlier": {"type": "string"},
        "members": {"type": "integer"},
    },
    "required": ["entities", "earlier", "members"],
}


def build(store: Store, n: int, seed: int = 0, start: int = 0, edit: set[int] | None = None) -> None:
    rng = random.Random(seed)
    words, cumulative = vocabulary(random.Random(1))
    items, records, changes = [], [], []
    for i in range(start, start + n):
        item = SourceItem(
            source="hotpotqa",
            source_id=f"bench-{i:06d}",
            context=context(rng, words, cumulative, i),
            answer=f"Entity {i}",
            question_difficulty=("easy", "medium", "hard")[i % 3],
            metadata={"type": "comparison" if i % 3 else "bridge", "level": ("easy", "medium", "hard")[i % 3]},
        )
        truth = {
            "entities": [{"name": f"Entity {i}", "founded": 1900 + i % 100}, {"name": "Other", "founded": 1950}],
            "earlier": f"Entity {i}" + (" (edited)" if edit and i in edit else ""),
            "members": 1500,
        }
        record = Record.build(
            item,
            question=f"Which was founded earlier, Entity {i} or Other?",
            json_schema=SCHEMA,
            ground_truth=truth,
            provenance=Provenance(annotator=f"curator-{i % 7}", draft_model="gemini-flash" if i % 2 else None),
        )
        if edit is not None and i not in edit:
            continue  # unchanged: already in the store
        items.append(item)
        records.append(record)
        level = ("easy", "medium", "hard")[i % 3]
        validation = ValidationReport(
            passed=True,
            grounding=GroundingInfo(leaves=5, grounded=5, fraction=1.0),
            complexity=ComplexityInfo(level=level, properties=5 + i % 6, top_level_properties=3, required=3 + i % 3),
        ).model_dump()
        scores = {"accuracy": 60 + i % 41, "grounding": 70 + i % 31, "schema_quality": 65 + (i * 7) % 36}
        verdict = JudgeVerdict(judge="heuristic", version="bench", scores=scores).model_dump()
        changes.append(
            StateChange(record.record_id, RecordState.ACCEPTED, "judge", validation=validation, judge=verdict)
        )
    store.upsert_source_items(items)
    store.upsert_records(records, RecordState.AUTHORED, "import")
    store.apply(changes)


def size_on_disk(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def timed(label: str, fn):
    start = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - start
    print(f"{label:<44} {seconds:7.2f} s")
    return result, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=25_000)
    args = parser.parse_args()
    n = args.records
    datasets.disable_progress_bars()
    kwargs = dict(judge_name="heuristic", judge_version="bench", threshold=60, toolkit_version="bench")
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp) / "workspace"
        with Store.open(workspace) as store:
            timed(f"setup: {n:,} accepted records in the store", lambda: build(store, n))
            get_tokenizer()  # loading it is a one-off, not part of a release
            release, t_write = timed(
                "write release 1.0.0 (data, stats, plots, card)",
                lambda: write_release(store, "hotpotqa", "1.0.0", workspace, **kwargs),
            )

            def read_back():
                loaded = datasets.load_dataset(str(release.path), cache_dir=str(Path(tmp) / "hf-cache"))
                return {split: ds.num_rows for split, ds in loaded.items()}

            rows, t_read = timed("read back with datasets.load_dataset", read_back)
            assert sum(rows.values()) == n, rows
            context_bytes = sum(len(r.record.input.context.encode()) for r in store.records("hotpotqa"))
            edited = set(range(0, n, 20))
            timed(
                f"setup: edit {len(edited):,}, add {n // 100:,} records",
                lambda: (build(store, n, edit=edited), build(store, n // 100, seed=1, start=n)),
            )
            second, _ = timed(
                "write release 1.1.0 (with its changelog)",
                lambda: write_release(store, "hotpotqa", "1.1.0", workspace, **kwargs),
            )
        mirror = Path(tmp) / "hub-layout"
        quiet = {"echo": lambda _: None}
        timed(
            "publish 1.0.0 to a folder in the Hub layout", lambda: publish_release(release.path, str(mirror), **quiet)
        )
        timed("publish 1.1.0 over it", lambda: publish_release(second.path, str(mirror), **quiet))

        size = size_on_disk(release.path)
        data = size_on_disk(release.path / "data")
        total = t_write + t_read
        log = json.loads((second.path / "manifest.json").read_text())["changelog"]["totals"]
        print()
        print(f"records: {sum(rows.values()):,} {rows}")
        overall = json.loads((release.path / "manifest.json").read_text())["statistics"]["overall"]
        print(f"contexts: {context_bytes / n / 1000:.1f} KB on average, {overall['avg_context_tokens']:,} tokens")
        print(f"tokenizer: {get_tokenizer().name}")
        print(f"release size on disk: {size / 1e6:.1f} MB ({data / 1e6:.1f} MB data files)")
        print(f"changelog 1.0.0 -> 1.1.0: {log}")
        verdict = "OK" if total < TARGET_SECONDS else "OVER"
        print(f"write + read back: {total:.1f} s (target < {TARGET_SECONDS:.0f} s): {verdict}")
        print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
