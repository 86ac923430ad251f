"""Fixtures for the validation tests: a good record about a real HotpotQA context, and a record factory."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from core.models import Record, SourceItem

HOTPOT_SAMPLE = Path("hotpotqa") / "hotpot_dev_distractor_v1.sample.json"
ED_WOOD_ID = "5a8b57f25542995d1e6f1371"  # "Were Scott Derrickson and Ed Wood of the same nationality?"

GOOD_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "film": {"type": "string"},
        "release_year": {"type": "integer"},
        "director": {"type": "string"},
        "cast": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"actor": {"type": "string"}, "character": {"type": ["string", "null"]}},
                "required": ["actor", "character"],
                "additionalProperties": False,
            },
        },
        "genres": {"type": "array", "items": {"type": "string"}},
        "studio": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    },
    "required": ["film", "release_year", "director", "cast", "genres", "studio"],
    "additionalProperties": False,
}

# Every string and number below is written in the Ed Wood row's context.
GOOD_GROUND_TRUTH: dict[str, Any] = {
    "film": "Ed Wood",
    "release_year": 1994,
    "director": "Tim Burton",
    "cast": [
        {"actor": "Johnny Depp", "character": "Ed Wood"},
        {"actor": "Martin Landau", "character": "Bela Lugosi"},
    ],
    "genres": ["biographical", "comedy-drama"],
    "studio": None,
}


def hotpot_context(row: dict[str, Any]) -> str:
    """As the loader builds it: each paragraph is its title on a line, then its sentences joined as
    written (they keep their leading spaces); paragraphs are separated by blank lines."""
    return "\n\n".join(f"{title}\n{''.join(sentences)}" for title, sentences in row["context"])


@pytest.fixture(scope="session")
def hotpot_rows(test_data: Path) -> dict[str, dict[str, Any]]:
    rows = json.loads((test_data / HOTPOT_SAMPLE).read_text(encoding="utf-8"))
    return {row["_id"]: row for row in rows}


@pytest.fixture(scope="session")
def hotpot_contexts(hotpot_rows: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Context of every sample row, by `_id`."""
    return {row_id: hotpot_context(row) for row_id, row in hotpot_rows.items()}


@pytest.fixture(scope="session")
def ed_wood_context(hotpot_contexts: dict[str, str]) -> str:
    return hotpot_contexts[ED_WOOD_ID]


@pytest.fixture
def good_schema() -> dict[str, Any]:
    return copy.deepcopy(GOOD_SCHEMA)


@pytest.fixture
def good_ground_truth() -> dict[str, Any]:
    return copy.deepcopy(GOOD_GROUND_TRUTH)


MakeRecord = Callable[..., Record]


@pytest.fixture
def make_record(ed_wood_context: str) -> MakeRecord:
    """Build a record; schema and ground truth default to the good ones, the context to Ed Wood's."""

    def make(
        schema: Any = None,
        ground_truth: Any = None,
        context: str | None = None,
        question: str = "Who directed the film about Ed Wood, and who starred in it?",
    ) -> Record:
        item = SourceItem(source="hotpotqa", source_id=ED_WOOD_ID, context=context or ed_wood_context)
        return Record.build(
            item,
            question,
            copy.deepcopy(GOOD_SCHEMA) if schema is None else schema,
            copy.deepcopy(GOOD_GROUND_TRUTH) if ground_truth is None else ground_truth,
        )

    return make
