"""Curation flags kept in the workspace store for curators: suspect ground truths, ambiguous questions.

Two tables, created on first use (`CREATE TABLE IF NOT EXISTS`, so they need no store migration):
`draft_samples` holds repeated drafts of a source item sampled at a temperature above zero, and
`curation_flags` holds one row per flag (`kind` = `suspect` keyed by record id, `ambiguous` keyed by
source id) with its numbers as JSON. Writing a flag again replaces it, so re-runs do not pile up.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from core.models import utcnow
from scoring.sted import Consistency, consistency

DEFAULT_MIN_CONSISTENCY = 0.8

_TABLES = """
CREATE TABLE IF NOT EXISTS draft_samples (
    source VARCHAR NOT NULL,
    source_id VARCHAR NOT NULL,
    sample_no INTEGER NOT NULL,
    model VARCHAR,
    temperature DOUBLE,
    ground_truth JSON NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (source, source_id, sample_no)
);
CREATE TABLE IF NOT EXISTS curation_flags (
    kind VARCHAR NOT NULL,
    source VARCHAR NOT NULL,
    key VARCHAR NOT NULL,
    detail JSON NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (kind, source, key)
);
"""


def ensure_tables(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(_TABLES)


@dataclass(frozen=True)
class DraftSample:
    source_id: str
    ground_truth: Any
    model: str | None = None
    temperature: float | None = None


@dataclass(frozen=True)
class SampleRejection:
    line: int
    reason: str


def read_samples(path: Path | str) -> tuple[list[DraftSample], list[SampleRejection]]:
    """JSONL, one `{"source_id", "ground_truth"[, "model", "temperature"]}` per line."""
    samples: list[DraftSample] = []
    rejections: list[SampleRejection] = []
    with Path(path).open(encoding="utf-8", errors="replace") as handle:
        for line_no, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except ValueError as exc:
                rejections.append(SampleRejection(line_no, f"not JSON: {exc}"))
                continue
            if not isinstance(data, dict) or not isinstance(data.get("source_id"), str) or not data["source_id"]:
                rejections.append(SampleRejection(line_no, "needs a non-empty string source_id"))
                continue
            if "ground_truth" not in data:
                rejections.append(SampleRejection(line_no, "needs a ground_truth"))
                continue
            temperature = data.get("temperature")
            if temperature is not None and (isinstance(temperature, bool) or not isinstance(temperature, int | float)):
                rejections.append(SampleRejection(line_no, f"temperature must be a number, got {temperature!r}"))
                continue
            if temperature is not None and temperature <= 0:
                rejections.append(
                    SampleRejection(line_no, f"temperature {temperature} is not above zero: repeats would not vary")
                )
                continue
            samples.append(DraftSample(data["source_id"], data["ground_truth"], data.get("model"), temperature))
    return samples, rejections


def save_samples(con: duckdb.DuckDBPyConnection, source: str, samples: Iterable[DraftSample]) -> int:
    """Append samples after those already stored for each source item."""
    ensure_tables(con)
    next_no = dict(
        con.execute(
            "SELECT source_id, max(sample_no) + 1 FROM draft_samples WHERE source = ? GROUP BY source_id", [source]
        ).fetchall()
    )
    rows = []
    for sample in samples:
        number = next_no.get(sample.source_id, 0)
        next_no[sample.source_id] = number + 1
        rows.append(
            [
                source,
                sample.source_id,
                number,
                sample.model,
                sample.temperature,
                json.dumps(sample.ground_truth),
                utcnow(),
            ]
        )
    if rows:
        con.executemany("INSERT INTO draft_samples VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    return len(rows)


def load_samples(con: duckdb.DuckDBPyConnection, source: str) -> dict[str, list[Any]]:
    ensure_tables(con)
    rows = con.execute(
        "SELECT source_id, ground_truth FROM draft_samples WHERE source = ? ORDER BY source_id, sample_no", [source]
    ).fetchall()
    samples: dict[str, list[Any]] = {}
    for source_id, truth in rows:
        samples.setdefault(source_id, []).append(json.loads(truth))
    return samples


def ambiguity(samples: dict[str, list[Any]], min_consistency: float = DEFAULT_MIN_CONSISTENCY) -> dict[str, Any]:
    """STED consistency per source item with two or more samples; `flagged` are those below the bar."""
    scored: dict[str, Consistency] = {sid: consistency(values) for sid, values in samples.items() if len(values) >= 2}
    return {
        "scored": scored,
        "flagged": {sid: c for sid, c in scored.items() if c.mean < min_consistency},
        "too_few_samples": sorted(sid for sid, values in samples.items() if len(values) < 2),
    }


def save_flags(con: duckdb.DuckDBPyConnection, kind: str, source: str, flags: dict[str, dict[str, Any]]) -> int:
    ensure_tables(con)
    rows = [[kind, source, key, json.dumps(detail, ensure_ascii=False), utcnow()] for key, detail in flags.items()]
    if rows:
        con.executemany(
            "INSERT INTO curation_flags VALUES (?, ?, ?, ?, ?) ON CONFLICT (kind, source, key) DO UPDATE SET "
            "detail = excluded.detail, created_at = excluded.created_at",
            rows,
        )
    return len(rows)


def load_flags(con: duckdb.DuckDBPyConnection, kind: str, source: str) -> dict[str, dict[str, Any]]:
    ensure_tables(con)
    rows = con.execute(
        "SELECT key, detail FROM curation_flags WHERE kind = ? AND source = ? ORDER BY key", [kind, source]
    ).fetchall()
    return {key: json.loads(detail) for key, detail in rows}
