"""The release's plots, saved as PNG beside the card: schema complexity, the judge scores of every judged record,
the funnel from loaded items to released records, and the flags with how they were resolved. The numbers come from
the store (exports/plot_data.py); each plot function returns the numbers it drew.

Matplotlib's object API with the Agg canvas (no pyplot, no display, no global state). PNGs are
written without a Software/date stamp, so the same figures give the same bytes. Without
matplotlib installed, `render_plots` returns nothing and the card says the plots were skipped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from exports.plot_data import ACCEPTED, NOT_ACCEPTED, FunnelStep

PLOTS_DIR = "plots"
PLOT_FILES: dict[str, tuple[str, str]] = {
    # key: (file name, alt text used in the card)
    "schema_complexity": ("schema_complexity.png", "Schema complexity per split and schema size"),
    "judge_scores": (
        "judge_scores.png",
        "Scores of every scored record per dimension (the judge's, or the offline pre-filter's where no judge ran), "
        "accepted and rejected apart, with the threshold",
    ),
    "funnel": ("funnel.png", "Funnel from loaded items to released records, with the main rejection reasons"),
    "flags": ("flags.png", "Flags by code and how they were resolved"),
}
LEVEL_COLOURS = {"easy": "#8fbc8f", "medium": "#f0b44c", "hard": "#d9534f"}
GROUP_COLOURS = {"accepted": "#2e8b57", "rejected": "#d9534f"}
RESOLUTION_COLOURS = {"fixed": "#2e8b57", "dismissed": "#9e9e9e", "open": "#f0b44c"}
STEP_LABELS = {
    "loaded": "source items loaded",
    "drafted": "drafted (LLM)",
    "authored": "records authored",
    "validated": "passed validation",
    "judged": "judged",
    "released": "released",
}
SCORE_BIN = 5  # score histogram bins: [0, 5), [5, 10), ... [95, 100]
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


def score_bins(values: Sequence[float]) -> list[int]:
    """Counts per `SCORE_BIN`-point bin from 0 to 100 (100 falls in the last bin)."""
    counts = [0] * (100 // SCORE_BIN)
    for value in values:
        counts[min(max(int(value // SCORE_BIN), 0), len(counts) - 1)] += 1
    return counts


def plot_judge_scores(
    scores: Mapping[str, Mapping[str, Sequence[float]]],
    threshold: float,
    path: Path,
    title: str,
    scorer: str = "judge",
) -> dict[str, dict[str, list[int]]]:
    """One histogram per dimension of every judged record's score, accepted and rejected stacked in two colours,
    with the threshold line. Returns the bin counts drawn: {dimension: {"accepted": [...], "rejected": [...]}}."""
    names = list(scores)
    fig = _figure(9, 0.9 + 1.5 * max(len(names), 1))
    axes = fig.subplots(max(len(names), 1), 1, squeeze=False)[:, 0]
    drawn: dict[str, dict[str, list[int]]] = {}
    edges = [SCORE_BIN * i for i in range(100 // SCORE_BIN)]
    for ax, name in zip(axes, names, strict=False):
        groups = {group: score_bins(scores[name].get(group, ())) for group in (ACCEPTED, NOT_ACCEPTED)}
        drawn[name] = groups
        bottom = [0] * len(edges)
        for group, counts in groups.items():
            n = len(scores[name].get(group, ()))
            ax.bar(
                edges,
                counts,
                width=SCORE_BIN,
                bottom=bottom,
                align="edge",
                color=GROUP_COLOURS[group],
                edgecolor="white",
                linewidth=0.5,
                label=f"{group} ({n:,})",
            )
            bottom = [b + c for b, c in zip(bottom, counts, strict=True)]
        ax.axvline(threshold, color="#333333", linestyle="--", linewidth=1)
        ax.text(threshold, max(bottom + [1]) * 1.02, f" threshold {threshold:g}", fontsize=8, va="bottom")
        ax.set_xlim(0, 100)
        ax.set_ylim(0, max(bottom + [1]) * 1.3)
        ax.set_ylabel(name, fontsize=9)
        _integer_axis(ax.yaxis, bins=3)
        ax.legend(fontsize=8, frameon=False, loc="upper left")
    if not names:
        _empty(axes[0], f"no {scorer} scores recorded")
    axes[-1].set_xlabel(f"{scorer} score (0-100) of every scored record; records per 5-point bin")
    fig.suptitle(f"{title}: {scorer} scores, accepted and rejected", fontsize=11)
    height = fig.get_figheight()
    fig.subplots_adjust(left=0.12, right=0.98, bottom=0.55 / height, top=1 - 0.45 / height, hspace=0.35)
    _save(fig, path)
    return drawn


def plot_funnel(steps: Sequence[FunnelStep], path: Path, title: str) -> dict[str, Any]:
    """Records at each step from loaded items to released (left), and the main reasons records fell out before
    each step (right). Returns {"steps": {step: count}, "lost": {step: [(reason, records)]}}."""
    lost = [(step.name, reason, n) for step in steps for reason, n in step.lost]
    rows = max(len(steps), len(lost), 3)
    fig = _figure(10, 1.6 + 0.32 * rows)
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.25]})

    labels = [STEP_LABELS.get(step.name, step.name) for step in steps][::-1]
    values = [step.count for step in steps][::-1]
    colours = ["#2e8b57" if step.name == "released" else "#5b8db8" for step in steps][::-1]
    left.barh(labels, values, color=colours)
    for y, v in enumerate(values):
        left.text(v, y, f" {v:,}", va="center", fontsize=8)
    left.set_xlim(0, max(values + [1]) * 1.25)
    left.set_title("Records at each step", fontsize=10)
    _integer_axis(left.xaxis, bins=4)
    left.tick_params(axis="y", labelsize=8)

    if lost:
        palette = ["#d9534f", "#f0b44c", "#8e6bb8", "#5bb8b0", "#b8865b", "#9e9e9e"]
        colour_of = {step.name: palette[i % len(palette)] for i, step in enumerate(steps)}
        for y, (step, _, n) in enumerate(reversed(lost)):
            right.barh(y, n, color=colour_of[step], label=f"kept from: {STEP_LABELS.get(step, step)}")
            right.text(n, y, f" {n:,}", va="center", fontsize=8)
        right.set_yticks(range(len(lost)), [reason for _, reason, _ in reversed(lost)])
        handles, names = right.get_legend_handles_labels()
        unique = dict(zip(names, handles, strict=True))
        right.legend(
            unique.values(),
            unique.keys(),
            fontsize=7,
            frameon=False,
            loc="upper center",
            bbox_to_anchor=(0.3, -0.08 * 3.5 / fig.get_figheight()),
            ncol=2,
        )
        right.set_xlim(0, max(n for _, _, n in lost) * 1.25)
        _integer_axis(right.xaxis, bins=4)
        right.tick_params(axis="y", labelsize=7)
    else:
        _empty(right, "no rejections")
    right.set_title("Main reasons records fell out (records)", fontsize=10)
    fig.suptitle(f"{title}: funnel", fontsize=11)
    height = fig.get_figheight()
    fig.subplots_adjust(left=0.15, right=0.98, bottom=0.95 / height, top=1 - 0.6 / height, wspace=0.95)
    _save(fig, path)
    return {"steps": {step.name: step.count for step in steps}, "lost": {s.name: list(s.lost) for s in steps}}


def plot_flags(resolutions: Mapping[str, Mapping[str, int]], path: Path, title: str) -> dict[str, dict[str, int]]:
    """Flags raised per code, split by how they were resolved (fixed, dismissed, still open). Returns the counts
    drawn: {code: {fixed, dismissed, open}}."""
    codes = list(resolutions)
    fig = _figure(9, 1.0 + 0.35 * max(len(codes), 3))
    ax = fig.subplots()
    drawn = {code: {k: int(resolutions[code].get(k, 0)) for k in RESOLUTION_COLOURS} for code in codes}
    if codes:
        labels = codes[::-1]
        left = [0] * len(labels)
        for status, colour in RESOLUTION_COLOURS.items():
            values = [drawn[code][status] for code in labels]
            ax.barh(labels, values, left=left, color=colour, label=status)
            left = [a + b for a, b in zip(left, values, strict=True)]
        for y, total in enumerate(left):
            ax.text(total, y, f" {total:,}", va="center", fontsize=8)
        ax.set_xlim(0, max(left + [1]) * 1.2)
        _integer_axis(ax.xaxis, bins=4)
        ax.tick_params(axis="y", labelsize=8)
        ax.legend(fontsize=8, frameon=False, loc="center left", bbox_to_anchor=(1.0, 0.5))
        ax.set_xlabel("flags raised")
    else:
        _empty(ax, "no flags raised")
    ax.set_title(f"{title}: flags by code and how they were resolved", fontsize=11)
    height = fig.get_figheight()
    fig.subplots_adjust(left=0.25, right=0.85, bottom=0.55 / height, top=1 - 0.4 / height)
    _save(fig, path)
    return drawn


def render_plots(
    folder: Path,
    *,
    title: str,
    distributions: Mapping[str, Any],
    judged: Mapping[str, Mapping[str, Sequence[float]]],
    funnel: Sequence[FunnelStep],
    flags: Mapping[str, Mapping[str, int]],
    threshold: float,
    scorer: str = "judge",
) -> dict[str, str]:
    """Write the PNGs into `folder/plots/`; returns {key: relative path} ({} without matplotlib).

    `distributions`: the released records' schema complexity (exports/stats.py); `judged`, `funnel` and `flags`:
    from the store (exports/plot_data.py). `scorer` names who gave the scores: "judge", or the offline heuristic
    "pre-filter" (its scores are labelled as its own, never as a judge's)."""
    if not plots_available():
        return {}
    out = folder / PLOTS_DIR
    out.mkdir(parents=True, exist_ok=True)
    plot_schema_complexity(
        distributions["levels"], distributions["properties"], out / PLOT_FILES["schema_complexity"][0], title
    )
    plot_judge_scores(judged, threshold, out / PLOT_FILES["judge_scores"][0], title, scorer)
    plot_funnel(funnel, out / PLOT_FILES["funnel"][0], title)
    plot_flags(flags, out / PLOT_FILES["flags"][0], title)
    return {key: f"{PLOTS_DIR}/{name}" for key, (name, _) in PLOT_FILES.items()}
