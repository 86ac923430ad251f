"""`python -m scoring.leaderboard EVAL_DIR --output leaderboard.json`: SOB's leaderboard (thin over build.py)."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from core.redaction import redact
from exports.hub import TARGET_HELP, HubUnavailableError, PublishError
from exports.hub_files import publish_files
from scoring.help_format import examples_formatter
from scoring.leaderboard.build import (
    DISPLAY_NAMES_FILE,
    MODALITIES,
    LeaderboardError,
    build_leaderboard,
    load_display_names,
)
from scoring.leaderboard.render import markdown, plot

USAGE, NETWORK = 2, 5  # the exit codes of `python -m build_split` for the same outcomes
HUB_FOLDER = "leaderboard"

EXAMPLES = """examples:
  python -m scoring.leaderboard evaluation --output leaderboard.json --markdown leaderboard.md --plot leaderboard.png
  python -m scoring.leaderboard evaluation --output leaderboard.json --push ./hub-preview
"""


def _weight(text: str) -> tuple[str, float]:
    modality, _, value = text.partition("=")
    if modality not in MODALITIES or not value:
        raise argparse.ArgumentTypeError(f"expected MODALITY=W with MODALITY one of {', '.join(MODALITIES)}")
    try:
        weight = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number") from None
    if weight <= 0:
        raise argparse.ArgumentTypeError(f"a weight must be above 0, got {value}")
    return modality, weight


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m scoring.leaderboard",
        description="Rank models as SOB's scripts/build_leaderboard.py does, from EVAL_DIR/<text|image|audio>/"
        "<model>/eval_summary.json (what `python -m scoring --output-root EVAL_DIR` writes, or SOB's own "
        "data/evaluation): each metric's schema-complexity-weighted mean per modality, combined with each "
        "source's total schema-complexity weight W_u (the sum of difficulty_weight over its records); Perfect "
        "Response over text and image; Overall adjusted by coverage. Names from EVAL_DIR/display_names.json.",
        epilog=EXAMPLES,
        formatter_class=examples_formatter(EXAMPLES),
    )
    parser.add_argument("eval_dir", type=Path, metavar="EVAL_DIR", help="the folder of evaluation summaries")
    parser.add_argument(
        "--output", type=Path, default=Path("leaderboard.json"), help="the leaderboard JSON (leaderboard.json)"
    )
    parser.add_argument("--markdown", type=Path, metavar="FILE", help="also write the table as Markdown")
    parser.add_argument("--plot", type=Path, metavar="FILE", help="also plot each model's Overall (PNG)")
    parser.add_argument(
        "--display-names",
        type=Path,
        metavar="FILE",
        help=f"folder name -> model name (default: EVAL_DIR/{DISPLAY_NAMES_FILE}; a folder without one keeps its name)",
    )
    parser.add_argument(
        "--weight",
        type=_weight,
        action="append",
        default=[],
        metavar="MODALITY=W",
        help="use this W_u for a modality instead of the one read from its eval_records.jsonl (repeatable)",
    )
    parser.add_argument(
        "--push",
        metavar="TARGET",
        help=f"publish leaderboard.json, .md and .png under {HUB_FOLDER}/ of a release's repo; {TARGET_HELP}",
    )
    parser.add_argument("--dry-run", action="store_true", help="with --push: say what would change, change nothing")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        names = load_display_names(args.display_names) if args.display_names else None
        if args.display_names and not args.display_names.is_file():
            raise LeaderboardError(f"--display-names {args.display_names} does not exist")
        board = build_leaderboard(args.eval_dir, names, dict(args.weight))
        payload = board.payload(datetime.now(UTC).isoformat(timespec="seconds"))
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        table = markdown(board)
        if args.markdown:
            args.markdown.parent.mkdir(parents=True, exist_ok=True)
            args.markdown.write_text(table, encoding="utf-8")
        if args.plot:
            plot(board, args.plot)
        print(f"wrote {len(board.rows)} row(s) -> {args.output}")
        if board.skipped:
            print(f"  (skipped {len(board.skipped)} folder(s) with no metrics: {', '.join(board.skipped)})")
        for name, weight in board.weights.items():
            print(f"  W_{name} = {weight.weight:g} ({weight.weight_from}); N_{name} = {weight.records}")
        print()
        print(table.split("\n\n")[0])
        if args.push:
            _push(args, payload, table, board)
    except (LeaderboardError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USAGE
    except HubUnavailableError as exc:
        print(f"error: {redact(str(exc))}", file=sys.stderr)
        return NETWORK
    except (PublishError, ValueError) as exc:
        print(f"error: {redact(str(exc))}", file=sys.stderr)
        return USAGE
    return 0


def _push(args: argparse.Namespace, payload: dict, table: str, board) -> None:
    # The published JSON leaves out `generated_at`, so the same leaderboard publishes as no change.
    stable = {key: value for key, value in payload.items() if key != "generated_at"}
    files = {
        f"{HUB_FOLDER}/leaderboard.json": (json.dumps(stable, indent=2) + "\n").encode(),
        f"{HUB_FOLDER}/leaderboard.md": table.encode(),
    }
    with tempfile.TemporaryDirectory(prefix="sob-leaderboard-") as tmp:
        image = Path(tmp) / "leaderboard.png"
        plot(board, image)
        files[f"{HUB_FOLDER}/leaderboard.png"] = image.read_bytes()
    names = ", ".join(row["model"] for row in payload["rows"])
    publish_files(files, args.push, message=f"Leaderboard: {names}", dry_run=args.dry_run)
