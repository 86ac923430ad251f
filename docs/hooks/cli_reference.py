"""MkDocs hook: fill docs/cli.md with each CLI's `--help`, rendered from its argparse parser at build time.

A page marker `<!-- cli: MODULE -->` becomes the output of MODULE's `build_parser().format_help()` in a code
block, so the reference is what the installed code says and can never go stale.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MARKER = re.compile(r"^<!-- cli: ([\w.]+) -->$", re.M)
WIDTH = "80"  # argparse wraps help to $COLUMNS: a fixed width makes the page the same on every machine


def cli_help(module: str) -> str:
    """What `python -m MODULE --help` prints, at a fixed width."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    parser = importlib.import_module(module).build_parser()
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        return parser.format_help()
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    return MARKER.sub(lambda match: "```text\n" + cli_help(match.group(1)).rstrip() + "\n```", markdown)
