"""`python -m judge.calibrate --cases LABELLED.jsonl --judge heuristic|gemini|openai`: how often validation and a
judge release wrong answers and hold or reject right ones, on labelled cases (judge/calibration.py).

A thin CLI: it reads the cases, finds their source items (inline contexts, `--input` files read by the
source's loader, or the source's embedded sample), runs the cases, prints the matrix and writes `--output`.
LLM judges answer through the store's cache in `--workspace`, so a rerun pays nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from core.models import Record, SourceItem
from core.redaction import redact
from core.sources import LoadRequest, get_source, source_names
from core.store import WorkspaceError
from core.verdicts import JudgeVerdict, ValidationReport
from judge.calibration import (
    LABELS,
    METHOD,
    OUTCOMES,
    CaseResult,
    CasesError,
    VerdictsFn,
    card_summary,
    each_judged,
    file_sha256,
    load_cases,
    report,
    run_cases,
)
from judge.rubric import DEFAULT_THRESHOLD

SHOW = [f"{label}-{what}" for label in LABELS for what in ("released", "held", "rejected")]
SHOWN_OUTCOME = {"released": "released", "held": "needs_review", "rejected": "rejected"}
EXAMPLES = """examples:
  python -m judge.calibrate --cases tests/data/calibration/cases.jsonl --judge heuristic
  python -m judge.calibrate --cases tests/data/calibration/hotpotqa.jsonl --cases tests/data/calibration/ami.jsonl \
      --cases tests/data/calibration/olmocr.jsonl --source hotpotqa \
      --input tests/data/hotpotqa/hotpot_dev_distractor_v1.sample.json --judge heuristic --split test
  python -m judge.calibrate --cases cases.jsonl --judge heuristic --threshold 70 --show wrong-released
  GEMINI_API_KEY=... python -m judge.calibrate --cases cases.jsonl --source hotpotqa \\
      --input hotpot_dev_distractor_v1.json --judge gemini --prefilter --output calibration.json
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m judge.calibrate",
        description="Run validation and a judge on labelled records (right and wrong answers) and print what was "
        "released, held in needs_review and rejected, overall, per source and per kind, with Wilson 95% intervals.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--split",
        choices=["dev", "test"],
        help='only the cases of this half of the labelled set (their "split" key)',
    )
    parser.add_argument(
        "--cases",
        action="append",
        type=Path,
        required=True,
        help='JSONL: authored-record lines plus "label": "right"|"wrong" and a free-text "kind"',
    )
    parser.add_argument("--judge", required=True, choices=["heuristic", "gemini", "openai"], help="the judge measured")
    parser.add_argument("--judge-model", help="model of an LLM judge (default gemini-2.5-pro / gpt-4o)")
    parser.add_argument(
        "--prefilter", action="store_true", help="with an LLM judge: the heuristic decides first, as in build_split"
    )
    parser.add_argument(
        "--threshold",
        type=int,
        default=DEFAULT_THRESHOLD,
        help=f"reject below this on any dimension (default {DEFAULT_THRESHOLD})",
    )
    parser.add_argument("--source", choices=source_names(), help="source of the lines that do not name one")
    parser.add_argument(
        "--input",
        type=Path,
        help="--source's files (as build_split --input) for lines without a context; else its embedded sample",
    )
    parser.add_argument(
        "--workspace",
        type=Path,
        default=Path("workspace") / "calibration",
        help="folder of the store whose LLM cache an LLM judge answers through (default workspace/calibration)",
    )
    parser.add_argument("--output", type=Path, help="write the figures and each case's outcome to this JSON file")
    parser.add_argument(
        "--show",
        action="append",
        choices=SHOW,
        default=[],
        help="list those cases with their reasons and flags (repeatable), e.g. wrong-released, right-held",
    )
    llm = parser.add_argument_group("LLM calls")
    llm.add_argument("--llm-base-url", help="send LLM calls to this endpoint (else GOOGLE_GEMINI_BASE_URL / ...)")
    llm.add_argument("--concurrency", type=int, default=8, help="LLM requests in flight at once (default 8)")
    llm.add_argument("--llm-timeout", type=float, default=120.0, help="seconds before an LLM request times out")
    return parser


def item_lookup(
    default_source: str | None, input_path: Path | None, workspace: Path
) -> Callable[[str], dict[str, SourceItem]]:
    """Source items by source id, loaded once per source: `--input` for `--source`, else the source's sample.
    The loaders are the sources' own (the same formats as `build_split --input`)."""

    @cache
    def load(source: str, path: Path | None) -> dict[str, SourceItem]:
        spec = get_source(source)
        request = LoadRequest(
            path=spec.sample_input() if path is None else path,
            sample=path is None,
            workspace=workspace,
            options=spec.options_model(),
        )
        print(f"loading {source} source items from {path or 'the embedded sample'} ...", file=sys.stderr)
        return {item.source_id: item for item in spec.load(request).items}

    def items(source: str) -> Mapping[str, SourceItem]:
        path = input_path if source == default_source and input_path is not None else None
        return _ThenSample(load(source, path), lambda: load(source, None)) if path is not None else load(source, None)

    return items


