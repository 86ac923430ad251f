"""`python -m build_split --source NAME`: a thin CLI over the pipeline (the sources come from the registry)."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

import duckdb
from pydantic import ValidationError

from authoring.labelstudio.client import LabelStudioError
from authoring.server import LabelStudioServerError
from build_split import exit_codes
from build_split.errors import explain_failure
from build_split.options import RunOptions
from build_split.pipeline import UsageError, print_diff, print_history, print_rejections, print_status, run
from build_split.project import PROJECT_FILENAME, ProjectError
from build_split.project_args import with_project
from core.llm.failures import DEFAULT_MAX_CONSECUTIVE_FAILURES
from core.llm.types import LLMError
from core.parallel import WorkerFailed
from core.progress import set_output
from core.redaction import redact, register_secret
from core.sources import ENTRY_POINT_GROUP, source_names, sources
from core.stop_signals import Terminated, stop_on_signals, stop_received
from core.store import STORE_FILENAME, Store, WorkspaceBusyError, WorkspaceError
from core.version import TOOLKIT_VERSION
from exports.hub import TARGET_HELP, HubUnavailableError, PublishError
from exports.release import ReleaseError
from judge.rubric import DEFAULT_THRESHOLD
from validation.characters import visible

EXAMPLES = r"""examples:
  python -m build_split --source hotpotqa --sample --release 0.1.0 --allow-unreviewed
  python -m build_split --source hotpotqa --input hotpot_dev_distractor_v1.json --limit 500 --seed 1
  python -m build_split --source hotpotqa --authored curators.jsonl --release 0.2.0 --allow-unreviewed
  python -m build_split --source ami --sample --release 0.1.0 --allow-unreviewed
  python -m build_split --source olmocr --input bench_data --category tables --ocr-server cpu
  python -m build_split --source documents --sample --release 0.1.0 --allow-unreviewed
  python -m build_split --source documents --input my_documents --config invoices --ocr-server cpu
  python -m build_split --source hotpotqa --status
  python -m build_split --source hotpotqa --sample --start-label-studio --serve
  python -m build_split --source hotpotqa --authored curators.jsonl --overwrite
  python -m build_split --source hotpotqa --release 0.2.0 --allow-unreviewed --push ./hub-preview
  HF_TOKEN=... python -m build_split --source hotpotqa --release 0.2.0 --allow-unreviewed \
      --push owner/sob-structured --dry-run
  python -m build_split --source hotpotqa --diff 0.1.0 0.2.0
  python -m build_split --version
  python -m build_split init --title "Invoices in JSON" --license cc-by-4.0 --source documents --sample
  python -m build_split --release 0.1.0 --allow-unreviewed
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m build_split",
        description="Build one source's split of a structured-output benchmark: load source items, import "
        "curators' records, validate, judge and write a versioned release. Re-running continues where "
        "the last run stopped.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {TOOLKIT_VERSION}")
    parser.add_argument(
        "--project",
        type=Path,
        metavar="FILE",
        help=f"the project file (default: {PROJECT_FILENAME} in this folder or the nearest parent that has one; "
        "`python -m build_split init` writes one); a flag given here overrides what it says",
    )
    parser.add_argument(
        "--source",
        choices=source_names(),
        help="which source to build (the built-in ones, and any a package registers under the entry-point group "
        f"{ENTRY_POINT_GROUP}); may be left out when the project file names it",
    )
    parser.add_argument(
        "--workspace",
        type=Path,
        help="workspace folder (default: the project file's, else ./workspace)",
    )
    inputs = parser.add_argument_group("source items")
    inputs.add_argument("--sample", action="store_true", help="use the embedded sample and its authored records")
    inputs.add_argument("--input", type=Path, help="local source files (a file or a folder)")
    inputs.add_argument("--from-hub", action="store_true", help="load the source from the Hugging Face Hub")
    inputs.add_argument(
        "--limit",
        type=int,
        help="draw N items, stratified (HotpotQA: by type and level; olmOCR-bench: N pages that pass the OCR gate)",
    )
    inputs.add_argument(
        "--seed", type=int, default=0, help="seed of the --limit draw and of the --audit samples (default 0)"
    )
    for source in sources():  # each source adds its own options (olmOCR-bench's categories, OCR server, ...)
        source.add_arguments(parser)
    ls = parser.add_argument_group("Label Studio (curators author and correct records there)")
    ls.add_argument("--label-studio-url", help="a running Label Studio (else LABEL_STUDIO_URL)")
    ls.add_argument("--label-studio-api-key", help="its API token (else LABEL_STUDIO_API_KEY)")
    ls.add_argument(
        "--start-label-studio",
        action="store_true",
        help="start a local Label Studio with its data in the workspace for this run",
    )
    ls.add_argument("--label-studio-port", type=int, help="port for --start-label-studio (default 8080)")
    ls.add_argument(
        "--label-studio-workers",
        type=int,
        default=1,
        metavar="N",
        help="with --start-label-studio: serve Label Studio from N processes (gunicorn, as its Docker image runs it) "
        "for a team's host; default 1, its development server",
    )
    ls.add_argument(
        "--database",
        metavar="URL",
        help="with --start-label-studio: Label Studio's data on PostgreSQL, postgresql://USER@HOST:PORT/NAME (else "
        "LABEL_STUDIO_DATABASE_URL; the password from LABEL_STUDIO_DATABASE_PASSWORD or PGPASSWORD, never here); "
        "default: SQLite in its data dir",
    )
    ls.add_argument(
        "--label-studio-media",
        choices=["auto", "local-files", "upload"],
        default="auto",
        help="how page images reach Label Studio: local-files (it reads the workspace: same machine), upload "
        "(through its API: a server elsewhere), or auto (local-files on this machine when it can read the "
        "workspace, else upload; the default)",
    )
    ls.add_argument(
        "--serve",
        action="store_true",
        help="after the run, keep syncing with Label Studio until Ctrl-C: each submitted annotation is pulled, "
        "validated and judged within seconds (webhooks on 127.0.0.1, polling as the fallback) and its verdict "
        "written back into the task; the store stays free for --status and the rest between cycles",
    )
    ls.add_argument(
        "--listen",
        metavar="HOST:PORT",
        help="with --serve: take Label Studio's webhooks on this address (for a Label Studio on another host; "
        "each webhook must carry the secret header the service registers with it); default: 127.0.0.1, and "
        "webhooks only from a Label Studio on this machine",
    )
    ls.add_argument(
        "--adopt",
        action="store_true",
        help="curate a Label Studio project of the toolkit's title that another workspace made (it is then marked "
        "as this workspace's)",
    )
    ls.add_argument(
        "--poll-seconds",
        type=float,
        default=15.0,
        help="with --serve: also check Label Studio this often, for annotations no webhook announced (default 15)",
    )
    ls.add_argument(
        "--overlap",
        type=int,
        choices=[1, 2],
        default=1,
        help="curators who author each record independently (default 1); with 2, Label Studio gives every task to two "
        "different curators, their agreement is kept (--status, the card) and records where they differ go to an "
        "adjudication task",
    )
    ls.add_argument(
        "--blind-second",
        action="store_true",
        help="with --overlap 2: the second curator works in a project of their own whose tasks carry the draft's "
        "question and schema but never its answer",
    )
    ls.add_argument(
        "--keep-label-studio",
        action="store_true",
        help="with --start-label-studio: keep serving the curators after the run until Ctrl-C",
    )
    work = parser.add_argument_group("authoring, checks and release")
    work.add_argument("--authored", type=Path, help="JSONL of curators' records to import")
    work.add_argument(
        "--overwrite",
        action="store_true",
        help="apply incoming versions that conflict with a record's current revision from another origin "
        "(listed by --status and --rejections); without it they are kept and not applied",
    )
    work.add_argument(
        "--judge",
        choices=["heuristic", "gemini", "openai"],
        help="judge: gemini (default when GEMINI_API_KEY or GOOGLE_API_KEY is set, model gemini-2.5-pro), "
        "openai (any OpenAI-compatible server), or heuristic (offline, free; the default otherwise)",
    )
    work.add_argument("--judge-model", help="model of the LLM judge (default gemini-2.5-pro / gpt-4o)")
    work.add_argument("--prefilter", action="store_true", help="run the free heuristic judge before the LLM judge")
    work.add_argument(
        "--select",
        type=_codes,
        metavar="CODE,...",
        help="run only these flag rules of docs/rules.md (rejections always run)",
    )
    work.add_argument("--ignore", type=_codes, default=[], metavar="CODE,...", help="turn these flag rules off")
    work.add_argument(
        "--reject", type=_codes, default=[], metavar="CODE,...", help="make these flags reject the record"
    )
    work.add_argument(
        "--review",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="SOB's reviewer pass between validation and the judge: per-field flags go back to the curator in "
        "Label Studio (default: on when GEMINI_API_KEY or GOOGLE_API_KEY is set; --no-review turns it off)",
    )
    work.add_argument("--review-model", help="model of the reviewer pass (default gemini-2.5-flash / gpt-4o-mini)")
    audit = parser.add_argument_group("residual-error audit (needs Label Studio)")
    audit.add_argument(
        "--audit",
        type=int,
        metavar="N",
        help="draw --rounds seeded samples of N accepted records into a Label Studio review project; later runs "
        "pull the verdicts, report the error rate with Wilson 95%% intervals and send wrong records back; with "
        "--start-label-studio the server stays up for the reviewers until Ctrl-C. Fewer accepted records than N: "
        "each round holds them all, and the run exits 7",
    )
    audit.add_argument("--rounds", type=int, default=5, help="audit rounds (samples of N), default 5 as SOB")
    llm = parser.add_argument_group("LLM drafts and calls")
    llm.add_argument("--draft", action="store_true", help="draft a question, schema and answer for new source items")
    llm.add_argument("--draft-model", help="drafting model (default gemini-2.5-flash / gpt-4o-mini)")
    llm.add_argument("--draft-limit", type=int, help="draft at most N items in this run")
    llm.add_argument(
        "--llm-base-url", help="send LLM calls to this endpoint (else GOOGLE_GEMINI_BASE_URL / OPENAI_BASE_URL)"
    )
    llm.add_argument("--concurrency", type=int, default=8, help="LLM requests in flight at once (default 8)")
    llm.add_argument("--rpm", type=float, help="at most this many LLM requests per minute")
    llm.add_argument("--llm-timeout", type=float, default=120.0, help="seconds before an LLM request times out")
    llm.add_argument(
        "--batch",
        action="store_true",
        help="submit drafts and judgements as Gemini batch jobs; later runs collect the results",
    )
    llm.add_argument(
        "--retry-failed",
        action="store_true",
        help="ask again for LLM replies cached as malformed and for drafts the provider rejected "
        "(otherwise a failed reply is kept and never paid for twice)",
    )
    llm.add_argument(
        "--max-consecutive-failures",
        type=int,
        default=DEFAULT_MAX_CONSECUTIVE_FAILURES,
        metavar="N",
        help="stop an LLM stage after N server failures in a row (5xx, timeouts, no connection), and exit 3; "
        f"0 never stops (default {DEFAULT_MAX_CONSECUTIVE_FAILURES})",
    )
    work.add_argument(
        "--threshold",
        type=int,
        help=f"reject a record scoring below this on any dimension (default: the project file's, else "
        f"{DEFAULT_THRESHOLD})",
    )
    work.add_argument(
        "--allow-unreviewed",
        action="store_true",
        help="with --release: write it even if records were accepted by the offline heuristic pre-filter alone "
        "(the card and manifest then say `review: heuristic-only`); refused otherwise",
    )
    work.add_argument(
        "--release-partial",
        action="store_true",
        help="with --release: write it even while records wait on a transient LLM failure (the card and manifest "
        "say how many are missing); otherwise the release waits for a run where the judge answered them all",
    )
    work.add_argument("--release", metavar="VERSION", help="write release VERSION (semantic version, e.g. 0.1.0)")
    work.add_argument(
        "--test-size",
        type=int,
        metavar="N",
        help="with --release (text): fill the test split up to N records, stratified by schema complexity and "
        "question type; released records never move (SOB's text test split is 5,000)",
    )
    work.add_argument(
        "--calibration",
        type=Path,
        metavar="FILE.json",
        help="with --release: state in the card the judge's calibration written by "
        "`python -m judge.calibrate --output FILE.json` (labelled set, false releases and rejections)",
    )
    work.add_argument(
        "--with-page-images",
        action="store_true",
        help="with --release (olmocr): add the rendered pages as a `page_image` column (a list of images) to the "
        "image config, to evaluate vision models too; off by default (SOB's columns)",
    )
    publish = parser.add_argument_group("publishing (with --release VERSION; the Hub token comes from HF_TOKEN)")
    publish.add_argument(
        "--push",
        metavar="REPO_ID|FOLDER",
        help="publish release VERSION (written by this run, or the existing local one) as one commit tagged "
        "v<VERSION> (image-v/audio-v<VERSION> for those configs); re-publishing changes nothing. " + TARGET_HELP,
    )
    publish.add_argument("--private", action="store_true", help="with --push: create the Hub repo as private")
    publish.add_argument(
        "--dry-run",
        action="store_true",
        help="with --push: print the files and the commit it would make; change nothing",
    )
    report = parser.add_argument_group("reports (no work is done)")
    report.add_argument("--status", action="store_true", help="print counts per state and per rejection reason")
    report.add_argument(
        "--diff",
        nargs=2,
        metavar=("V1", "V2"),
        help="print the changelog (record ids added, removed, changed per split) from local release V1 to V2",
    )
    report.add_argument(
        "--rejections",
        action="store_true",
        help="list every rejected record, input line and conflict not applied, with its reasons",
    )
    report.add_argument(
        "--history",
        metavar="RECORD_ID",
        help="print a record's revisions (who, from where, when, what changed); a unique prefix of the id is enough",
    )
    output = parser.add_argument_group("output")
    output.add_argument(
        "--quiet", action="store_true", help="no progress bars (they are drawn only on a terminal anyway)"
    )
    output.add_argument(
        "--verbose", action="store_true", help="show the log lines of the libraries used (httpx, olmocr, the Hub)"
    )
    return parser


