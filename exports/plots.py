"""The release's plots, saved as PNG beside the card: schema complexity, judge scores, the funnel.

Matplotlib's object API with the Agg canvas (no pyplot, no display, no global state). PNGs are
written without a Software/date stamp, so the same figures give the same bytes. Without
matplotlib installed, `render_plots` returns nothing and the card says the plots were skipped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

PLOTS_DIR = "plots"
PLOT_FILES: dict[str, tuple[str, str]] = {
    # key: (file name, alt text used in the card)
    "schema_complexity": ("schema_complexity.png", "Schema complexity per split and schema size"),
    "judge_scores": ("judge_scores.png", "Judge scores per dimension"),
    "funnel": ("funnel.png", "Rejection funnel by stage and reason"),
}
LEVEL_COLOURS = {"easy": "#8fbc8f", "medium": "#f0b44c", "hard": "#d9534f"}
DPI = 90


def plots_available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _figure(width: float, height: float) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Any, path: Path) -> None:
    fig.savefig(path, format="png", metadata={"Software": None})


def _integer_axis(axis: Any, bins: int | str = "auto") -> None:
    from matplotlib.ticker import MaxNLocator, StrMethodFormatter

    axis.set_major_locator(MaxNLocator(nbins=bins, integer=True))
    axis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))


def _empty(ax: Any, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", fontsize=10, color="#666666", transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


def plot_schema_complexity(
    levels: Mapping[str, Mapping[str, int]], properties: Mapping[str, Sequence[int]], path: Path, title: str
) -> None:
    fig = _figure(9, 3.4)
    left, right = fig.subplots(1, 2)
    splits = list(levels)
    bottoms = [0] * len(splits)
    any_level = False
    for level, colour in LEVEL_COLOURS.items():
        values = [levels[split].get(level, 0) for split in splits]
        if any(values):
            any_level = True
        left.bar(splits, values, bottom=bottoms, color=colour, label=level)
        bottoms = [b + v for b, v in zip(bottoms, values, strict=True)]
    if any_level:
        left.legend(fontsize=8, frameon=False)
        left.set_ylabel("records")
        _integer_axis(left.yaxis)
    else:
        _empty(left, "no complexity reports")
    left.set_title("Schema complexity per split", fontsize=10)

    all_props = [n for split in properties for n in properties[split]]
    if all_props:
        lo, hi = min(all_props), max(all_props)
        bins = [x - 0.5 for x in range(lo, hi + 2)] if hi - lo <= 40 else 40
        right.hist(all_props, bins=bins, color="#5b8db8", edgecolor="white")
        right.set_xlabel("schema properties (all depths)")
        right.set_ylabel("records")
        _integer_axis(right.xaxis)
        _integer_axis(right.yaxis)
    else:
        _empty(right, "no complexity reports")
    right.set_title("Schema size", fontsize=10)
    fig.suptitle(f"{title}: schema complexity", fontsize=11)
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.16, top=0.82, wspace=0.28)
    _save(fig, path)


def plot_judge_scores(scores: Mapping[str, Sequence[float]], threshold: float, path: Path, title: str) -> None:
    fig = _figure(9, 0.8 + 0.6 * max(len(scores), 2))
    ax = fig.subplots()
    if scores:
        names = list(scores)
        ax.boxplot(
            [list(scores[name]) for name in names],
            orientation="horizontal",
            tick_labels=names,
            widths=0.6,
            patch_artist=True,
            boxprops={"facecolor": "#cfe0f1", "edgecolor": "#2f5f8a"},
            medianprops={"color": "#2f5f8a"},
            flierprops={"markersize": 3},
        )
        ax.axvline(threshold, color="#d9534f", linestyle="--", linewidth=1)
        ax.text(threshold, len(names) + 0.45, f" threshold {threshold:g}", color="#d9534f", fontsize=8, va="center")
        ax.set_xlim(min(0, min(min(v) for v in scores.values() if v) - 5), 102)
        ax.set_ylim(0.4, len(names) + 0.7)
        n = max(len(v) for v in scores.values())
        ax.set_xlabel(f"score (0-100) of the released records (n = {n:,})")
    else:
        _empty(ax, "no judge scores recorded")
    ax.set_title(f"{title}: judge scores per dimension", fontsize=11)
    height = fig.get_figheight()
    fig.subplots_adjust(left=0.18, right=0.98, bottom=0.62 / height, top=1 - 0.4 / height)
    _save(fig, path)


def funnel_stages(funnel: Mapping[str, Any]) -> list[tuple[str, int]]:
    """(label, count) from loaded source items to released records."""
    stages = [("source items loaded", funnel.get("source_items_loaded", 0))]
    stages.append(("records authored", funnel.get("records_authored", 0)))
    for state, n in (funnel.get("states") or {}).items():
        stages.append((f"now {state}", n))
    stages.append(("released", funnel.get("released", 0)))
    return stages


def plot_funnel(funnel: Mapping[str, Any], path: Path, title: str) -> None:
    reasons = [(f"{r['stage']}: {r['code']}", r["records"]) for r in funnel.get("rejections") or []]
    reasons = sorted(reasons, key=lambda kv: (-kv[1], kv[0]))[:15]  # import reasons count rejected input lines
    stages = funnel_stages(funnel)
    rows = max(len(stages), len(reasons), 3)
    fig = _figure(10, 1.0 + 0.32 * rows)
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.25]})

    labels = [label for label, _ in stages][::-1]
    values = [n for _, n in stages][::-1]
    colours = ["#2e8b57" if label == "released" else "#5b8db8" for label in labels]
    left.barh(labels, values, color=colours)
    for y, v in enumerate(values):
        left.text(v, y, f" {v:,}", va="center", fontsize=8)
    left.set_xlim(0, max(values + [1]) * 1.25)
    left.set_title("Records by stage", fontsize=10)
    _integer_axis(left.xaxis, bins=4)
    left.tick_params(axis="y", labelsize=8)

    if reasons:
        r_labels = [label for label, _ in reasons][::-1]
        r_values = [n for _, n in reasons][::-1]
        right.barh(r_labels, r_values, color="#d9534f")
        for y, v in enumerate(r_values):
            right.text(v, y, f" {v:,}", va="center", fontsize=8)
        right.set_xlim(0, max(r_values) * 1.3)
        _integer_axis(right.xaxis, bins=4)
        right.tick_params(axis="y", labelsize=8)
    else:
        _empty(right, "no rejections")
    right.set_title("Rejection reasons (records)", fontsize=10)
    fig.suptitle(f"{title}: rejection funnel", fontsize=11)
    height = fig.get_figheight()
    fig.subplots_adjust(left=0.2, right=0.98, bottom=0.35 / height, top=1 - 0.6 / height, wspace=0.75)
    _save(fig, path)


def render_plots(
    folder: Path,
    *,
    title: str,
    distributions: Mapping[str, Any],
    funnel: Mapping[str, Any],
    threshold: float,
) -> dict[str, str]:
    """Write the PNGs into `folder/plots/`; returns {key: relative path} ({} without matplotlib)."""
    if not plots_available():
        return {}
    out = folder / PLOTS_DIR
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    plot_schema_complexity(
        distributions["levels"], distributions["properties"], out / PLOT_FILES["schema_complexity"][0], title
    )
    written["schema_complexity"] = f"{PLOTS_DIR}/{PLOT_FILES['schema_complexity'][0]}"
    plot_judge_scores(distributions["scores"], threshold, out / PLOT_FILES["judge_scores"][0], title)
    written["judge_scores"] = f"{PLOTS_DIR}/{PLOT_FILES['judge_scores'][0]}"
    plot_funnel(funnel, out / PLOT_FILES["funnel"][0], title)
    written["funnel"] = f"{PLOTS_DIR}/{PLOT_FILES['funnel'][0]}"
    return written