class _ThenSample(Mapping[str, SourceItem]):
    """The items of --input, then (loaded only when an id is not there) those of the embedded sample."""

    def __init__(self, first: dict[str, SourceItem], then: Callable[[], dict[str, SourceItem]]) -> None:
        self.first, self.then = first, then

    def __getitem__(self, key: str) -> SourceItem:
        return self.first[key] if key in self.first else self.then()[key]

    def __iter__(self) -> Iterator[str]:
        yield from self.first
        yield from (key for key in self.then() if key not in self.first)

    def __len__(self) -> int:
        return len(set(self.first) | set(self.then()))


def llm_verdicts(args: argparse.Namespace) -> tuple[VerdictsFn, Callable[[], str | None], Callable[[], None], str]:
    """The LLM judge as a VerdictsFn, a check for a stop, a close, and the judge's version."""
    from core.llm.settings import DEFAULT_JUDGE_MODEL, LLMSettings, make_stage_client
    from core.store import Store
    from judge.llm_judge import LLMJudge

    store = Store.open(args.workspace)
    settings = LLMSettings(
        backend=args.judge,
        model=args.judge_model or DEFAULT_JUDGE_MODEL[args.judge],
        base_url=args.llm_base_url,
        concurrency=args.concurrency,
        timeout_s=args.llm_timeout,
    )
    client, _ = make_stage_client(store, settings, stage="judge", source="calibration")
    judge = LLMJudge(client)

    def verdicts(pairs: list[tuple[Record, ValidationReport]]) -> Iterator[tuple[int, JudgeVerdict | BaseException]]:
        for index, outcome in judge.judge_iter([record for record, _ in pairs], args.threshold):
            if outcome is not None:
                yield index, outcome

    def stopped() -> str | None:
        return str(client.stop) if client.stop is not None else None

    def close() -> None:
        client.flush()  # every answer kept in the cache: a rerun pays nothing
        store.close()

    return verdicts, stopped, close, f"{judge.name}@{judge.version}"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.0f}%"


def _cell(cell: dict[str, Any]) -> str:
    if not cell["of"]:
        return "-"
    return f"{cell['count']:>3} {_pct(cell['rate']):>4} [{_pct(cell['low'])}-{_pct(cell['high'])}]"


def matrix_lines(title: str, figures: dict[str, Any], width: int, indent: str = "") -> list[str]:
    """One heading row and a row per label (a label with no case is left out below the overall matrix)."""
    lines = [f"{indent}{title:<{width}}" + "".join(f"{o:<22}" for o in OUTCOMES)]
    for label in LABELS:
        row = figures[label]
        if indent and not row["cases"]:
            continue
        head = f"{indent}  {label} ({row['cases']})"
        cells = "".join(f"{_cell(row[o]):<22}" for o in OUTCOMES)
        extra = f"judge_error {row['judge_error']['count']}" if "judge_error" in row else ""
        lines.append(f"{head:<{width + len(indent)}}{cells}{extra}".rstrip())
    return lines


def print_report(figures: dict[str, Any], echo: Callable[[str], None] = print) -> None:
    echo(
        f"calibration: {figures['cases']} case(s) ({figures['right']} right, {figures['wrong']} wrong) from "
        f"{figures['cases_file']}; judge {figures['judge']} ({figures['judge_version']}), threshold "
        f"{figures['threshold']}"
    )
    echo(f"each cell: cases, their share of the label's cases, [{METHOD}]")
    names = [*figures["by_source"], *figures["by_kind"]]
    width = max(16, *(len(name) + 4 for name in names))
    echo("")
    for line in matrix_lines("all", figures["overall"], width):
        echo(line)
    for heading, key in (("by source", "by_source"), ("by kind", "by_kind")):
        echo("")
        echo(heading)
        for name, sub in figures[key].items():
            for line in matrix_lines(name, sub, width - 2, "  "):
                echo(line)
    summary = card_summary(figures)
    echo("")
    for key, label in (
        ("false_releases", "false releases (wrong answers released)"),
        ("false_rejections", "false rejections (right answers rejected)"),
        ("right_held", "right answers held in needs_review"),
        ("wrong_held", "wrong answers held in needs_review"),
    ):
        m = summary[key]
        figure = f"{m['count']} of {m['of']} = {_pct(m['rate'])} [{_pct(m['low'])}-{_pct(m['high'])}]"
        echo(f"{label}: {figure if m['of'] else 'no such case'}")


