"""SOB's response files in, SOB's evaluation files out: `eval_records.jsonl` and `eval_summary.json`.

A response file holds one JSON object per line, `{"metadata": {"record_id", "model_id",
"schema_complexity", "difficulty", ...}, "input": {"json_schema", ...}, "output":
{"candidate_response", "ground_truth"}}`, so it is scored against the schema and truth it carries.
The output has SOB's field names, order and layout, under `<root>/<modality>/<name>/`, `<name>`
being SOB's (the file name without `response_` and `_<modality>`), so it can replace SOB's files.

Lines are read as SOB reads them (Python's `json`, so big integers stay integers and `NaN` is a
number), but a line SOB's evaluator would stop on is refused with its file, line and reason and the
run goes on: text that is not UTF-8, a line that is not an object, a value nested past what Python
can read. Refused lines are counted with SOB's malformed lines and listed under `rejected_lines` in
the summary. A second line for the same (model, record) is scored, as SOB scores it, and listed
under `duplicate_lines` with the line it repeats. Both keys are absent when there is nothing to list.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scoring.aggregate import COMPLEXITY_WEIGHTS, SOB_METRIC_ORDER
from scoring.bootstrap import sob_intervals, sob_means
from scoring.sob import (
    CATEGORIES,
    SOB_FIELD,
    SOB_RULES,
    Modality,
    RecordScore,
    Reference,
    ScoringOptions,
    score_response,
)

WEIGHT_FIELD_PRIORITY = ("schema_complexity", "difficulty")
DISPLAY_NAMES = {
    "json_parse_success": "JSON Parse Success",
    "json_root_structured": "Structured JSON Root",
    "schema_valid_input": "Schema Valid Input",
    "schema_compliance": "JSON Pass Rate",
    "leaf_value_em": "Truth Score",
    "value_token_f1": "Faithfulness Score",
    "hier_path_recall": "Path Recall",
    "path_set_f1": "Structure Coverage",
    "type_precision": "Type Safety",
    "required_key_recall": "Required Key Recall",
    "strict_json_em": "Perfect Response Rate",
}
TOP_K_ERRORS = 20
# Integers of up to this many digits are read exactly (Python's default refuses more than 4,300);
# a longer one is refused on its line rather than parsed in quadratic time.
MAX_INT_DIGITS = 100_000


@contextmanager
def big_integers() -> Iterator[None]:
    """Integers of up to MAX_INT_DIGITS digits read and written exactly, for the time of a run."""
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(MAX_INT_DIGITS)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(limit)


class ResponseFileError(ValueError):
    """A response file cannot be scored at all; the message names it."""


@dataclass(frozen=True)
class Rejection:
    file: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.reason}"


@dataclass
class ScoredRecord:
    """One record's SOB row: who and how heavy (from the line's metadata), and its scores."""

    record_id: str
    model_id: str
    schema_complexity: str
    question_difficulty: str
    score: RecordScore

    @property
    def difficulty(self) -> str:
        for level in (self.schema_complexity, self.question_difficulty):
            if level in COMPLEXITY_WEIGHTS:
                return level
        return "unknown"

    @property
    def weight(self) -> float:
        return COMPLEXITY_WEIGHTS.get(self.difficulty, 0.0)

    def sob_row(self, modality: Modality) -> dict[str, Any]:
        basis = "unknown"
        for name, level in zip(WEIGHT_FIELD_PRIORITY, (self.schema_complexity, self.question_difficulty), strict=True):
            if level in COMPLEXITY_WEIGHTS:
                basis = name
                break
        metrics = self.score.metrics
        row: dict[str, Any] = {
            "record_id": self.record_id,
            "model_id": self.model_id,
            "schema_complexity": self.schema_complexity,
            "question_difficulty": self.question_difficulty,
            "difficulty": self.difficulty,
            "weighting_basis": basis,
            "difficulty_weight": self.weight,
            "known_difficulty": 1.0 if self.weight else 0.0,
        }
        row |= {SOB_FIELD[name]: metrics[name] for name in SOB_METRIC_ORDER[:-1]}
        row["required_key_recall"] = self.score.required_key_recall
        row["strict_json_em"] = metrics["perfect_response"]
        if modality == "image":  # SOB lists the missing paths for images only
            row["missing_gt_paths"] = self.score.missing_paths
            row["missing_required_paths"] = self.score.missing_required_paths
        return row


@dataclass
class ScoredFile:
    path: Path
    modality: Modality
    records: list[ScoredRecord] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)
    duplicates: list[Rejection] = field(default_factory=list)  # scored as SOB does, but never silently
    malformed_lines: int = 0


def infer_modality(path: Path, requested: str = "auto") -> Modality:
    """SOB's rule: the folder or file name says it (`images_responses`, `_image`, `_audio`), else text."""
    if requested != "auto":
        return requested  # type: ignore[return-value]
    spelled = path.as_posix().lower()
    if "text_response" in spelled:
        return "text"
    if "images_response" in spelled or "image_response" in spelled:
        return "image"
    if "audio_response" in spelled:
        return "audio"
    name = path.name.lower()
    return "image" if "_image" in name else "audio" if "_audio" in name else "text"


