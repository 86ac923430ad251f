"""One run of the stages for one source: load -> import authored -> validate -> judge -> release.

Every stage reads records in one state from the store and moves them on, so running the same
command again continues where the last run stopped and repeats nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from authoring.drafts import load_drafts, run_drafting
from authoring.labelstudio.feedback import (
    bounce_gate_flags,
    bounce_review_flags,
    bounce_validation_failures,
    write_verdicts,
)
from authoring.labelstudio.held import HeldTasks, push_held_records
from authoring.labelstudio.runs import SyncResult, awaiting_line, label_studio_for_run, sync
from authoring.source_changes import RecheckResult, recheck_changed_sources
from build_split.exit_codes import (
    AUDIT_SHORT,
    CONFLICTS_NOT_APPLIED,
    OK,
    StageFailures,
    exit_code,
    summary_line,
)
from build_split.fix_locations import fix_lines, fix_locations
from build_split.ingest import import_into_store, load_into_store
from build_split.options import RunOptions
from build_split.sources import sample_authored
from core import revisions
from core.llm.client import LLMClient
from core.llm.failures import LLMStopped
from core.llm.settings import DEFAULT_DRAFT_MODEL, DEFAULT_JUDGE_MODEL, LLMSettings, make_stage_client
from core.llm.usage import UsageTally
from core.models import RecordState
from core.redaction import redact
from core.store import Store
from core.version import TOOLKIT_VERSION
from exports.release import seal_releases
from judge.heuristic import HeuristicJudge
from judge.llm_judge import LLMJudge
from judge.llm_stage import run_llm_judging
from judge.review_stage import run_review
from judge.reviewer import LLMReviewer
from judge.rubric import RUBRIC_VERSION
from judge.stage import reconcile_verdicts, run_judging
from validation.characters import visible
from validation.stage import run_validation

if TYPE_CHECKING:
    from authoring.audit import AuditRun

CONFLICTS_KEY = "conflicts (not applied)"


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
    reconciled: Counter[str] = field(default_factory=Counter)
    drafting: Counter[str] = field(default_factory=Counter)
    llm_usage: list[str] = field(default_factory=list)
    label_studio: SyncResult | None = None
    bounced: int = 0
    held_tasks: HeldTasks = field(default_factory=HeldTasks)  # tasks of held or rejected records
    reviewing: Counter[str] = field(default_factory=Counter)
    audit: AuditRun | None = None  # with --audit
    release_path: Path | None = None
    release_status: str | None = None
    published: object | None = None  # exports.hub.PublishResult, with --push
    source_changes: RecheckResult = field(default_factory=RecheckResult)
    llm_failures: list[StageFailures] = field(default_factory=list)
    llm_stopped: bool = False  # a refusal or the circuit breaker stopped an LLM stage (and the run)
    verdicts: int = 0  # tasks whose verdict (accepted, or rejected with reasons) was written back to Label Studio

    @property
    def exit_code(self) -> int:
        code = exit_code(self.llm_failures)
        if code != OK:
            return code
        if self.imported.get(CONFLICTS_KEY):
            return CONFLICTS_NOT_APPLIED
        if self.audit is not None and self.audit.short:
            return AUDIT_SHORT
        return OK

    def failure_lines(self) -> list[str]:
        lines = [summary_line(f) for f in self.llm_failures if f.failed]
        if conflicts := self.imported.get(CONFLICTS_KEY):
            lines.append(
                f"{conflicts} incoming version(s) conflict with a record's current revision and were not applied: "
                "--rejections lists them; --overwrite applies them"
            )
        if self.audit is not None and self.audit.short:
            lines.append(
                f"the audit asked for {self.audit.asked} record(s) per round but each round holds only "
                f"{self.audit.smallest_round} (only that many records are accepted): its error rate has wider "
                "intervals than asked for; audit again once more records are accepted"
            )
        return lines


def _load(store: Store, options: RunOptions, summary: RunSummary) -> None:
    counts, result = load_into_store(store, options)
    summary.loaded = {"new": counts.new, "changed": counts.changed, "unchanged": counts.unchanged}
    summary.load_problems = len(result.problems)


def _no_source_items(store: Store, options: RunOptions, summary: RunSummary) -> str:
    """Why the workspace has no source items: nothing was passed, or every input row was rejected (the count
    and the first reasons)."""
    if not (options.sample or options.input or options.from_hub):
        return (
            f"the workspace {options.workspace} has no {options.source} source items yet: "
            "pass --input PATH, --sample (the embedded sample) or --from-hub"
        )
    given = options.input or ("the embedded sample" if options.sample else "the Hub")
    rejected = [row for row in store.import_rejections(options.source) if row["origin"].startswith("load:")]
    if not rejected:
        return (
            f"no {options.source} source item was found in {given}: check the path, the format and the filters "
            "(--category, --limit)"
        )
    first = "; ".join(f"{r['reasons'][0]['code']}: {r['reasons'][0]['message']}" for r in rejected[:3] if r["reasons"])
    return (
        f"all {summary.load_problems or len(rejected)} input row(s) of {given} were rejected, so the workspace has no "
        f"{options.source} source items (first: {first}); is it a {options.source} file? "
        "--rejections lists every one"
    )


def _import(store: Store, options: RunOptions, path: Path, summary: RunSummary) -> None:
    counts, result, verdicts = import_into_store(store, options.source, path, overwrite=options.overwrite)
    summary.imported = {
        "new": counts.new,
        "changed": counts.changed,
        "unchanged": counts.unchanged + verdicts["unchanged"],
        "not re-applied (changed since)": verdicts["stale"],
        CONFLICTS_KEY: verdicts["conflict"],
    }
    summary.import_rejections = len(result.rejections)


def llm_settings(options: RunOptions, backend: str, model: str | None, defaults: dict[str, str]) -> LLMSettings:
    return LLMSettings(
        backend=backend,
        model=model or defaults[backend],
        base_url=options.llm_base_url,
        concurrency=options.concurrency,
        rpm=options.rpm,
        timeout_s=options.llm_timeout,
        max_consecutive_failures=options.max_consecutive_failures,
        retry_failed=options.retry_failed,
    )


@contextmanager
def _failures_of(stage: str, client: LLMClient, summary: RunSummary) -> Iterator[None]:
    """Keep the stage's failed LLM results (and its stop, re-raised) for the summary line and exit code."""
    failures = StageFailures(stage, client.name)
    summary.llm_failures.append(failures)
    try:
        yield
    except LLMStopped as stop:
        failures.stop = stop
        summary.llm_stopped = True
        raise
    finally:
        failures.counts.update(client.failures.counts)
        failures.last.update(client.failures.last)


