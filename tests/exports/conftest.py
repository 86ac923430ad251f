"""Shared fixtures for the release tests: a temporary store with accepted and rejected records."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from core.models import Provenance, Reason, Record, RecordState, SourceItem
from core.store import StateChange, Store
from core.verdicts import ComplexityInfo, GroundingInfo, JudgeVerdict, ValidationReport

JUDGE = {"judge_name": "heuristic", "judge_version": "rubric-1", "threshold": 60, "toolkit_version": "0.1.0"}

SCHEMA = {
    "type": "object",
    "properties": {
        "answer": {"type": "string"},
        "evidence": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["answer"],
}


@pytest.fixture(autouse=True)
def _hf_offline(tmp_path, monkeypatch):
    """Hugging Face caches in the test's tmp dir, and never online (tests pass cache_dir too)."""
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-datasets"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")


def source_extra(source: str, i: int) -> dict:
    if source == "hotpotqa":
        return {"type": "bridge" if i % 2 else "comparison", "level": "hard"}
    if source == "olmocr":
        return {"source_pdf": f"doc-{i}.pdf", "source_category": "academic" if i % 3 else "legal"}
    return {"meeting_id": f"ES20{i:02d}a", "num_speakers": 3 + i % 2}


def make_record(source: str, i: int, tag: str = "") -> Record:
    item = SourceItem(
        source=source,
        source_id=f"{source}-{tag}{i}",
        context=f"Paragraph {i}: Zürich is a city in Switzerland. Population {1000 + i}.",
        question=None,
        answer=f"Zürich {i}" if source == "hotpotqa" else None,
        question_difficulty=("easy", "medium", "hard")[i % 3] if source == "hotpotqa" else None,
        metadata=source_extra(source, i),
    )
    return Record.build(
        item,
        question=f"Where is the city in paragraph {tag}{i}?",
        json_schema=SCHEMA,
        ground_truth={"answer": f"Zürich {i}", "evidence": [f"Population {1000 + i}"]},
        provenance=Provenance(annotator="curator-a", draft_model="draft-llm"),
    )


def validation_report(i: int) -> dict:
    return ValidationReport(
        passed=True,
        grounding=GroundingInfo(leaves=2, grounded=2 - i % 2, fraction=1.0 - 0.5 * (i % 2)),
        complexity=ComplexityInfo(
            level=("easy", "medium", "hard")[i % 3], properties=2 + i % 3, top_level_properties=2, required=1 + i % 2
        ),
    ).model_dump()


def verdict(i: int) -> dict:
    return JudgeVerdict(
        judge="heuristic", version="rubric-1", scores={"faithfulness": 90, "schema": 70 + i % 10}
    ).model_dump()


def add_records(store: Store, source: str, accepted: range, rejected: range = range(0), tag: str = "") -> list[Record]:
    """Load source items, author records, accept some and reject others (with reasons)."""
    records = [make_record(source, i, tag) for i in [*accepted, *rejected]]
    items = [SourceItem(source=source, source_id=r.metadata.source_id, context=r.input.context) for r in records]
    store.upsert_source_items(items)
    store.upsert_records(records, RecordState.AUTHORED, "import")
    by_i = dict(zip([*accepted, *rejected], records, strict=True))
    changes = [
        StateChange(by_i[i].record_id, RecordState.ACCEPTED, "judge", validation=validation_report(i), judge=verdict(i))
        for i in accepted
    ]
    changes += [
        StateChange(
            by_i[i].record_id,
            RecordState.REJECTED,
            "validation" if i % 2 else "judge",
            reasons=[
                Reason(stage="validation", code="ground_truth_invalid", message="does not validate")
                if i % 2
                else Reason(stage="judge", code="faithfulness_below_threshold", message="score 40 < 60")
            ],
        )
        for i in rejected
    ]
    store.apply(changes)
    return [by_i[i] for i in accepted]


@pytest.fixture
def judge_kwargs() -> dict:
    """write_release's keyword arguments. Plots are off here (they cost ~0.3 s a release); the
    session's `release_history` and the plot tests render them."""
    return dict(JUDGE, plots=False)


@pytest.fixture
def factory() -> SimpleNamespace:
    """The helpers above, for test modules (conftest itself is not importable)."""
    return SimpleNamespace(
        make_record=make_record, validation_report=validation_report, verdict=verdict, add_records=add_records
    )


@pytest.fixture(scope="session")
def release_history(tmp_path_factory) -> SimpleNamespace:
    """Releases written once per session (read-only: copy one before changing it): default 1.0.0
    (30 accepted, 3 rejected); default 1.1.0 with five records added, one edited and one
    withdrawn; image 1.0.0 (6 records)."""
    from exports import write_release

    workspace = tmp_path_factory.mktemp("history") / "ws"
    with Store.open(workspace) as s:
        accepted = add_records(s, "hotpotqa", range(30), rejected=range(30, 33))
        first = write_release(s, "hotpotqa", "1.0.0", workspace, **JUDGE)
        added = add_records(s, "hotpotqa", range(40, 45), tag="b")
        edited = accepted[3].model_copy(deep=True)
        edited.output.ground_truth = {"answer": "Zürich, edited", "evidence": ["Population 1003"]}
        s.upsert_records([edited], RecordState.AUTHORED, "import")
        s.apply(
            [
                StateChange(
                    edited.record_id, RecordState.ACCEPTED, "judge", validation=validation_report(3), judge=verdict(3)
                ),
                StateChange(
                    accepted[7].record_id,
                    RecordState.REJECTED,
                    "curator",
                    reasons=[Reason(stage="curator", code="withdrawn", message="duplicate question")],
                ),
            ]
        )
        second = write_release(s, "hotpotqa", "1.1.0", workspace, **JUDGE)
        add_records(s, "olmocr", range(6))
        image = write_release(s, "olmocr", "1.0.0", workspace, **JUDGE)
        splits = s.split_assignments("default")
    return SimpleNamespace(
        workspace=workspace,
        paths={"default-1.0.0": first.path, "default-1.1.0": second.path, "image-1.0.0": image.path},
        added={r.record_id for r in added},
        edited=edited.record_id,
        withdrawn=accepted[7].record_id,
        splits=splits,
    )


@pytest.fixture
def store(tmp_path):
    with Store.open(tmp_path / "ws") as s:
        yield s


@pytest.fixture
def workspace(tmp_path) -> Path:
    return tmp_path / "ws"
