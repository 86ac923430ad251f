"""`python -m scoring.run`: inference on a release as SOB's `python -m sob.run` (thin over scoring/run/runner.py)."""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path

from core.llm.types import LLMError
from core.progress import set_output
from core.redaction import redact
from core.store import Store, WorkspaceBusyError
from scoring.help_format import examples_formatter
from scoring.inputs import ScoringInputError
from scoring.run.backends import KEY_VARIABLE, PROVIDERS, RunSettings, make_run_backend
from scoring.run.runner import (
    DEFAULT_CONCURRENCY,
    DEFAULT_MAX_TOKENS,
    DEFAULT_TEMPERATURE,
    RunOptions,
    RunReport,
    run_inference,
)

# The exit codes of `python -m build_split` for the same outcomes (docs/cli.md).
OK, USAGE, LLM_UNAVAILABLE, LLM_REFUSED = 0, 2, 3, 4

EXAMPLES = r"""examples:
  GEMINI_API_KEY=... python -m scoring.run --release workspace/releases/default/0.1.0 \
      --provider gemini --model-id gemini-2.5-flash --output-root runs
  python -m scoring.run --release DIR --provider vllm --model-id Qwen/Qwen3-8B \
      --base-url http://localhost:8000/v1 --sample-size 5
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m scoring.run",
        description="Run a model on every record of a release, as SOB's `python -m sob.run` does: SOB's system "
        "prompt and user message, the schema sent as SOB sends it to each provider, SOB's temperature (0) and "
        "output budget (2,048 tokens). Writes SOB's response file, "
        "OUT/<text|images|audio>_responses/response_<model>[_image|_audio].jsonl, which `python -m scoring "
        "--responses` and SOB's evaluate.py read. Answers are cached in the workspace's store and each finished "
        "record is kept at once: run the command again to resume, nothing is asked twice.",
        epilog=EXAMPLES,
        formatter_class=examples_formatter(EXAMPLES),
    )
    parser.add_argument("--release", type=Path, required=True, metavar="DIR", help="a release folder")
    parser.add_argument(
        "--provider",
        choices=PROVIDERS,
        required=True,
        help="gemini (google-genai), openai (openai SDK), anthropic (anthropic SDK), openrouter or vllm "
        "(OpenAI-compatible API); keys from "
        + ", ".join(f"{var}" for var in KEY_VARIABLE.values())
        + " (vLLM: none needed)",
    )
    parser.add_argument("--model-id", required=True, help="the provider's model name, as SOB's --model-id")
    parser.add_argument(
        "--output-root", type=Path, default=Path("data"), metavar="OUT", help="where the response folders go (data)"
    )
    parser.add_argument("--sample-size", type=int, metavar="N", help="only the first N records, as SOB's --sample-size")
    parser.add_argument("--temperature", type=float, default=DEFAULT_TEMPERATURE, help="sampling temperature (0.0)")
    parser.add_argument(
        "--max-tokens", type=int, default=DEFAULT_MAX_TOKENS, help="output token budget per record (2048)"
    )
    parser.add_argument(
        "--use-structured-decoding",
        action="store_true",
        help="send the record's schema for schema-constrained decoding (SOB's ablation): Gemini's response_schema, "
        "OpenAI's strict json_schema, vLLM's json_schema",
    )
    parser.add_argument(
        "--thinking", action="store_true", help="leave the model's thinking on (SOB turns it off where it can)"
    )
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="the provider's endpoint (vLLM: http://localhost:8000/v1; else the SDK's own default or variable)",
    )
    parser.add_argument(
        "--openrouter-extra-body", metavar="JSON", help="JSON passed as OpenRouter's extra_body, as SOB's option"
    )
    parser.add_argument(
        "--concurrency", type=int, default=DEFAULT_CONCURRENCY, help="requests in flight at once (SOB: 20)"
    )
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        help="worker processes that make the calls (1: this one), sharing --concurrency between them (never more "
        "than it: at most one process per call in flight). For a server that answers fast (a local vLLM): the SDK's "
        "own CPU per call then fills one core, and 2 or more spread it",
    )
    parser.add_argument("--rpm", type=float, help="at most this many requests per minute")
    parser.add_argument("--max-attempts", type=int, default=6, help="tries per request on 429, 5xx and timeouts (6)")
    parser.add_argument(
        "--retry-failed",
        action="store_true",
        help="ask again for replies cached as not JSON (else kept, as SOB keeps them)",
    )
    parser.add_argument(
        "--workspace",
        type=Path,
        default=Path("workspace"),
        help="the workspace whose store caches the answers and tallies tokens and cost (workspace)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    return parser


def _settings(args: argparse.Namespace) -> RunSettings:
    extra = json.loads(args.openrouter_extra_body) if args.openrouter_extra_body else None
    return RunSettings(
        provider=args.provider,
        structured=args.use_structured_decoding,
        disable_thinking=not args.thinking,
        base_url=args.base_url,
        max_connections=max(args.concurrency, 20),
        openrouter_extra_body=extra,
    )


def _summary(report: RunReport) -> list[str]:
    lines = [
        f"{report.path}: {report.already_done} record(s) already answered, {report.answered} answered now "
        f"({report.not_json} not JSON, kept as the model's text), of {report.total}"
    ]
    rejected = report.failed.get("rejected", 0)
    if rejected:
        lines.append(f"{rejected} request(s) refused for themselves (a 4xx): written as SOB writes a failed call")
    left = {kind: n for kind, n in report.failed.items() if kind != "rejected"}
    if left:
        counts = ", ".join(f"{n} {kind}" for kind, n in sorted(left.items()))
        lines.append(f"left without an answer: {counts}; run the command again to ask for them")
    if report.stop is not None:
        lines.append(f"STOPPED: {report.stop}")
    elif report.last_error:
        lines.append(f"last error: {report.last_error}")
    if not report.complete:
        lines.append(f"the response file is not written yet; finished records are kept in {report.path.name}.partial")
    return [redact(line) or "" for line in lines]


def _exit_code(report: RunReport) -> int:
    if report.stop is not None and report.stop.kind == "refused":
        return LLM_REFUSED
    if report.stop is not None or not report.complete:
        return LLM_UNAVAILABLE
    return OK


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    set_output(quiet=args.quiet, verbose=False)
    if args.sample_size is not None and args.sample_size < 1:
        parser.error("--sample-size must be at least 1")
    if args.concurrency < 1:
        parser.error("--concurrency must be at least 1")
    if args.processes < 1:
        parser.error("--processes must be at least 1")
    try:
        settings = _settings(args)
    except ValueError as exc:
        parser.error(f"--openrouter-extra-body must be a JSON object: {exc}")
    options = RunOptions(
        model_id=args.model_id,
        settings=settings,
        output_root=args.output_root,
        sample_size=args.sample_size,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        concurrency=args.concurrency,
        processes=args.processes,
        rpm=args.rpm,
        max_attempts=args.max_attempts,
        retry_failed=args.retry_failed,
    )
    progress = (lambda _: None) if args.quiet else (lambda text: print(f"\r{text}", end="", file=sys.stderr))
    try:
        with Store.open(args.workspace) as store:
            backend_factory = functools.partial(make_run_backend, settings, args.model_id)  # it pickles: --processes
            report = run_inference(args.release, options, store, backend_factory, progress)
    except (ScoringInputError, OSError, WorkspaceBusyError, LLMError) as exc:
        print(f"error: {redact(str(exc))}", file=sys.stderr)
        return USAGE
    if not args.quiet and report.answered:
        print(file=sys.stderr)
    for line in report.usage:
        print(line)
    stream = sys.stdout if report.complete else sys.stderr
    for line in _summary(report):
        print(line, file=stream)
    return _exit_code(report)