def given_source_options(args: argparse.Namespace) -> dict[str, object]:
    """The source options given on the command line (every source's; RunOptions refuses another source's)."""
    names = {name for source in sources() for name in source.options_model.model_fields}
    # `is`, not `in (None, False)`: 0 == False, and `--max-pdf-pages 0` must reach the check that refuses it
    return {
        name: value for name in sorted(names) if (value := getattr(args, name, None)) is not None and value is not False
    }


def _codes(text: str) -> list[str]:
    """A comma-separated list of rule codes."""
    return [code.strip() for code in text.split(",") if code.strip()]


def default_judge() -> str:
    """Gemini judges when a key is configured; otherwise the free offline judge."""
    from core.llm.gemini_backend import gemini_credentials_available

    return "gemini" if gemini_credentials_available() else "heuristic"


def _announced_default_judge() -> str:
    """The default judge, said aloud when it is the offline pre-filter: no silent fallback."""
    judge = default_judge()
    if judge == "heuristic":
        print(
            "note: judge: heuristic (no GEMINI_API_KEY or GOOGLE_API_KEY set): an offline pre-filter that may reject "
            "but never vouch for a record; a release of its acceptances needs --allow-unreviewed",
            file=sys.stderr,
        )
    return judge


def main(argv: list[str] | None = None) -> int:
    """Exit codes: build_split/exit_codes.py (0 done, 2 usage or input error, 3 LLM server failures, 4 key refused,
    5 network failure, 6 conflicts left unapplied, 7 an audit drew fewer records than asked)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["init"]:
        from build_split.init_command import init_main

        return init_main(argv[1:])
    args = build_parser().parse_args(argv)
    set_output(quiet=args.quiet, verbose=args.verbose)
    register_secret(args.label_studio_api_key)  # masked in everything stored or printed
    if args.label_studio_api_key:
        print(
            "warning: --label-studio-api-key is visible to every user of this machine (ps, /proc); "
            "set LABEL_STUDIO_API_KEY in the environment instead",
            file=sys.stderr,
        )
    try:
        project = with_project(args)
    except ProjectError as exc:
        print(f"error: {visible(redact(str(exc)))}", file=sys.stderr)
        return exit_codes.USAGE
    try:
        options = RunOptions(
            source=args.source,
            source_options=given_source_options(args) | project.source_options,
            workspace=args.workspace,
            sample=args.sample,
            input=args.input,
            from_hub=args.from_hub,
            limit=args.limit,
            seed=args.seed,
            label_studio_url=args.label_studio_url,
            label_studio_api_key=args.label_studio_api_key,
            start_label_studio=args.start_label_studio,
            label_studio_port=args.label_studio_port,
            label_studio_workers=args.label_studio_workers,
            keep_label_studio=args.keep_label_studio,
            database=args.database,
            label_studio_media=args.label_studio_media,
            authored=args.authored,
            overwrite=args.overwrite,
            serve=args.serve,
            listen=args.listen,
            adopt=args.adopt,
            overlap=args.overlap,
            blind_second=args.blind_second,
            judge=args.judge
            or (
                default_judge()
                if args.status or args.rejections or args.diff or args.history
                else _announced_default_judge()
            ),
            judge_model=args.judge_model,
            prefilter=args.prefilter,
            review=default_judge() == "gemini" if args.review is None else args.review,
            review_model=args.review_model,
            audit=args.audit,
            rounds=args.rounds,
            draft=args.draft,
            draft_model=args.draft_model,
            draft_limit=args.draft_limit,
            llm_base_url=args.llm_base_url,
            concurrency=args.concurrency,
            rpm=args.rpm,
            llm_timeout=args.llm_timeout,
            batch=args.batch,
            retry_failed=args.retry_failed,
            max_consecutive_failures=args.max_consecutive_failures,
            threshold=args.threshold,
            select=args.select,
            ignore=args.ignore,
            reject=args.reject,
            allow_unreviewed=args.allow_unreviewed,
            release_partial=args.release_partial,
            release=args.release,
            test_size=args.test_size,
            calibration=args.calibration,
            with_page_images=args.with_page_images,
            push=args.push,
            private=args.private,
            dry_run=args.dry_run,
            description=project.description,
        )
    except ValidationError as exc:
        for error in exc.errors():
            flag = "-".join(str(p) for p in error["loc"]).replace("_", "-")
            message = str(error["msg"]).removeprefix("Value error, ")
            # The message names the option itself for the source's options and the rule set (`loc` empty).
            where = "" if error["loc"] in (("source_options",), ()) else f"--{flag}: "
            print(f"error: {where}{visible(redact(message))}", file=sys.stderr)
        return 2
    try:
        with stop_on_signals():  # SIGTERM/SIGHUP unwind like Ctrl-C: a started Label Studio is stopped
            return _run_command(args, options)
    except Terminated as stop:
        # Every `finally` has run (a started Label Studio is stopped); what was committed is kept.
        return stopped_by(stop.signum)
    except Exception:
        signum = stop_received()
        if signum is None:
            raise
        # The stop came during a DuckDB query, which reports it as "Query interrupted": a stop, not a crash.
        return stopped_by(signum)


def stdout_closed() -> bool:
    """Whether the reader of stdout has gone (`--status | head -3`): the pipe then polls as an error."""
    import select

    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLERR)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (OSError, ValueError, AttributeError):  # no real stdout (captured by a test)
        return False


def stopped_by(signum: int) -> int:
    """The line and exit code of a run stopped by a signal (Ctrl-C reaches the caller as KeyboardInterrupt)."""
    print(f"stopped by {signal.Signals(signum).name}: work committed so far is kept", file=sys.stderr)
    return 128 + signum


def _run_command(args: argparse.Namespace, options: RunOptions) -> int:
    try:
        if args.diff:
            print_diff(options.workspace, options.source, *args.diff)
            return 0
        if args.status or args.rejections or args.history:
            if not (options.workspace / STORE_FILENAME).is_file():  # a read-only look creates nothing
                raise UsageError(
                    f"{options.workspace} holds no curation store ({STORE_FILENAME}): is --workspace right? "
                    "A run with --sample or --input creates one"
                )
            with Store.open(options.workspace) as store:
                if args.history:
                    return print_history(store, options.source, args.history)
                (print_rejections if args.rejections else print_status)(store, options.source)
            return 0
        if args.serve:
            from build_split.service import serve

            summary = serve(options, poll_s=args.poll_seconds)
        else:
            summary = run(options)
    except HubUnavailableError as exc:  # a network failure, not a usage error: its own exit code
        print(f"error: {visible(redact(str(exc)))}", file=sys.stderr)
        return exit_codes.NETWORK
    except (
        UsageError,
        WorkspaceBusyError,
        FileNotFoundError,
        ValueError,
        ReleaseError,
        PublishError,
        LabelStudioError,
        LabelStudioServerError,  # not installed, busy port, failed start: the message says what to do
        LLMError,  # e.g. no key for the Gemini client: the message says what to set
        WorkerFailed,  # a worker process died: the message says what is kept and what to do
    ) as exc:
        if stop_received() is not None:
            raise  # a failure the stop caused (its workers got the signal too): reported as the stop
        print(f"error: {visible(redact(str(exc)))}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        if not stdout_closed():
            raise  # a socket or a child's pipe: a failure like any other
        return exit_codes.ended_by_closed_stdout()
    except (WorkspaceError, duckdb.Error, OSError) as exc:
        if stop_received() is not None:
            raise
        print(f"error: {visible(redact(explain_failure(exc, options.workspace)))}", file=sys.stderr)
        return 2
    for line in summary.failure_lines():
        print(f"error: {visible(line)}" if summary.exit_code else f"warning: {visible(line)}", file=sys.stderr)
    return summary.exit_code
