"""The leaderboard of SOB's `scripts/build_leaderboard.py`, from a folder of `<modality>/<model>/eval_summary.json`.

Per model and metric: the schema-complexity-weighted mean of each modality (`overall_weighted`),
combined across modalities with the weights W_u, `sum_u W_u m_u / sum_u W_u`; Perfect Response over
text and image only; Overall (raw) the mean of the seven; Overall (adjusted) raw times coverage, the
share of all records the model was evaluated on (`sum of N_u over its modalities / sum of all N_u`).
Rows sorted by adjusted Overall rounded to 4 places, then value accuracy, both descending, from the
model folders in name order.

W_u is a source's total schema-complexity weight: the sum of `difficulty_weight` over its records,
read from an `eval_records.jsonl` of that modality (the largest, when models were run on different
slices). N_u is its record count (the largest `num_records` of its summaries). A modality with no
`eval_records.jsonl` takes SOB's published W_u (13054, 602, 343): the output says which is which.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MODALITIES = ("text", "image", "audio")
# SOB's published constants (build_leaderboard.py), for a modality whose records are not in the folder.
SOB_WEIGHTS = {"text": 13054, "image": 602, "audio": 343}
SOB_COUNTS = {"text": 5000, "image": 209, "audio": 115}
# SOB's metric -> the leaderboard's column, in SOB's order.
METRIC_COLUMNS = (
    ("leaf_value_em", "value_accuracy"),
    ("value_token_f1", "faithfulness"),
    ("schema_compliance", "json_pass_rate"),
    ("hier_path_recall", "path_recall"),
    ("path_set_f1", "structure_coverage"),
    ("type_precision", "type_safety"),
)
PERFECT = "strict_json_em"
PERFECT_MODALITIES = ("text", "image")  # SOB leaves audio out of Perfect Response
ROW_KEYS = (
    "model",
    "overall",
    "value_accuracy",
    "faithfulness",
    "json_pass_rate",
    "path_recall",
    "structure_coverage",
    "type_safety",
    "perfect_response",
    "modalities",
)
DISPLAY_NAMES_FILE = "display_names.json"


class LeaderboardError(ValueError):
    """The folder cannot make a leaderboard; the message says why."""


@dataclass(frozen=True)
class SourceWeight:
    modality: str
    weight: float  # W_u
    records: int  # N_u
    weight_from: str  # where W_u came from
    records_from: str


@dataclass
class ModelRow:
    model_dir: str
    model: str
    modalities: list[str]
    metrics: dict[str, float | None]  # column -> aggregated value
    overall_raw: float
    coverage: float
    overall: float  # adjusted

    def row(self) -> dict[str, Any]:
        """SOB's JSON row: its keys, in its order."""
        values = {"model": self.model, "overall": self.overall, "modalities": self.modalities, **self.metrics}
        return {key: values.get(key) for key in ROW_KEYS}


@dataclass
class Leaderboard:
    rows: list[ModelRow]
    weights: dict[str, SourceWeight]
    skipped: list[str] = field(default_factory=list)

    def payload(self, generated_at: str) -> dict[str, Any]:
        """SOB's leaderboard JSON (`generated_at`, `schema_version`, `rows`), plus the weights it used and each
        model's raw Overall and coverage."""
        return {
            "generated_at": generated_at,
            "schema_version": 1,
            "rows": [row.row() for row in self.rows],
            "weights": {
                name: {"W": w.weight, "N": w.records, "W_from": w.weight_from, "N_from": w.records_from}
                for name, w in self.weights.items()
            },
            "models": [
                {"model": r.model, "model_dir": r.model_dir, "overall_raw": r.overall_raw, "coverage": r.coverage}
                for r in self.rows
            ],
        }