def _draft(store: Store, options: RunOptions, tally: UsageTally, summary: RunSummary) -> None:
    backend = options.judge if options.judge != "heuristic" else "gemini"
    settings = llm_settings(options, backend, options.draft_model, DEFAULT_DRAFT_MODEL)
    client, runner = make_stage_client(
        store, settings, stage="draft", source=options.source, tally=tally, batch=options.batch
    )
    with _failures_of("draft", client, summary):
        try:
            summary.drafting = run_drafting(store, options.source, client, limit=options.draft_limit, batch=runner)
        except LLMStopped as stop:
            summary.drafting = stop.counts
            raise


def _judge(store: Store, options: RunOptions, tally: UsageTally, summary: RunSummary) -> tuple[str, str]:
    """Run the chosen judge; returns its name and version for the release manifest."""
    name = "heuristic" if options.judge == "heuristic" else f"{options.judge}:{options.judge_model or ''}"
    summary.reconciled = reconcile_verdicts(store, options.source, name, options.threshold)
    if options.judge == "heuristic":
        judge = HeuristicJudge(options.rule_set())
        summary.judging = run_judging(store, options.source, judge, options.threshold)
        return judge.name, judge.version
    settings = llm_settings(options, options.judge, options.judge_model, DEFAULT_JUDGE_MODEL)
    client, runner = make_stage_client(
        store, settings, stage="judge", source=options.source, tally=tally, batch=options.batch
    )
    llm_judge = LLMJudge(client)
    prefilter = HeuristicJudge(options.rule_set()) if options.prefilter else None
    with _failures_of("judge", client, summary):
        try:
            summary.judging = run_llm_judging(
                store, options.source, llm_judge, options.threshold, prefilter=prefilter, batch=runner
            )
        except LLMStopped as stop:
            summary.judging = stop.counts
            raise
    return llm_judge.name, llm_judge.version


