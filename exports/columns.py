"""The published row of a record: columns, their order and their Arrow types.

The column order follows the public SOB release: the record, then the source's own fields,
then provenance. The per-source fields are declared by each source (core/sources.py: `Source.columns`);
`SOURCE_COLUMNS` reads them from the registry.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

import pyarrow as pa

from core.models import Record
from core.sources import Source, get_source, is_source, source_names

# Columns every config has, before the source's own fields. The three JSON columns are JSON strings.
CORE_COLUMNS: tuple[tuple[str, pa.DataType], ...] = (
    ("record_id", pa.string()),
    ("context", pa.string()),
    ("question", pa.string()),
    ("json_schema", pa.string()),
    ("ground_truth", pa.string()),
    ("validated_output", pa.string()),
    ("question_difficulty", pa.string()),
    ("schema_complexity", pa.string()),
    ("source_id", pa.string()),
)


@cache
def _arrow_columns(source: Source) -> tuple[tuple[str, pa.DataType], ...]:
    return tuple((c.name, pa.type_for_alias(c.dtype)) for c in source.columns)


class _SourceColumns(Mapping[str, tuple[tuple[str, pa.DataType], ...]]):
    """Source name -> its own fields (taken from `record.metadata.extra`), as each source declares them."""

    def __getitem__(self, source: str) -> tuple[tuple[str, pa.DataType], ...]:
        if not is_source(source):
            raise KeyError(source)
        return _arrow_columns(get_source(source))

    def __iter__(self) -> Iterator[str]:
        return iter(source_names())

    def __len__(self) -> int:
        return len(source_names())


SOURCE_COLUMNS: Mapping[str, tuple[tuple[str, pa.DataType], ...]] = _SourceColumns()

# Provenance, after the source's fields. `judge_scores` is a JSON string.
PROVENANCE_COLUMNS: tuple[tuple[str, pa.DataType], ...] = (
    ("annotator", pa.string()),
    ("draft_model", pa.string()),
    ("judge", pa.string()),
    ("judge_scores", pa.string()),
    ("grounded_fraction", pa.float64()),
)

JSON_COLUMNS: tuple[str, ...] = ("json_schema", "ground_truth", "validated_output", "judge_scores")


def _source_columns(source: str) -> tuple[tuple[str, pa.DataType], ...]:
    try:
        return SOURCE_COLUMNS[source]
    except KeyError:
        raise ValueError(f"no column list for source {source!r}; known: {sorted(SOURCE_COLUMNS)}") from None


def column_names(source: str) -> list[str]:
    return [name for name, _ in (*CORE_COLUMNS, *_source_columns(source), *PROVENANCE_COLUMNS)]


def arrow_schema(source: str) -> pa.Schema:
    """The fixed schema of a source's data files (`record_id` is never null)."""
    fields = [pa.field(name, dtype, nullable=name != "record_id") for name, dtype in CORE_COLUMNS]
    fields += [pa.field(name, dtype) for name, dtype in _source_columns(source)]
    fields += [pa.field(name, dtype) for name, dtype in PROVENANCE_COLUMNS]
    return pa.schema(fields)


# `json.dumps(value, ensure_ascii=False)`, without building a new encoder for every value.
_JSON = json.JSONEncoder(ensure_ascii=False)


def to_json(value: Any) -> str | None:
    """JSON column spelling: key order kept, non-ASCII kept; None stays null."""
    return None if value is None else _JSON.encode(value)


def _coerce(value: Any, dtype: pa.DataType, record_id: str, name: str) -> Any:
    if value is None:
        return None
    if pa.types.is_string(dtype):
        if isinstance(value, str):
            return value
        if isinstance(value, dict | list):
            return _JSON.encode(value)
        return str(value)
    if pa.types.is_integer(dtype):
        if isinstance(value, bool):
            raise ValueError(f"record {record_id}: field {name!r} must be an integer, got {value!r}")
        try:
            as_int = int(value)
        except (TypeError, ValueError):
            raise ValueError(f"record {record_id}: field {name!r} must be an integer, got {value!r}") from None
        if as_int != value and str(as_int) != str(value).strip():
            raise ValueError(f"record {record_id}: field {name!r} must be an integer, got {value!r}")
        return as_int
    return value


