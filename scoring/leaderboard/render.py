"""The leaderboard as a Markdown table and as a plot of each model's Overall."""

from __future__ import annotations

from pathlib import Path

from scoring.leaderboard.build import Leaderboard

COLUMNS = (
    ("overall", "Overall"),
    ("value_accuracy", "Val.Acc."),
    ("faithfulness", "Faithful."),
    ("json_pass_rate", "JSON Pass"),
    ("path_recall", "Path Rec."),
    ("structure_coverage", "Str.Cov."),
    ("type_safety", "Type Saf."),
    ("perfect_response", "Perfect"),
)


def _cell(value: object) -> str:
    return "-" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def markdown(board: Leaderboard) -> str:
    """A table in SOB's column order, then what the weights were and where they came from."""
    head = ["#", "Model", *(label for _, label in COLUMNS), "Modalities"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(" --- " for _ in head) + "|"]
    for rank, model in enumerate(board.rows, 1):
        row = model.row()
        name = row["model"].replace("|", "\\|")
        cells = [str(rank), name, *(_cell(row[key]) for key, _ in COLUMNS), ", ".join(row["modalities"])]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "Overall is the mean of the seven metrics times coverage (the share of the benchmark's records the model "
        "was evaluated on). Each metric is the schema-complexity-weighted mean of each modality, combined with "
        "the weights W_u below; Perfect Response over text and image only.",
        "",
        "| modality | W_u | N_u | W_u from |",
        "| --- | --- | --- | --- |",
    ]
    for name, weight in board.weights.items():
        lines.append(f"| {name} | {weight.weight:g} | {weight.records} | {weight.weight_from} |")
    return "\n".join(lines) + "\n"


def plot(board: Leaderboard, path: Path) -> None:
    """A horizontal bar per model, its adjusted Overall, best at the top (PNG, or any format by suffix)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    names = [row.model for row in board.rows][::-1]
    values = [row.overall for row in board.rows][::-1]
    fig = Figure(figsize=(7, 0.45 * len(names) + 1.2))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    bars = ax.barh(names, values, color="#4c72b0")
    ax.bar_label(bars, labels=[f"{v:.3f}" for v in values], padding=3, fontsize=8)
    ax.set_xlim(0, 1.08)
    ax.set_xlabel("Overall (adjusted for coverage)")
    ax.set_title("Structured output leaderboard")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120, metadata={"Software": None} if path.suffix.lower() == ".png" else None)
