"""One run of the stages for one source: load -> import authored -> validate -> judge -> release.

Every stage reads records in one state from the store and moves them on, so running the same
command again continues where the last run stopped and repeats nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from authoring.file_import import import_authored
from build_split.options import RunOptions
from build_split.sources import load_source, sample_authored
from core.models import Reason, RecordState
from core.store import Store
from core.version import TOOLKIT_VERSION
from judge.heuristic import HeuristicJudge
from judge.stage import run_judging
from validation.stage import run_validation


class UsageError(RuntimeError):
    """A mistake the curator can fix; the message says how."""


@dataclass
class RunSummary:
    loaded: dict[str, int] = field(default_factory=dict)
    load_problems: int = 0
    imported: dict[str, int] = field(default_factory=dict)
    import_rejections: int = 0
    validation: Counter[str] = field(default_factory=Counter)
    judging: Counter[str] = field(default_factory=Counter)
    release_path: Path | None = None
    release_status: str | None = None


def _load(store: Store, options: RunOptions, summary: RunSummary) -> None:
    result = load_source(options)
    counts = store.upsert_source_items(result.items)
    summary.loaded = {"new": counts.new, "changed": counts.changed, "unchanged": counts.unchanged}
    by_origin: dict[str, list[tuple[int, str, list[Reason]]]] = {}
    for problem in result.problems:
        reason = Reason(stage="load", code=problem.code, message=f"line {problem.line_no}: {problem.message}")
        by_origin.setdefault(f"load:{problem.origin}", []).append((problem.line_no, problem.raw, [reason]))
    for origin, rows in by_origin.items():
        store.clear_import_rejections(options.source, origin)
        store.add_import_rejections(options.source, origin, rows)
    summary.load_problems = len(result.problems)


def _import(store: Store, options: RunOptions, path: Path, summary: RunSummary) -> None:
    result = import_authored(path, store.source_items(options.source))
    store.clear_import_rejections(options.source, result.origin)
    store.add_import_rejections(options.source, result.origin, result.rejections)
    counts = store.upsert_records(result.records, RecordState.AUTHORED, "import")
    summary.imported = {"new": counts.new, "changed": counts.changed, "unchanged": counts.unchanged}
    summary.import_rejections = len(result.rejections)


def make_judge(name: str) -> HeuristicJudge:
    if name == "heuristic":
        return HeuristicJudge()
    raise UsageError(f"unknown judge {name!r}")


def run(options: RunOptions, echo: Callable[[str], None] = print) -> RunSummary:
    summary = RunSummary()
    with Store.open(options.workspace) as store:
        if options.sample or options.input or options.from_hub:
            _load(store, options, summary)
        if store.count_source_items(options.source) == 0:
            raise UsageError(
                f"the workspace {options.workspace} has no {options.source} source items yet: "
                "pass --input PATH, --sample (the embedded sample) or --from-hub"
            )
        authored = options.authored or (sample_authored(options.source) if options.sample else None)
        if authored is not None:
            _import(store, options, authored, summary)
        summary.validation = run_validation(store, options.source)
        judge = make_judge(options.judge)
        summary.judging = run_judging(store, options.source, judge, options.threshold)
        if options.release:
            from exports.release import write_release

            result = write_release(
                store,
                options.source,
                options.release,
                options.workspace,
                judge_name=judge.name,
                judge_version=judge.version,
                threshold=options.threshold,
                toolkit_version=TOOLKIT_VERSION,
            )
            summary.release_path = result.path
            summary.release_status = result.status
        report_run(store, options, summary, echo)
    return summary


def report_run(store: Store, options: RunOptions, summary: RunSummary, echo: Callable[[str], None]) -> None:
    if summary.loaded:
        echo(f"loaded:     {_fmt(summary.loaded)}; {summary.load_problems} input row(s) rejected")
    if summary.imported or summary.import_rejections:
        echo(f"authored:   {_fmt(summary.imported)}; {summary.import_rejections} line(s) rejected")
    echo(f"validated:  {_fmt(summary.validation) or 'nothing waiting'}")
    echo(f"judged:     {_fmt(summary.judging) or 'nothing waiting'}")
    if summary.release_path:
        echo(f"release:    {summary.release_path} ({summary.release_status})")
    print_status(store, options.source, echo)


def print_status(store: Store, source: str, echo: Callable[[str], None] = print) -> None:
    echo(f"\n{source}: {store.count_source_items(source)} source item(s)")
    states = store.state_counts(source)
    echo("records by state: " + (_fmt(states) or "none yet"))
    reasons = store.reason_counts(source)
    if reasons:
        echo("rejections by stage and reason (records):")
        for stage, code, n in reasons:
            echo(f"  {stage:<10} {code:<32} {n}")


def print_rejections(store: Store, source: str, echo: Callable[[str], None] = print) -> None:
    """Every rejected or bounced record and every rejected input line, with its reasons."""
    states = [RecordState.REJECTED, RecordState.NEEDS_REVISION, RecordState.JUDGE_ERROR]
    for item in store.records(source, states):
        echo(
            f"{item.state} {item.record.record_id[:12]} {item.record.metadata.source_id}: {item.record.input.question}"
        )
        for reason in item.reasons:
            echo(f"    [{reason.stage}/{reason.code}] {reason.path} {reason.message}")
    for row in store.import_rejections(source):
        echo(f"input {row['origin']} line {row['line_no']}:")
        for reason in row["reasons"]:
            echo(f"    [{reason['stage']}/{reason['code']}] {reason['message']}")


def _fmt(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items() if v)