def stored_row(
    data: Any, validation: dict[str, Any] | None = None, judge: dict[str, Any] | None = None
) -> dict[str, Any] | None:
    """`record_row` of a stored record's parsed JSON, without building the Record model (a release reads a
    few fields of every record). None when a field it reads is missing or of the wrong type: the caller
    then reads that record the model's way, which sets an unreadable record aside."""
    try:
        inputs, output, meta = data["input"], data["output"], data["metadata"]
        provenance = data.get("provenance", {})
        fields = {
            "record_id": data["record_id"],
            "context": inputs["context"],
            "question": inputs["question"],
            "source_id": meta["source_id"],
        }
        optional = {
            "question_difficulty": meta.get("question_difficulty"),
            "schema_complexity": meta.get("schema_complexity"),
            "annotator": provenance.get("annotator"),
            "draft_model": provenance.get("draft_model"),
            "judge": provenance.get("judge"),
        }
        schema, truth, validated = inputs["json_schema"], output["ground_truth"], output.get("validated_output")
        source, extra = meta["source"], meta.get("extra", {})
    except (KeyError, TypeError, AttributeError):
        return None
    if (
        not all(isinstance(value, str) for value in fields.values())
        or not fields["question"]
        or not fields["source_id"]
        or not all(value is None or isinstance(value, str) for value in optional.values())
        or not isinstance(schema, dict)
        or not isinstance(truth, dict)
        or not (validated is None or isinstance(validated, dict))
        or source not in SOURCE_COLUMNS
        or not isinstance(extra, dict)
    ):
        return None
    complexity = (validation or {}).get("complexity") or {}
    grounding = (validation or {}).get("grounding") or {}
    verdict = judge or {}
    record_id = fields["record_id"]
    row: dict[str, Any] = {
        "record_id": record_id,
        "context": fields["context"],
        "question": fields["question"],
        "json_schema": to_json(schema),
        "ground_truth": to_json(truth),
        "validated_output": to_json(validated),
        "question_difficulty": optional["question_difficulty"],
        "schema_complexity": optional["schema_complexity"] or complexity.get("level"),
        "source_id": fields["source_id"],
    }
    for name, dtype in SOURCE_COLUMNS[source]:
        row[name] = _coerce(extra.get(name), dtype, record_id, name)
    row["annotator"] = optional["annotator"]
    row["draft_model"] = optional["draft_model"]
    row["judge"] = optional["judge"] or verdict.get("judge")
    row["judge_scores"] = to_json(verdict.get("scores"))
    row["grounded_fraction"] = grounding.get("fraction")
    return row


def record_row(
    record: Record, validation: dict[str, Any] | None = None, judge: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The published row of one record (keys in column order)."""
    meta = record.metadata
    complexity = (validation or {}).get("complexity") or {}
    grounding = (validation or {}).get("grounding") or {}
    verdict = judge or {}
    row: dict[str, Any] = {
        "record_id": record.record_id,
        "context": record.input.context,
        "question": record.input.question,
        "json_schema": to_json(record.input.json_schema),
        "ground_truth": to_json(record.output.ground_truth),
        "validated_output": to_json(record.output.validated_output),
        "question_difficulty": meta.question_difficulty,
        "schema_complexity": meta.schema_complexity or complexity.get("level"),
        "source_id": meta.source_id,
    }
    for name, dtype in _source_columns(meta.source):
        row[name] = _coerce(meta.extra.get(name), dtype, record.record_id, name)
    scores = verdict.get("scores")
    row.update(
        {
            "annotator": record.provenance.annotator,
            "draft_model": record.provenance.draft_model,
            "judge": record.provenance.judge or verdict.get("judge"),
            "judge_scores": to_json(scores),
            "grounded_fraction": grounding.get("fraction"),
        }
    )
    return row
