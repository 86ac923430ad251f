"""The curator guide's way to try drafts and the LLM judge offline runs as written: the toolkit's own stand-in
(`python -m tests.llm.fakes openai`, started as the guide says) answers the guide's command through
`--llm-base-url`, and the sample's valid records are released as judged by that server."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "curator-guide.md"
DOCUMENTED_URL = "http://127.0.0.1:8000/v1"


def guide_command() -> str:
    """The guide's command that reaches a local OpenAI-compatible server (continuation lines joined)."""
    text = re.sub(r"\\\n\s*", "", GUIDE.read_text(encoding="utf-8"))
    (line,) = [line for line in text.splitlines() if "--llm-base-url" in line and line.startswith("OPENAI_API_KEY=")]
    return line


def test_the_guides_local_llm_command_runs_against_the_stand_in(tmp_path: Path) -> None:
    command = guide_command()
    assert DOCUMENTED_URL in command and "--judge openai" in command
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI_", "GOOGLE_", "OPENAI_"))}
    env |= {"PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    stand_in = subprocess.Popen(
        [sys.executable, "-m", "tests.llm.fakes", "openai"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert stand_in.stdout is not None
        url = stand_in.stdout.readline().strip()  # printed once it listens
        assert url.startswith("http://127.0.0.1:")
        words = shlex.split(command.replace(DOCUMENTED_URL, f"{url}/v1"))
        assignments = dict(word.split("=", 1) for word in words if re.match(r"^[A-Z_]+=", word))
        argv = [word for word in words if not re.match(r"^[A-Z_]+=", word)]
        assert argv[:3] == ["python", "-m", "build_split"]
        done = subprocess.run(
            [sys.executable, *argv[1:]],
            cwd=tmp_path,
            env=env | assignments,
            capture_output=True,
            text=True,
            timeout=600,
        )
    finally:
        assert stand_in.stdin is not None
        stand_in.stdin.close()  # the stand-in serves until its stdin closes
        stand_in.wait(timeout=30)
    assert done.returncode == 0, done.stderr[-2000:]
    assert re.search(r"judged:\s+accepted \d+", done.stdout), done.stdout
    manifest = json.loads(next((tmp_path / "llm-trial/releases").glob("*/0.1.0/manifest.json")).read_text("utf-8"))
    assert manifest["judge"]["name"] == "openai:local-model"  # the local server judged every released row
    assert manifest["review"]["status"] != "heuristic-only"