def _existing_release(options: RunOptions) -> Path | None:
    from exports.release import config_for, release_dir

    path = release_dir(options.workspace, config_for(options.source), options.release or "")
    return path if options.release and (path / "manifest.json").is_file() else None


def publish(options: RunOptions, echo: Callable[[str], None] = print) -> object:
    """Publish local release `options.release` to `options.push` (a Hub repo id or a folder)."""
    from exports.hub import publish_release

    path = _existing_release(options)
    if path is None:
        raise UsageError(
            f"no local release {options.release} of {options.source} in {options.workspace}: write it first "
            f"with --release {options.release}"
        )
    return publish_release(
        path,
        options.push or "",
        private=options.private,
        dry_run=options.dry_run,
        echo=echo,
        releases_root=options.workspace / "releases",
    )


def _waiting_on_llm(store: Store, source: str) -> int:
    """Records of `source` that the LLM judge could not answer for a transient reason (server error,
    timeout, outage): a release written now would leave them out."""
    return sum(n for stage, code, n in store.reason_counts(source) if (stage, code) == ("judge", "judge_unavailable"))


def run(options: RunOptions, echo: Callable[[str], None] = print) -> RunSummary:
    summary = RunSummary()
    inputs = options.sample or options.input or options.from_hub or options.authored
    if options.push and not inputs and (existing := _existing_release(options)) is not None:
        # Publishing an existing local release: no stage runs, the store is not opened.
        echo(f"release:    {existing} (existing; published as it is)")
        summary.release_path, summary.release_status = existing, "existing"
        summary.published = publish(options, echo)
        return summary
    # Label Studio outlives the store's block: a kept server serves the curators with the store closed, so
    # `--status` and the rest work from another terminal meanwhile.
    with label_studio_for_run(
        options.workspace,
        url=options.label_studio_url,
        api_key=options.label_studio_api_key,
        start=options.start_label_studio,
        port=options.label_studio_port,
        workers=options.label_studio_workers,
        # an audit's reviewers work in the started server: it stays up for them until Ctrl-C
        keep_running=options.keep_label_studio or (options.audit is not None and options.start_label_studio),
        echo=echo,
        overlap=options.overlap,
        blind_second=options.blind_second,
        adopt=options.adopt,
        database=options.database,
        media=options.label_studio_media,
    ) as label_studio:
        run_once(options, summary, label_studio, echo)
    if options.push and not summary.llm_stopped:
        summary.published = publish(options, echo)
    return summary


