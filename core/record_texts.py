"""A record's stored texts and the digests the store keys it by, computed in one place.

An import of many lines computes them in a worker process, beside the record it builds there (authoring/
file_lines.py), so the process that writes the store does not compute them again; every other writer has them
computed as it writes. Either way the same functions give the same text: `content_hash` keys the LLM cache and the
revisions, so the two ways must never differ by a byte (tests/authoring/test_file_import_workers.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from core.models import Record, content_hash


@dataclass(frozen=True)
class RecordTexts:
    record_json: str  # `records.record`: the whole record
    record_hash: str  # `records.content_hash`: the record without its provenance
    authored_json: str  # a revision's `content`: what the curator authored
    authored_hash: str  # a revision's `content_hash`


def record_texts(record: Record) -> RecordTexts:
    authored_json, authored_hash = authored_text(record)
    return RecordTexts(record.model_dump_json(), record_hash(record), authored_json, authored_hash)


def authored_text(record: Record) -> tuple[str, str]:
    """The authored content as a revision stores it, and its hash."""
    content = authored_content(record)
    return json.dumps(content, ensure_ascii=False), content_hash(content)


def record_hash(record: Record) -> str:
    return content_hash(record.model_dump(mode="json", exclude={"provenance"}))


def authored_content(record: Record) -> dict[str, Any]:
    """What a curator authors: the question, the schema, the answer and its evidence."""
    return {
        "question": record.input.question,
        "json_schema": record.input.json_schema,
        "ground_truth": record.output.ground_truth,
        "evidence": {path: ev.model_dump(mode="json") for path, ev in (record.output.evidence or {}).items()},
    }
