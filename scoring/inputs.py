"""What scoring reads: a release folder's records, and model predictions in JSONL.

Predictions come one per line, in SOB's response format
`{"metadata": {"record_id", "model_id", ...}, "input": {...}, "output": {"candidate_response", "ground_truth"}}`
or as `{"record_id", "response"[, "model_id"]}`. A line without a model id takes the file's name
(`gpt-4o.jsonl` -> `gpt-4o`; with the folder where two files share a name). Lines are read as SOB
reads them (Python's `json`: big integers stay integers, `NaN` is a number). A response may be a
parsed JSON value or the model's raw text (scored as text only with `--parse-text`). Lines that
cannot be used are kept as rejections with their file, line number and reason, never dropped
silently; an empty file, or one with no usable line, is an error.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from core.sources import get_source, source_names
from exports.layout import DATA_DIR
from exports.release import ReleaseError, verify_release
from exports.splits import split_names
from scoring.sob import MODALITY_OF_CONFIG, Modality
from scoring.sob_files import Rejection, read_json_lines


class ScoringInputError(ValueError):
    """A release or predictions file cannot be scored; the message says what to do."""


@dataclass(frozen=True)
class ReleaseRecord:
    record_id: str
    split: str
    context: str
    question: str
    json_schema: Any
    ground_truth: Any
    schema_complexity: str | None
    question_difficulty: str | None
    source_category: str | None
    source_id: str | None


@dataclass
class Release:
    path: Path
    config: str
    source: str
    version: str
    records: dict[str, ReleaseRecord]
    modality: Modality = "text"


def _json_column(value: Any, record_id: str, column: str) -> Any:
    if value is None:
        return None
    try:
        return json.loads(value)
    except ValueError as exc:
        raise ScoringInputError(f"record {record_id}: column {column} is not JSON ({exc})") from None


def load_release(path: Path | str, splits: Iterable[str] | None = None, *, verify: bool = True) -> Release:
    """The records of a release folder (all splits, or the ones named)."""
    folder = Path(path)
    if not folder.is_dir():
        raise ScoringInputError(f"release folder {folder} does not exist")
    try:
        manifest = verify_release(folder) if verify else json.loads((folder / "manifest.json").read_text("utf-8"))
    except ReleaseError as exc:
        raise ScoringInputError(str(exc)) from None
    except (OSError, ValueError):
        raise ScoringInputError(f"{folder} is not a release folder: manifest.json is missing or unreadable") from None
    config = manifest.get("config")
    modality = MODALITY_OF_CONFIG.get(config) or _modality_of_source(manifest.get("source"))
    if modality is None:
        raise ScoringInputError(f"{folder}/manifest.json names an unknown config {config!r}")
    # SOB's configs have their fixed splits; another source's release lists its own in its manifest.
    available = list(split_names(config)) if config in MODALITY_OF_CONFIG else list(manifest.get("splits") or {})
    wanted = list(splits) if splits else available
    unknown = [s for s in wanted if s not in available]
    if unknown:
        raise ScoringInputError(f"release config {config!r} has splits {available}; no {unknown}")
    records: dict[str, ReleaseRecord] = {}
    for split in wanted:
        files = sorted((folder / DATA_DIR).glob(f"{split}-*.parquet"))
        for file in files:
            for row in pq.read_table(file).to_pylist():
                rid = row["record_id"]
                records[rid] = ReleaseRecord(
                    record_id=rid,
                    split=split,
                    context=row.get("context") or "",
                    question=row.get("question") or "",
                    json_schema=_json_column(row.get("json_schema"), rid, "json_schema"),
                    ground_truth=_json_column(row.get("ground_truth"), rid, "ground_truth"),
                    schema_complexity=row.get("schema_complexity"),
                    question_difficulty=row.get("question_difficulty"),
                    source_category=row.get("source_category"),
                    source_id=row.get("source_id"),
                )
    return Release(folder, config, manifest.get("source", ""), manifest.get("version", ""), records, modality)


def _modality_of_source(source: object) -> Modality | None:
    """The modality of a registered source (a curator's documents: text), None for a name none has."""
    return get_source(source).modality if isinstance(source, str) and source in source_names() else None


@dataclass(frozen=True)
class PredictionRejection:
    file: str
    line: int
    reason: str


@dataclass
class Predictions:
    by_model: dict[str, dict[str, Any]] = field(default_factory=dict)  # model -> record id -> response
    origin: dict[str, dict[str, tuple[str, int]]] = field(default_factory=dict)  # model -> record id -> (file, line)
    rejections: list[PredictionRejection] = field(default_factory=list)
    lines: int = 0

    def add(self, other: Predictions) -> None:
        for model, responses in other.by_model.items():
            mine = self.by_model.setdefault(model, {})
            where = self.origin.setdefault(model, {})
            for rid, response in responses.items():
                file, line = other.origin[model][rid]
                if rid in mine:
                    first = where[rid]
                    self.rejections.append(
                        PredictionRejection(
                            file, line, f"duplicate prediction of {model} for {rid} (first at {first[0]}:{first[1]})"
                        )
                    )
                else:
                    mine[rid] = response
                    where[rid] = (file, line)
        self.rejections.extend(other.rejections)
        self.lines += other.lines


def _parse_line(data: Any, default_model: str) -> tuple[str, str, Any]:
    """(model, record id, response) of one prediction line, or ValueError with the reason."""
    if not isinstance(data, dict):
        raise ValueError(f"a prediction must be a JSON object, got {type(data).__name__}")
    if isinstance(data.get("metadata"), dict) or isinstance(data.get("output"), dict):
        metadata = data.get("metadata") or {}
        output = data.get("output") or {}
        if not isinstance(metadata, dict) or not isinstance(output, dict):
            raise ValueError("SOB format: metadata and output must be objects")
        rid, model = metadata.get("record_id"), metadata.get("model_id") or default_model
        if "candidate_response" not in output:
            raise ValueError("SOB format: output.candidate_response is missing")
        response = output["candidate_response"]
    else:
        rid, model = data.get("record_id"), data.get("model_id") or default_model
        if "response" not in data:
            raise ValueError("no `response` (plain format) and no `output.candidate_response` (SOB format)")
        response = data["response"]
    if not isinstance(rid, str) or not rid:
        raise ValueError("record_id is missing or not a string")
    if not isinstance(model, str) or not model:
        raise ValueError("model_id must be a non-empty string")
    return model, rid, response


def prediction_files(paths: Iterable[Path | str]) -> list[Path]:
    """Each file given, and the `*.jsonl` files of each folder given."""
    files: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            found = sorted(path.glob("*.jsonl"))
            if not found:
                raise ScoringInputError(f"predictions folder {path} holds no *.jsonl file")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            raise ScoringInputError(f"predictions file {path} does not exist")
    return files


def default_model_names(files: list[Path]) -> dict[Path, str]:
    """The model name of a line without `model_id`: the file's name (`response_gpt-4o.jsonl` ->
    `gpt-4o`), or its folder and name where two files share a name (`a/gpt-4o`, `b/gpt-4o`)."""
    stems = {file: file.stem.removeprefix("response_") for file in files}
    shared = {stem for stem, count in Counter(stems.values()).items() if count > 1}
    names: dict[Path, str] = {}
    for file, stem in stems.items():
        if stem in shared:
            stem = file.with_name(stem).as_posix().lstrip("/")
        names[file] = stem
    return names


def load_predictions(path: Path | str, model: str | None = None) -> Predictions:
    """One predictions file; an empty file, or one without a usable line, is an error naming it."""
    file = Path(path)
    if not file.is_file():
        raise ScoringInputError(f"predictions file {file} does not exist")
    default_model = model or file.stem.removeprefix("response_")
    where = file.as_posix()
    result = Predictions()
    for line_no, data in read_json_lines(file):
        result.lines += 1
        if isinstance(data, Rejection):
            result.rejections.append(PredictionRejection(data.file, data.line, data.reason))
            continue
        try:
            model_id, rid, response = _parse_line(data, default_model)
        except ValueError as exc:
            result.rejections.append(PredictionRejection(where, line_no, str(exc)))
            continue
        responses = result.by_model.setdefault(model_id, {})
        origin = result.origin.setdefault(model_id, {})
        if rid in responses:
            first = origin[rid][1]
            result.rejections.append(
                PredictionRejection(
                    where, line_no, f"duplicate prediction of {model_id} for {rid} (first at line {first})"
                )
            )
            continue
        responses[rid] = response
        origin[rid] = (where, line_no)
    if result.lines == 0:
        raise ScoringInputError(f"predictions file {file} is empty")
    if not result.by_model:
        first = result.rejections[0]
        raise ScoringInputError(
            f"predictions file {file} has no usable line ({len(result.rejections)} refused; "
            f"first: {first.file}:{first.line}: {first.reason})"
        )
    return result


def load_all_predictions(paths: Iterable[Path | str]) -> Predictions:
    """Every predictions file or folder given, with duplicates across files reported by file and line."""
    files = prediction_files(paths)
    names = default_model_names(files)
    predictions = Predictions()
    for file in files:
        predictions.add(load_predictions(file, names[file]))
    return predictions
