"""A real release to score: records with flat, nested, nullable and array answers, written by exports."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from core.models import Provenance, Record, RecordState, SourceItem
from core.store import StateChange, Store
from core.verdicts import ComplexityInfo, JudgeVerdict, ValidationReport

JUDGE = {"judge_name": "heuristic", "judge_version": "rubric-1", "threshold": 60, "toolkit_version": "0.1.0"}

FLAT = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "population": {"type": "integer"}, "capital": {"type": "boolean"}},
    "required": ["city", "population", "capital"],
}
NESTED = {
    "type": "object",
    "properties": {
        "people": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "role": {"type": "string"}},
                "required": ["name", "role"],
            },
        },
        "year": {"type": "integer"},
    },
    "required": ["people", "year"],
}
NULLABLE = {
    "type": "object",
    "properties": {
        "title": {"type": "string"},
        "sequel": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "awards": {"type": "array", "items": {"type": "string"}},
        "rating": {"type": ["number", "null"]},
    },
    "required": ["title", "sequel", "awards", "rating"],
}
LEVELS = ("easy", "medium", "hard")


def record_parts(i: int) -> tuple[str, dict, dict]:
    """(context, schema, ground truth) of record i; every value is stated in the context, in order."""
    kind = i % 3
    if kind == 0:
        city = f"Zurich{i}"
        context = f"{city} has a population of {400000 + i} and is not the capital."
        return context, FLAT, {"city": city, "population": 400000 + i, "capital": False}
    if kind == 1:
        context = f"In {1990 + i}, Ada Lovelace{i} was the director and Alan Turing{i} was the editor."
        truth = {
            "people": [{"name": f"Ada Lovelace{i}", "role": "director"}, {"name": f"Alan Turing{i}", "role": "editor"}],
            "year": 1990 + i,
        }
        return context, NESTED, truth
    context = f"The film Arrival{i} has no sequel and won no awards; its rating is 7.{i % 10}."
    return context, NULLABLE, {"title": f"Arrival{i}", "sequel": None, "awards": [], "rating": float(f"7.{i % 10}")}


def make_record(i: int) -> Record:
    context, schema, truth = record_parts(i)
    item = SourceItem(
        source="hotpotqa",
        source_id=f"hp-{i}",
        context=context,
        answer="x",
        question_difficulty=LEVELS[i % 3],
        metadata={"type": "bridge", "level": LEVELS[i % 3]},
    )
    return Record.build(
        item,
        question=f"Question {i}?",
        json_schema=schema,
        ground_truth=truth,
        provenance=Provenance(annotator="curator-a", draft_model="draft-llm"),
    )


def accept(store: Store, records: list[Record]) -> None:
    items = [SourceItem(source="hotpotqa", source_id=r.metadata.source_id, context=r.input.context) for r in records]
    store.upsert_source_items(items)
    store.upsert_records(records, RecordState.AUTHORED, "import")
    changes = []
    for n, record in enumerate(records):
        level = LEVELS[(n // 3) % 3]  # varies independently of the schema kind
        validation = ValidationReport(
            passed=True, complexity=ComplexityInfo(level=level, properties=3, top_level_properties=3, required=3)
        ).model_dump()
        verdict = JudgeVerdict(judge="heuristic", version="rubric-1", scores={"accuracy": 90}).model_dump()
        changes.append(
            StateChange(record.record_id, RecordState.ACCEPTED, "judge", validation=validation, judge=verdict)
        )
    store.apply(changes)


@pytest.fixture(scope="session")
def scored_release(tmp_path_factory) -> SimpleNamespace:
    """A text release of 24 records (read-only: copy it before changing anything)."""
    from exports import write_release

    workspace = tmp_path_factory.mktemp("scoring") / "ws"
    records = [make_record(i) for i in range(24)]
    with Store.open(workspace) as store:
        accept(store, records)
        result = write_release(store, "hotpotqa", "1.0.0", workspace, plots=False, **JUDGE)
    return SimpleNamespace(workspace=workspace, path=result.path, records={r.record_id: r for r in records})


@pytest.fixture
def release_copy(scored_release, tmp_path) -> SimpleNamespace:
    """A private copy of the release and its workspace (tests that write flags or drafts use this)."""
    workspace = tmp_path / "ws"
    shutil.copytree(scored_release.workspace, workspace)
    path = workspace / scored_release.path.relative_to(scored_release.workspace)
    return SimpleNamespace(workspace=workspace, path=path, records=scored_release.records)


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture
def factory() -> SimpleNamespace:
    return SimpleNamespace(write_jsonl=write_jsonl, make_record=make_record)