def run_once(
    options: RunOptions,
    summary: RunSummary,
    label_studio: object | None,
    echo: Callable[[str], None] = print,
    *,
    quiet: bool = False,
    task_ids: list[int] | None = None,
) -> None:
    """The stages, once, with the store open for them only. `quiet`: no report (the service's cycles);
    `task_ids`: pull only these Label Studio tasks (a webhook named them)."""
    with Store.open(options.workspace) as store:
        for folder in seal_releases(options.workspace):  # killed after the rename, before made read-only
            echo(f"sealed:     {folder} (a run was killed before making it read-only; it matches its manifest)")
        if options.sample or options.input or options.from_hub:
            _load(store, options, summary)
        if store.count_source_items(options.source) == 0:
            raise UsageError(_no_source_items(store, options, summary))
        # Records of source items that changed go back through validation and judging.
        summary.source_changes = recheck_changed_sources(store, options.source)
        tally = UsageTally()
        try:
            judge_name, judge_version = _stages(store, options, summary, tally, label_studio, task_ids)
        except LLMStopped:
            judge_name = judge_version = ""  # the stop is in summary.llm_failures; the run ends here
        summary.llm_usage = tally.report()
        tally.save(store.con)
        if summary.llm_stopped:
            if options.release:
                summary.release_status = "not written: an LLM stage stopped (see below)"
        elif options.release and options.push and (existing := _existing_release(options)) is not None:
            summary.release_path, summary.release_status = existing, "existing; published as it is"
        elif options.release and (waiting := _waiting_on_llm(store, options.source)) and not options.release_partial:
            summary.release_status = (
                f"not written: {waiting} record(s) wait on a transient LLM failure; run again later, or pass "
                "--release-partial to release without them"
            )
        elif options.release:
            from exports.release import write_release
            from exports.review import refusal, review_of
            from scoring.release_numbers import curation_numbers

            review = review_of(store, options.source)
            refused = refusal(review, options.release, options.source)
            if refused and not options.allow_unreviewed:
                report_run(store, options, summary, echo)
                raise UsageError(refused)
            if review.rows:  # the release says how its rows were judged, not what this run was asked
                judge_name, judge_version = review.judge_label()
            result = write_release(
                store,
                options.source,
                options.release,
                options.workspace,
                judge_name=judge_name,
                judge_version=judge_version,
                threshold=review.threshold(options.threshold),
                toolkit_version=TOOLKIT_VERSION,
                rubric_version=RUBRIC_VERSION,
                review=review.as_manifest(options.allow_unreviewed)
                | {"rules": options.rule_set().describe()}
                | ({"waiting_on_llm": waiting} if waiting else {}),
                curation=curation_numbers(store, options.source),
                test_size=options.test_size,
                calibration=_calibration(options),
                page_images=options.with_page_images,
                description=options.description,
            )
            summary.release_path = result.path
            summary.release_status = result.status
            held = store.count_in_state(options.source, RecordState.NEEDS_REVIEW)
            if held:
                summary.release_status += f"; {held} record(s) in needs_review left out until their flags are resolved"
        if label_studio is not None:
            summary.verdicts = write_verdicts(store, label_studio, options.source)  # type: ignore[arg-type]
            if options.overlap > 1:  # adjudicated records: the verdict goes to the adjudicator's task
                from authoring.labelstudio.adjudication import key as adjudication_key

                summary.verdicts += write_verdicts(
                    store,
                    label_studio,  # type: ignore[arg-type]
                    options.source,
                    project_key=adjudication_key(options.source),
                )
        if quiet:
            return
        report_run(store, options, summary, echo)
        if label_studio is not None:
            served = options.keep_label_studio or options.serve or not options.start_label_studio
            echo(awaiting_line(store, label_studio, options.source, served=served))


