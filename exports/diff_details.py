"""`--diff V1 V2` for people: each added, removed and changed record with its question, and for a changed
record the fields that changed (JSON columns as JSON Patch operations, by `jsonpatch`; text columns old -> new)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import jsonpatch
import pyarrow.parquet as pq

from exports.changelog import _MARKS, CHANGE_KINDS, content_columns, format_changelog
from exports.layout import DATA_DIR

JSON_COLUMNS = ("json_schema", "ground_truth", "validated_output")
SHOWN_CHARS = 90  # of a value, on the terminal


def release_rows(release_path: Path, source: str, record_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The content columns of the wanted records of a release folder, by record id."""
    wanted = set(record_ids)
    columns = content_columns(source)
    rows: dict[str, dict[str, Any]] = {}
    for path in sorted((Path(release_path) / DATA_DIR).glob("*.parquet")):
        present = [c for c in columns if c in pq.read_schema(path).names]  # never the page images' bytes
        for row in pq.read_table(path, columns=present).to_pylist():
            if row["record_id"] in wanted:
                rows[row["record_id"]] = row
    return rows


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(str(text).split())
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


def _json(value: Any) -> str:
    return _short(json.dumps(value, ensure_ascii=False))


def _parsed(value: Any) -> Any:
    try:
        return json.loads(value) if isinstance(value, str) else value
    except ValueError:
        return value


def field_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """One line per changed field: `ground_truth /director/name: "A" -> "B"`, `context: 812 -> 845 characters`."""
    lines: list[str] = []
    for column in new:
        before, after = old.get(column), new.get(column)
        if before == after or column == "record_id":
            continue
        if column in JSON_COLUMNS:
            a, b = _parsed(before), _parsed(after)
            if isinstance(a, dict | list) and isinstance(b, dict | list):
                for op in jsonpatch.make_patch(a, b).patch:
                    if op["op"] == "replace":
                        old_value = jsonpatch.JsonPointer(op["path"]).resolve(a)
                        lines.append(f"{column} {op['path']}: {_json(old_value)} -> {_json(op['value'])}")
                    elif op["op"] == "add":
                        lines.append(f"{column} {op['path']}: added {_json(op['value'])}")
                    elif op["op"] == "remove":
                        lines.append(
                            f"{column} {op['path']}: removed {_json(jsonpatch.JsonPointer(op['path']).resolve(a))}"
                        )
                    else:
                        lines.append(f"{column} {op['path']}: {op['op']} from {op.get('from')}")
                continue
        if column == "context":
            lines.append(f"context: {len(before or '')} -> {len(after or '')} characters")
            continue
        lines.append(f"{column}: {_short(before)} -> {_short(after)}")
    return lines


def format_diff(log: Mapping[str, Any], old_path: Path, new_path: Path, source: str, version: str) -> str:
    """The changelog's totals, then every listed record with its question and, when changed, what changed."""
    listed = [
        rid for figures in log["splits"].values() for kind in CHANGE_KINDS for rid in figures.get(f"{kind}_ids") or []
    ]
    old_rows = release_rows(old_path, source, listed)
    new_rows = release_rows(new_path, source, listed)
    header = [line for line in format_changelog(log, version).splitlines() if not line.startswith("    ")]
    lines = header[:2]
    splits = header[2:]
    for figures, split_line in zip(log["splits"].values(), splits, strict=False):
        lines.append(split_line)
        for kind in CHANGE_KINDS:
            for rid in figures.get(f"{kind}_ids") or []:
                row = new_rows.get(rid) or old_rows.get(rid) or {}
                lines.append(f"    {_MARKS[kind]} {rid}  {_short(row.get('question', ''))}")
                if kind == "changed" and rid in old_rows and rid in new_rows:
                    lines.extend(f"        {change}" for change in field_changes(old_rows[rid], new_rows[rid]))
    lines.extend(line for line in splits[len(log["splits"]) :])  # moved records
    return "\n".join(lines)