def load_display_names(path: Path) -> dict[str, str]:
    """`{folder: name}`; keys starting with `_` (comments) are ignored, as SOB's script does."""
    if not path.is_file():
        return {}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise LeaderboardError(f"{path} is not JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise LeaderboardError(f"{path} must be a JSON object of folder name -> display name")
    return {key: str(value) for key, value in raw.items() if not key.startswith("_")}


def model_dirs(root: Path) -> list[str]:
    """The sorted union of model folders with an eval_summary.json (hidden and `_audio_true` ones skipped)."""
    seen: set[str] = set()
    for modality in MODALITIES:
        folder = root / modality
        if not folder.is_dir():
            continue
        for child in folder.iterdir():
            if child.is_dir() and not child.name.startswith(".") and not child.name.endswith("_audio_true"):
                if (child / "eval_summary.json").exists():
                    seen.add(child.name)
    return sorted(seen)


def _summary(root: Path, modality: str, model_dir: str) -> dict[str, Any] | None:
    path = root / modality / model_dir / "eval_summary.json"
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise LeaderboardError(f"{path} is not JSON: {exc}") from None


def weighted_means(summary: dict[str, Any], where: str) -> dict[str, float]:
    try:
        metrics = summary["summary"]["overall_weighted"]["metrics"]
        return {name: metrics[name]["mean"] for name in metrics}
    except (KeyError, TypeError):
        raise LeaderboardError(f"{where}: no summary.overall_weighted.metrics (not an eval_summary.json)") from None


def _record_weight(path: Path) -> float:
    total = 0.0
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                total += float(json.loads(line).get("difficulty_weight") or 0.0)
    return total


def source_weights(root: Path, overrides: dict[str, float] | None = None) -> dict[str, SourceWeight]:
    """W_u and N_u of each modality in the folder (see the module's docstring)."""
    overrides = overrides or {}
    out: dict[str, SourceWeight] = {}
    for modality in MODALITIES:
        folder = root / modality
        if not folder.is_dir():
            continue
        counts: list[tuple[int, str]] = []
        weights: list[tuple[float, str]] = []
        for child in sorted(folder.iterdir()):
            summary = _summary(root, modality, child.name) if child.is_dir() else None
            if summary is None:
                continue
            counts.append((int(summary.get("num_records") or 0), child.name))
            records = child / "eval_records.jsonl"
            if records.is_file():
                weights.append((_record_weight(records), child.name))
        if not counts:
            continue
        n, n_dir = max(counts)
        if modality in overrides:
            w: float = overrides[modality]
            w_from = "given (--weight)"
        elif weights:
            w, w_dir = max(weights)
            w_from = f"sum of difficulty_weight in {modality}/{w_dir}/eval_records.jsonl"
        else:
            w = SOB_WEIGHTS[modality]
            w_from = f"SOB's published W_{modality[0]} (no eval_records.jsonl under {modality}/)"
        out[modality] = SourceWeight(modality, w, n, w_from, f"num_records of {modality}/{n_dir}/eval_summary.json")
    return out


def _combine(pairs: list[tuple[float, float]]) -> float:
    total = sum(w for _, w in pairs)
    return sum(v * w for v, w in pairs) / total if total > 0 else 0.0


def model_row(root: Path, model_dir: str, weights: dict[str, SourceWeight], name: str) -> ModelRow | None:
    """SOB's `compute_row` for one model folder, or None when it has no metric at all."""
    means: dict[str, dict[str, float]] = {}
    for modality in MODALITIES:
        summary = _summary(root, modality, model_dir)
        if summary is not None:
            means[modality] = weighted_means(summary, f"{modality}/{model_dir}/eval_summary.json")
    metrics: dict[str, float | None] = {}
    for metric, column in METRIC_COLUMNS:
        pairs = [(means[m][metric], weights[m].weight) for m in MODALITIES if m in means and metric in means[m]]
        metrics[column] = _combine(pairs) if pairs else None
    pairs = [(means[m][PERFECT], weights[m].weight) for m in PERFECT_MODALITIES if m in means and PERFECT in means[m]]
    metrics["perfect_response"] = _combine(pairs) if pairs else None
    available = [value for value in metrics.values() if value is not None]
    if not available:
        return None
    raw = sum(available) / len(available)
    # SOB counts a modality whose metrics are not empty (`if x` on the dict)
    present = [m for m in MODALITIES if means.get(m)]
    total_n = sum(w.records for w in weights.values())
    coverage = sum(weights[m].records for m in present) / total_n if total_n else 0.0
    return ModelRow(model_dir, name, present, metrics, raw, coverage, raw * coverage)


def build_leaderboard(
    root: Path, display_names: dict[str, str] | None = None, weight_overrides: dict[str, float] | None = None
) -> Leaderboard:
    if not root.is_dir():
        raise LeaderboardError(f"{root} is not a folder of <modality>/<model>/eval_summary.json")
    names = load_display_names(root / DISPLAY_NAMES_FILE) if display_names is None else display_names
    folders = model_dirs(root)
    if not folders:
        raise LeaderboardError(f"no model folders with eval_summary.json under {root}/{{text,image,audio}}/")
    weights = source_weights(root, weight_overrides)
    rows: list[ModelRow] = []
    skipped: list[str] = []
    for folder in folders:
        row = model_row(root, folder, weights, names.get(folder, folder))
        if row is None:
            skipped.append(folder)
        else:
            rows.append(row)
    rows.sort(key=lambda r: (-round(r.overall, 4), -(r.metrics["value_accuracy"] or 0)))
    return Leaderboard(rows, weights, skipped)
