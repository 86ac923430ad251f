import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from loaders.hotpotqa import HotpotFormatError, build_context, load_hotpotqa, sample_path, to_source_item


@pytest.fixture(scope="module")
def real_rows(test_data: Path) -> list[dict]:
    return json.loads((test_data / "hotpotqa" / "hotpot_dev_distractor_v1.sample.json").read_text())


def hub_shaped(row: dict) -> dict:
    """The Hub's columns: `id`, and lists inside dicts instead of pairs."""
    return {
        "id": row["_id"],
        "question": row["question"],
        "answer": row["answer"],
        "type": row["type"],
        "level": row["level"],
        "supporting_facts": {
            "title": [t for t, _ in row["supporting_facts"]],
            "sent_id": [i for _, i in row["supporting_facts"]],
        },
        "context": {"title": [t for t, _ in row["context"]], "sentences": [s for _, s in row["context"]]},
    }


def test_real_release_loads_with_context_as_written(test_data: Path, real_rows: list[dict]) -> None:
    result = load_hotpotqa(test_data / "hotpotqa" / "hotpot_dev_distractor_v1.sample.json")
    assert len(result.items) == 20 and not result.problems
    item = next(i for i in result.items if i.source_id == "5a8b57f25542995d1e6f1371")
    assert item.question == "Were Scott Derrickson and Ed Wood of the same nationality?"
    assert item.answer == "yes" and item.question_difficulty == "hard"
    assert item.metadata["type"] == "comparison" and item.metadata["split"] == "validation"
    assert item.metadata["supporting_facts"] == [["Scott Derrickson", 0], ["Ed Wood", 0]]
    paragraphs = item.context.split("\n\n")
    assert len(paragraphs) == len(real_rows[0]["context"]) == 10
    # Title on its own line, then the sentences joined as written: their leading spaces make the gaps.
    assert paragraphs[0].startswith("Ed Wood (film)\nEd Wood is a 1994 American")
    assert "Tim Burton, and starring Johnny Depp as cult filmmaker Ed Wood. The film concerns" in paragraphs[0]
    assert "  " not in paragraphs[0]


def test_supporting_context_keeps_only_supporting_paragraphs(test_data: Path) -> None:
    path = test_data / "hotpotqa" / "hotpot_dev_distractor_v1.sample.json"
    item = next(
        i for i in load_hotpotqa(path, context_mode="supporting").items if i.source_id == "5a8b57f25542995d1e6f1371"
    )
    titles = [block.split("\n", 1)[0] for block in item.context.split("\n\n")]
    assert titles == ["Scott Derrickson", "Ed Wood"]


def test_hub_shaped_parquet_and_jsonl_match_the_release(tmp_path: Path, test_data: Path, real_rows) -> None:
    release = load_hotpotqa(test_data / "hotpotqa" / "hotpot_dev_distractor_v1.sample.json")
    rows = [hub_shaped(r) for r in real_rows]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "validation.parquet")
    (tmp_path / "validation.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    for name in ("validation.parquet", "validation.jsonl"):
        loaded = load_hotpotqa(tmp_path / name)
        assert [i.model_dump() for i in loaded.items] == [i.model_dump() for i in release.items], name


def test_stratified_sample_is_deterministic_and_keeps_strata(test_data: Path) -> None:
    path = test_data / "hotpotqa" / "hotpot_dev_distractor_v1.sample.json"
    first = load_hotpotqa(path, limit=10, seed=7).items
    again = load_hotpotqa(path, limit=10, seed=7).items
    other = load_hotpotqa(path, limit=10, seed=8).items
    assert [i.source_id for i in first] == [i.source_id for i in again]
    assert {i.source_id for i in first} != {i.source_id for i in other}
    # 14 bridge/hard and 6 comparison/hard: half of each.
    types = sorted(i.metadata["type"] for i in first)
    assert types.count("bridge") == 7 and types.count("comparison") == 3


def test_bad_rows_are_reported_with_line_numbers(tmp_path: Path, real_rows) -> None:
    good = hub_shaped(real_rows[0])
    changed = dict(good, question="Something else?")
    lines = [
        json.dumps(good),
        "{not json",
        json.dumps({"id": "x1", "question": "q"}),  # missing answer and context
        json.dumps(changed),  # duplicate id, different content
        json.dumps(good),  # exact repeat: harmless
        json.dumps([1, 2]),
        json.dumps(dict(good, id="x2", context={"title": ["a"], "sentences": []})),
    ]
    (tmp_path / "rows.jsonl").write_text("\n".join(lines))
    result = load_hotpotqa(tmp_path / "rows.jsonl")
    assert [i.source_id for i in result.items] == [good["id"]]
    assert [(p.line_no, p.code) for p in result.problems] == [
        (2, "malformed_json"),
        (3, "bad_record"),
        (4, "duplicate_source_id"),
        (6, "not_an_object"),
        (7, "bad_record"),
    ]
    assert "answer" in result.problems[1].message and "context" in result.problems[1].message
    assert result.rows_read == 7


def test_unusable_files_raise_clear_errors(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text('{"not": "a list"}')
    with pytest.raises(HotpotFormatError, match="expected a JSON list"):
        load_hotpotqa(tmp_path / "a.json")
    (tmp_path / "b.csv").write_text("x")
    with pytest.raises(HotpotFormatError, match="unsupported file type"):
        load_hotpotqa(tmp_path / "b.csv")
    with pytest.raises(FileNotFoundError):
        load_hotpotqa(tmp_path / "missing.json")


def test_unicode_and_large_context_survive(real_rows) -> None:
    row = dict(real_rows[0], question="Qu'est-ce que « Ωmega » ? 日本語")
    row["context"] = [["Ωmega ☃", ["Ünïcode sentence."] + [" filler"] * 150_000]]
    item = to_source_item(row)
    assert item.question.endswith("日本語")
    assert item.context.startswith("Ωmega ☃\nÜnïcode sentence. filler")
    assert len(item.context) > 1_000_000


def test_build_context_separates_paragraphs_with_blank_lines() -> None:
    assert build_context([("A", ["x.", " y."]), ("B", ["z."])]) == "A\nx. y.\n\nB\nz."


def test_embedded_sample_loads() -> None:
    result = load_hotpotqa(sample_path())
    assert len(result.items) == 7 and not result.problems
    assert {i.metadata["type"] for i in result.items} == {"bridge", "comparison"}