def _calibration(options: RunOptions) -> dict[str, object] | None:
    """The card's summary of `--calibration FILE.json`; a file that is not one is a usage error."""
    if options.calibration is None:
        return None
    import json

    from judge.calibration import card_summary

    try:
        return card_summary(json.loads(options.calibration.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(
            f"--calibration {options.calibration}: not the figures of python -m judge.calibrate --output ({exc!r})"
        ) from None


def _stages(
    store: Store,
    options: RunOptions,
    summary: RunSummary,
    tally: UsageTally,
    label_studio: object | None,
    task_ids: list[int] | None = None,
) -> tuple[str, str]:
    """Draft, sync with Label Studio, import, validate and judge; returns the judge's name and version."""
    if options.draft:
        _draft(store, options, tally, summary)
    if label_studio is not None:
        # Push new candidates (with their drafts) and pull finished annotations in the same run.
        drafts = load_drafts(store.con, options.source, status="drafted")
        summary.label_studio = sync(
            store,
            label_studio,  # type: ignore[arg-type]
            options.source,
            drafts,
            task_ids=task_ids,
            compare=_compare_answers() if options.overlap > 1 else None,  # two curators per record
        )
    authored = options.authored or (sample_authored(options.source) if options.sample else None)
    if authored is not None:
        _import(store, options, authored, summary)
    summary.validation = run_validation(store, options.source)
    if label_studio is not None:
        summary.bounced = bounce_validation_failures(store, label_studio, options.source)  # type: ignore[arg-type]
    if options.review:
        _review(store, options, tally, summary)
        if label_studio is not None:
            summary.bounced += bounce_review_flags(store, label_studio, options.source)  # type: ignore[arg-type]
    judged = _judge(store, options, tally, summary)
    if label_studio is not None:  # flags the gate could not settle, shown to the curator above the editors
        summary.bounced += bounce_gate_flags(store, label_studio, options.source)  # type: ignore[arg-type]
        summary.held_tasks = push_held_records(store, label_studio, options.source)  # type: ignore[arg-type]
    if options.audit:
        _audit(store, options, summary, label_studio)
    return judged


def _compare_answers() -> Callable[..., object]:
    """How two curators' answers are compared: scoring's value accuracy and STED (imported only when needed)."""
    from scoring.curator_agreement import compare_answers

    return compare_answers


def _review(store: Store, options: RunOptions, tally: UsageTally, summary: RunSummary) -> None:
    """SOB's reviewer pass (Gemini 2.5 Flash by default) over validated records not yet reviewed."""
    backend = options.judge if options.judge != "heuristic" else "gemini"
    settings = llm_settings(options, backend, options.review_model, DEFAULT_DRAFT_MODEL)
    client, _ = make_stage_client(store, settings, stage="review", source=options.source, tally=tally)
    with _failures_of("review", client, summary):
        summary.reviewing = run_review(store, options.source, LLMReviewer(client))


def _audit(store: Store, options: RunOptions, summary: RunSummary, label_studio: object | None) -> None:
    """Draw the audit samples into Label Studio (first run), pull the verdicts (later runs)."""
    from authoring.audit import run_audit

    if label_studio is None:
        raise UsageError(
            "--audit needs Label Studio (the reviewers work there): pass --start-label-studio, or "
            "--label-studio-url and --label-studio-api-key (or LABEL_STUDIO_URL / LABEL_STUDIO_API_KEY)"
        )
    summary.audit = run_audit(
        store,
        label_studio,  # type: ignore[arg-type]
        options.source,
        size=options.audit,
        rounds=options.rounds,
        seed=options.seed,
    )


def print_diff(workspace: Path, source: str, old: str, new: str, echo: Callable[[str], None] = print) -> None:
    """The changelog between two local releases of `source`'s config (`--diff OLD NEW`)."""
    from exports.changelog import diff_releases
    from exports.diff_details import format_diff
    from exports.release import config_for
    from exports.versions import parse_version

    parse_version(old)
    parse_version(new)
    config = config_for(source)
    config_dir = Path(workspace) / "releases" / config
    log = diff_releases(config_dir, source, old, new)
    echo(redact(f"{config} ({source}): {format_diff(log, config_dir / old, config_dir / new, source, new)}") or "")


def report_run(store: Store, options: RunOptions, summary: RunSummary, echo: Callable[[str], None]) -> None:
    if summary.loaded:
        echo(f"loaded:     {_fmt(summary.loaded)}; {summary.load_problems} input row(s) rejected")
    if summary.label_studio is not None:
        push, pull = summary.label_studio.push, summary.label_studio.pull
        echo(
            f"label studio: pushed {push.pushed + summary.held_tasks.new} task(s) ({push.with_draft} with a draft, "
            f"{summary.held_tasks.total} of held or rejected records), "
            f"pulled {_fmt(pull.counts) or 'nothing new'}; {summary.bounced} sent back to curators, "
            f"{summary.verdicts} verdict(s) written back"
        )
    changes = summary.source_changes
    if changes.items:
        echo(
            f"source changed: {changes.items} item(s); {changes.reopened} record(s) sent back to validation and "
            f"judging (source_changed), {changes.with_curators} left with their curator"
        )
    if summary.imported or summary.import_rejections:
        echo(f"authored:   {_fmt(summary.imported)}; {summary.import_rejections} line(s) rejected")
    if summary.drafting:
        echo(f"drafted:    {_fmt(summary.drafting)}")
    echo(f"validated:  {_fmt(summary.validation) or 'nothing waiting'}")
    if options.review:
        echo(f"reviewed:   {_fmt(summary.reviewing) or 'nothing waiting'}")
    echo(f"judged:     {_fmt(summary.judging) or 'nothing waiting'}")
    if summary.reconciled:
        echo(f"re-judged:  {_fmt(summary.reconciled)}")
    if summary.audit is not None:
        for line in summary.audit.lines():
            echo(line)
    for line in summary.llm_usage:
        echo(line)
    if summary.release_path:
        echo(f"release:    {summary.release_path} ({summary.release_status})")
    elif summary.release_status:
        echo(f"release:    {summary.release_status}")
    print_status(store, options.source, echo)


def print_status(store: Store, source: str, echo: Callable[[str], None] = print) -> None:
    echo(f"\n{source}: {store.count_source_items(source)} source item(s)")
    states = store.state_counts(source)
    echo("records by state: " + (_fmt(states) or "none yet"))
    held = states.get(str(RecordState.NEEDS_REVIEW), 0)
    if held:
        echo(
            f"{held} record(s) wait in needs_review with flags the checks could not settle: --rejections lists them; "
            "resolve each flag in Label Studio ('R1 fixed' or 'R1 dismissed: why'), or edit the record's line in "
            "the authored file and import it again"
        )
    for line in fix_lines(store, source):
        echo(line)
    reasons = store.reason_counts(source)
    if reasons:
        echo("rejections and flags by stage and reason (records):")
        for stage, code, n in reasons:
            echo(f"  {stage:<10} {code:<32} {n}")
    for line in agreement_lines(store, source):
        echo(line)
    conflicts = revisions.count_open_conflicts(store.con, source)
    if conflicts:
        echo(
            f"conflicts not applied: {conflicts} (--rejections lists both versions, --history RECORD_ID a record's "
            "revisions; --overwrite applies the incoming one, or settle it in Label Studio)"
        )


def agreement_lines(store: Store, source: str) -> list[str]:
    """Two curators' agreement (`--overlap 2`): the figures `scoring.curator_agreement` computes from the store."""
    from authoring.curator_answers import agreement_rows
    from scoring.curator_agreement import status_lines, summarize

    rows = agreement_rows(store, source)
    if not rows:
        return []
    adjudicated = sum(1 for r in rows if r.status == "adjudicated")
    waiting = sum(1 for r in rows if r.status == "to_adjudicate")
    lines = status_lines(summarize([r.comparison for r in rows], adjudicated).as_dict())
    if waiting:
        lines.append(f"  {waiting} record(s) wait for an adjudicator in Label Studio (the adjudication project)")
    return lines


def print_rejections(store: Store, source: str, echo: Callable[[str], None] = print) -> None:
    """Every rejected, bounced or held record and every rejected input line, with its reasons (secrets masked); a
    record held in needs_review lists its open flags, each as `[gate/<code>] <path> R<n>: <reason>`."""
    shown = echo
    echo = lambda line: shown(visible(redact(line) or ""))  # noqa: E731 (escapes control characters)
    states = [RecordState.REJECTED, RecordState.NEEDS_REVISION, RecordState.NEEDS_REVIEW, RecordState.JUDGE_ERROR]
    for item in store.records(source, states):
        echo(
            f"{item.state} {item.record.record_id[:12]} {item.record.metadata.source_id}: {item.record.input.question}"
        )
        for where in fix_locations(store, [item.record.record_id]).values():
            echo(f"    fix in {where}")
        for reason in item.reasons:
            echo(f"    [{reason.stage}/{reason.code}] {reason.path} {reason.message}")
    for record_id, source_id, reasons in store.unreadable_records(source):
        echo(f"rejected {record_id[:12]} {source_id}: (cannot be read back)")
        for reason in reasons:
            echo(f"    [{reason.stage}/{reason.code}] {reason.path} {reason.message}")
    for row in store.import_rejections(source):
        echo(f"input {row['origin']} {_unit(row['reasons'])} {row['line_no']}:")
        for reason in row["reasons"]:
            echo(f"    [{reason['stage']}/{reason['code']}] {reason['message']}")
    for conflict in revisions.open_conflicts(store.con, source):
        current = revisions.current_revision(store.con, conflict.record_id)
        echo(f"conflict {conflict.record_id[:12]}: {conflict.content.get('question')}")
        if current is not None:
            echo(f"    current:  {_revision_line(current)}")
        echo(f"    incoming: {_revision_line(conflict)}, not applied")
        for line in revisions.change_lines(conflict.change):
            echo(f"      {line}")


def _revision_line(rev: revisions.Revision) -> str:
    how = " with --overwrite" if rev.overwrote else ""
    return (
        f"rev {rev.rev_no} by {rev.author or 'unknown'} from "
        f"{revisions.describe_origin(rev.origin, rev.origin_detail)}, {rev.recorded_at:%Y-%m-%d %H:%M:%S}{how}"
    )


def print_history(store: Store, source: str, record_id: str, echo: Callable[[str], None] = print) -> int:
    """A record's revisions with what each changed (`--history RECORD_ID`, a unique prefix of the id)."""
    shown = echo
    echo = lambda line: shown(redact(line) or "")  # noqa: E731
    prefix = record_id.strip().lower()
    matches = store.con.execute(
        "SELECT record_id, source_id, json_extract_string(record, '$.input.question') FROM records "
        "WHERE source = ? AND starts_with(record_id, ?) ORDER BY record_id LIMIT 6",
        [source, prefix],
    ).fetchall()
    if not prefix or not matches:
        raise UsageError(
            f"no {source} record with an id starting {record_id!r}: --status and --rejections name the records"
        )
    if len(matches) > 1:
        raise UsageError(f"{record_id!r} starts {len(matches)}+ record ids: give more of the id")
    rid, source_id, question = matches[0]
    revs = revisions.history(store.con, rid)
    echo(f"{rid} {source_id}: {question}")
    if not revs:
        echo("  no revisions kept: the record was stored before revisions were kept")
    for rev in revs:
        status = {
            revisions.CONFLICT: "conflict, not applied",
            revisions.SETTLED: "conflict, settled",
            revisions.ANSWER: f"{rev.origin_detail.get('curator', 'a')} curator's answer, kept",
        }.get(rev.status, "applied")
        echo(f"rev {rev.rev_no} ({status}) {_revision_line(rev).split(' ', 2)[2]}")
        for line in revisions.change_lines(rev.change):
            echo(f"    {line}")
    return 0


def _unit(reasons: list[dict[str, str]]) -> str:
    """What the row number counts (JSON list item, parquet row, line), as its reasons' messages say."""
    first = (reasons[0].get("message") or "").split(" ", 1)[0] if reasons else ""
    return first if first in ("item", "row") else "line"


def _fmt(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items() if v)
