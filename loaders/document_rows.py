"""Rows of a curator's JSONL or parquet file as documents items, each held to the input limits one by one.

JSONL lines go through core/boundary.py like every other loader's: a line too long, not UTF-8, too deep, with
a lone surrogate, a number past 4,300 digits or a key given twice is a rejection with its file, line and
reason, and the other lines load. Parquet rows are read a small batch at a time and each is checked the same
way (`check_value`: nesting, size, 100,000 characters per string).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from core.boundary import InputRejected, check_value, read_json_lines_from
from core.loading import LoadResult
from core.models import SourceItem
from loaders.document_input import FoundFile, document_item, open_regular, reject

PARQUET_BATCH_ROWS = 64  # rows in memory at once: a row may hold up to 100,000 characters per value


def _jsonl_rows(file: FoundFile) -> Iterator[tuple[int, Any, str]]:
    with open_regular(file.path) as handle:
        for line in read_json_lines_from(handle):
            yield line.number, line.problem or line.value, line.raw


def _parquet_rows(file: FoundFile) -> Iterator[tuple[int, Any, str]]:
    import pyarrow.parquet as pq

    with open_regular(file.path) as handle:
        n = 0
        for batch in pq.ParquetFile(handle).iter_batches(batch_size=PARQUET_BATCH_ROWS):
            for row in batch.to_pylist():
                n += 1
                try:
                    check_value(row)
                except InputRejected as exc:
                    yield n, exc, _raw(row)
                    continue
                yield n, row, ""


def _raw(row: Any) -> str:
    """The start of a rejected parquet row, for its report (its long strings cut first)."""
    if isinstance(row, dict):
        row = {key: value[:200] if isinstance(value, str) else value for key, value in row.items()}
    return json.dumps(row, ensure_ascii=False, default=str)[:2000]


def row_items(file: FoundFile, text_column: str, id_column: str, result: LoadResult) -> list[SourceItem]:
    """One item per usable row of `file`; every other row is a rejection with its number and reason."""
    key, name = file.key, file.name
    jsonl = file.suffix == ".jsonl"
    unit = "line" if jsonl else "row"
    items: list[SourceItem] = []
    seen: set[str] = set()
    rows = 0
    try:
        for n, row, raw in _jsonl_rows(file) if jsonl else _parquet_rows(file):
            rows += 1
            item = _row_item(file, n, row, raw, unit, text_column, id_column, result)
            if item is None:
                continue
            if item.source_id in seen:
                message = f"{name}: id {item.source_id!r} appears again; the first is kept"
                reject(result, name, n, "duplicate_source_id", message, raw or _raw(row), unit)
                continue
            seen.add(item.source_id)
            items.append(item)
    except Exception as exc:  # pyarrow raises many kinds on a broken file: the file is the problem
        reject(result, name, 0, "unreadable_file", f"{name} cannot be read: {type(exc).__name__}: {exc}")
        return items
    if not rows:
        reject(result, name, 0, "empty_document", f"{key} has no rows")
    return items


def _row_item(
    file: FoundFile, n: int, row: Any, raw: str, unit: str, text_column: str, id_column: str, result: LoadResult
) -> SourceItem | None:
    result.rows_read += 1
    name = file.name
    where = name  # the line or row number is the problem's own (reports show "line 4: rows.jsonl: ...")
    if isinstance(row, InputRejected):
        code = "bad_json" if row.code == "malformed_json" else row.code
        reject(result, name, n, code, f"{where}: {row}", raw, unit)
        return None
    raw = raw or _raw(row)
    if not isinstance(row, dict):
        reject(result, name, n, "not_an_object", f"{where}: the {unit} is not an object", raw, unit)
        return None
    if text_column not in row:
        message = f"{where}: the {unit} has no {text_column!r} column (give the right one with --text-column)"
        reject(result, name, n, "no_text_column", message, raw, unit)
        return None
    text = row[text_column]
    if not isinstance(text, str) or not any(ch.isalnum() for ch in text):
        reject(result, name, n, "empty_document", f"{where}: {text_column!r} holds no text", raw, unit)
        return None
    row_id = row.get(id_column)
    suffix = str(row_id) if isinstance(row_id, str | int) and str(row_id).strip() else f"{unit[0]}{n}"
    metadata: dict[str, Any] = {"file": name, "file_type": file.suffix.lstrip("."), "row": n}
    extra = {k: v for k, v in row.items() if k not in (text_column, id_column) and isinstance(v, str | int | float)}
    if extra:
        metadata["fields"] = extra
    return document_item(f"{file.key}#{suffix}", text, metadata)