def output_name(path: Path, modality: Modality) -> str:
    """SOB's folder name for a response file: the stem without `response_` and `_<modality>`."""
    stem = path.stem.removeprefix("response_")
    suffix = f"_{modality}"
    if modality != "text" and stem.endswith(suffix):
        stem = stem[: -len(suffix)]
    return stem.split("/")[-1]


def response_files(paths: list[Path]) -> list[Path]:
    """The files to score: each file given, and the `*.jsonl` of each folder given (sorted, as SOB)."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(path.glob("*.jsonl"))
            if not found:
                raise ResponseFileError(f"{path}: no *.jsonl response files in this folder")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            raise ResponseFileError(f"{path} does not exist")
    return files


def read_json_lines(path: Path) -> Iterator[tuple[int, Any | Rejection]]:
    """(line number, parsed value or the reason it was refused) for each non-blank line."""
    with big_integers(), path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield number, Rejection(path.as_posix(), number, f"not UTF-8 text (byte {exc.start}): line refused")
                continue
            text = text.strip()
            if not text:
                continue
            try:
                yield number, json.loads(text)
            except json.JSONDecodeError as exc:
                yield number, Rejection(path.as_posix(), number, f"not JSON: {exc}")
            except RecursionError:
                yield number, Rejection(path.as_posix(), number, "nested deeper than Python can read")
            except ValueError as exc:  # an integer past MAX_INT_DIGITS
                yield number, Rejection(path.as_posix(), number, f"unreadable number: {exc}")


def _text(value: Any, default: str) -> str:
    return value if isinstance(value, str) and value else default


def score_file(path: Path, modality: Modality, options: ScoringOptions = SOB_RULES) -> ScoredFile:
    """Score every line of one response file against the schema and truth it carries."""
    result = ScoredFile(path, modality)
    seen: dict[tuple[str, str], int] = {}
    where = path.as_posix()
    with big_integers():  # scoring spells big integers as text
        for number, data in read_json_lines(path):
            if isinstance(data, Rejection):
                result.malformed_lines += 1
                result.rejections.append(data)
                continue
            parts = _line_parts(data)
            if isinstance(parts, str):
                result.malformed_lines += 1
                result.rejections.append(Rejection(where, number, parts))
                continue
            metadata, schema, truth, response = parts
            record_id = metadata.get("record_id", "")
            model_id = metadata.get("model_id", "unknown")
            key = (str(model_id), str(record_id))
            if key in seen:
                result.duplicates.append(
                    Rejection(
                        where, number, f"repeats line {seen[key]} ({model_id}, {record_id}): scored again, as SOB"
                    )
                )
            try:
                score = score_response(Reference.build(str(record_id), truth, schema, options), response, modality)
            except RecursionError:
                result.malformed_lines += 1
                result.rejections.append(Rejection(where, number, "nested deeper than Python can score: refused"))
                continue
            seen.setdefault(key, number)
            result.records.append(
                ScoredRecord(
                    record_id=record_id,
                    model_id=model_id,
                    schema_complexity=_text(metadata.get("schema_complexity"), "unknown"),
                    question_difficulty=_text(metadata.get("difficulty"), "unknown"),
                    score=score,
                )
            )
    return result


def _line_parts(data: Any) -> tuple[dict[str, Any], Any, Any, Any] | str:
    """(metadata, schema, ground truth, candidate response), or why the line is not a SOB response."""
    if not isinstance(data, dict):
        return f"a response line must be a JSON object, got {type(data).__name__}"
    blocks = {name: data.get(name, {}) for name in ("metadata", "input", "output")}
    for name, block in blocks.items():
        if not isinstance(block, dict):
            return f"`{name}` must be an object, got {type(block).__name__}"
    return (
        blocks["metadata"],
        blocks["input"].get("json_schema"),
        blocks["output"].get("ground_truth"),
        blocks["output"].get("candidate_response"),
    )


def data_quality(records: list[ScoredRecord], malformed_lines: int) -> dict[str, int]:
    def count(metric: str) -> int:
        return sum(1 for r in records if r.score.metrics[metric] == 0.0)

    return {
        "json_parse_fail_count": count("json_parse_success"),
        "json_non_structured_root_count": count("json_root_structured"),
        "invalid_schema_input_count": count("schema_valid_input"),
        "unknown_difficulty_count": sum(1 for r in records if not r.weight),
        "malformed_jsonl_line_count": malformed_lines,
    }


def _summary_block(matrix: np.ndarray, weights: np.ndarray | None, samples: int, seed: int) -> dict[str, Any]:
    means = sob_means(matrix, weights)
    bounds = sob_intervals(matrix, weights, samples=samples, seed=seed)
    metrics: dict[str, Any] = {}
    for i, name in enumerate(SOB_METRIC_ORDER):
        sob_name = SOB_FIELD[name]
        low, high = bounds[i]
        metrics[sob_name] = {
            "mean": float(means[i]),
            "ci95_low": low,
            "ci95_high": high,
            "metric_name": DISPLAY_NAMES[sob_name],
        }
    categories: dict[str, Any] = {}
    for j, (category, components) in enumerate(CATEGORIES.items(), len(SOB_METRIC_ORDER)):
        low, high = bounds[j]
        categories[category] = {
            "mean": float(means[j]),
            "ci95_low": low,
            "ci95_high": high,
            "category_name": category,
            "components": [SOB_FIELD[c] for c in components],
        }
    block: dict[str, Any] = {"n": len(matrix), "metrics": metrics, "category_scores": categories}
    if weights is not None:
        block["weighting"] = "schema_complexity"
        block["weight_field_priority"] = list(WEIGHT_FIELD_PRIORITY)
        block["difficulty_weights"] = COMPLEXITY_WEIGHTS
    return block


def build_summary(
    response_file: str,
    records: list[ScoredRecord],
    modality: Modality,
    *,
    malformed_lines: int = 0,
    rejections: list[Rejection] | None = None,
    duplicates: list[Rejection] | None = None,
    samples: int = 1000,
    seed: int = 42,
    top_k_errors: int = TOP_K_ERRORS,
) -> dict[str, Any]:
    """SOB's eval_summary.json for these records."""
    from scoring.aggregate import score_matrix

    matrix = score_matrix([r.score for r in records])
    weights = np.array([r.weight for r in records], dtype=np.float64)
    payload: dict[str, Any] = {
        "response_file": response_file,
        "num_records": len(records),
        "model_ids": sorted({str(r.model_id) for r in records}),
        "data_quality": data_quality(records, malformed_lines),
        "summary": {
            "overall": _summary_block(matrix, None, samples, seed),
            "overall_weighted": _summary_block(matrix, weights, samples, seed),
        },
    }
    if modality == "image":
        missing = Counter(p for r in records for p in r.score.missing_paths)
        required = Counter(p for r in records for p in r.score.missing_required_paths)
        errors: dict[str, Any] = {}
        if missing:
            errors["top_missing_gt_paths"] = [{"path": p, "count": c} for p, c in missing.most_common(top_k_errors)]
        if required:
            errors["top_missing_required_paths"] = [
                {"path": p, "count": c} for p, c in required.most_common(top_k_errors)
            ]
        if errors:
            payload["error_analysis"] = errors
    if rejections:
        payload["rejected_lines"] = [str(r) for r in rejections]
    if duplicates:
        payload["duplicate_lines"] = [str(r) for r in duplicates]
    return payload


def write_outputs(folder: Path, records: list[ScoredRecord], summary: dict[str, Any], modality: Modality) -> None:
    """`eval_records.jsonl` (one SOB row per record, in order) and `eval_summary.json` in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    with big_integers():
        with (folder / "eval_records.jsonl").open("w", encoding="utf-8") as handle:
            for record in records:
                handle.write(json.dumps(record.sob_row(modality)) + "\n")
        (folder / "eval_summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