def show_cases(results: list[CaseResult], which: list[str], echo: Callable[[str], None] = print) -> None:
    for name in which:
        label, _, what = name.partition("-")
        chosen = [r for r in results if r.case.label == label and r.outcome == SHOWN_OUTCOME[what]]
        echo("")
        echo(f"{name}: {len(chosen)} case(s)")
        for r in chosen:
            echo(
                f"  {r.case.id} (line {r.case.line}, {r.case.source} {r.case.record.metadata.source_id}, {r.case.kind})"
            )
            for reason in r.reasons or []:
                echo(f"      [{reason.stage}/{reason.code}] {reason.path} {reason.message}")
            if not r.reasons:
                echo(f"      scores {r.scores}")


def _combined_sha256(paths: list[Path]) -> str:
    import hashlib

    return hashlib.sha256("".join(file_sha256(p) for p in paths).encode()).hexdigest()


def output_problem(output: Path, cases: list[Path]) -> str | None:
    """Why `--output` could not be written at the end of the run, found before it starts; None when it can."""
    if output.is_dir():
        return "is a folder: name the JSON file to write (for example calibration.json)"
    if any(output.exists() and output.resolve() == case.resolve() for case in cases):
        return "is a --cases file: it would be overwritten; name another file"
    folder = next((p for p in [output.parent, *output.parent.parents] if p.exists()), Path("."))
    if not folder.is_dir():
        return f"{folder} is a file, not a folder"
    if output.exists() and not os.access(output, os.W_OK):
        return "is not writable (chmod u+w, or name another file)"
    if not output.exists() and not os.access(folder, os.W_OK | os.X_OK):
        return f"the folder {folder} is not writable"
    return None


def main(argv: list[str] | None = None) -> int:
    """Exit codes: 0 done, 2 bad cases or options, 3 the LLM judge stopped (cases it did not judge are
    counted as judge_error)."""
    args = build_parser().parse_args(argv)
    if args.input is not None and args.source is None:
        print("error: --input: needs --source (which source's files they are)", file=sys.stderr)
        return 2
    if args.prefilter and args.judge == "heuristic":
        print("error: --prefilter: only with an LLM judge (--judge gemini or openai)", file=sys.stderr)
        return 2
    problem = output_problem(args.output, args.cases) if args.output is not None else None
    if problem:  # said before the run, not after it as a traceback
        print(f"error: --output {args.output}: {problem}", file=sys.stderr)
        return 2
    from judge.heuristic import HeuristicJudge

    lookup = item_lookup(args.source, args.input, args.workspace)
    cases = []
    try:
        for path in args.cases:
            cases += load_cases(path, args.source, lookup)
    except (CasesError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    repeated = sorted({c.id for c in cases if sum(1 for other in cases if other.id == c.id) > 1})
    if repeated:
        print(f"error: case id(s) used in more than one file: {', '.join(repeated[:10])}", file=sys.stderr)
        return 2
    if args.split is not None:
        cases = [case for case in cases if case.split == args.split]
        if not cases:
            print(f'error: no case has "split": "{args.split}"', file=sys.stderr)
            return 2
    stopped: Callable[[], str | None] = lambda: None  # noqa: E731
    close: Callable[[], None] = lambda: None  # noqa: E731
    if args.judge == "heuristic":
        heuristic = HeuristicJudge()
        verdicts, version = each_judged(heuristic, args.threshold), f"{heuristic.name}@{heuristic.version}"
        prefilter = None
    else:
        from core.llm.types import LLMError

        try:
            verdicts, stopped, close, version = llm_verdicts(args)
        except (LLMError, WorkspaceError) as exc:  # no key, or the store is busy or damaged: said, not a traceback
            print(f"error: {redact(str(exc))}", file=sys.stderr)
            return 2
        prefilter = HeuristicJudge() if args.prefilter else None
    try:
        results = run_cases(cases, verdicts, prefilter=prefilter, threshold=args.threshold)
    finally:
        close()
    from core.models import utcnow

    meta = {
        "cases_file": ", ".join(path.name for path in args.cases),
        "cases_sha256": file_sha256(args.cases[0]) if len(args.cases) == 1 else _combined_sha256(args.cases),
        "split": args.split,
        "judge": "heuristic" if args.judge == "heuristic" else version.split("@", 1)[0],
        "judge_version": version.split("@", 1)[1],
        "prefilter": bool(prefilter),
        "threshold": args.threshold,
        "measured_at": utcnow().isoformat(timespec="seconds"),
    }
    figures = report(results, meta)
    print_report(figures)
    show_cases(results, args.show)
    if args.output is not None:
        try:
            args.output.parent.mkdir(parents=True, exist_ok=True)
            args.output.write_text(json.dumps(figures, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        except OSError as exc:  # e.g. the disk filled during the run: the figures above are printed
            print(f"error: --output {args.output}: cannot write it ({exc.strerror or exc})", file=sys.stderr)
            return 2
        print(f"\nwritten: {args.output} (build_split --calibration {args.output} puts it in the release card)")
    stop = stopped()
    if stop:
        print(
            f"error: the LLM judge stopped: {stop}; cases it did not judge are counted as judge_error", file=sys.stderr
        )
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
