"""Shared by the tests of `python -m scoring.run`: the providers' local stand-ins, a clean environment, and SOB's
own inference code (tests/data/sob_repo, MIT) run in a subprocess to say what SOB would send and write."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.llm.fake_anthropic import FakeAnthropic
from tests.llm.fakes import FakeGemini, FakeOpenAI, FakeServer, ModelRequest

SOB_REPO = Path(__file__).resolve().parents[1] / "data" / "sob_repo"
KEYS = {
    "gemini": "GEMINI_API_KEY",
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "vllm": "VLLM_API_KEY",
}
PROVIDER_ENV = (
    *KEYS.values(),
    "GOOGLE_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_AUTH_TOKEN",
    "GOOGLE_GEMINI_BASE_URL",
    "GOOGLE_GENAI_USE_VERTEXAI",
)
SECRET = "sk-test-not-real-5f1c"


def stand_in(provider: str) -> FakeServer:
    if provider == "gemini":
        return FakeGemini()
    if provider == "anthropic":
        return FakeAnthropic()
    return FakeOpenAI()


def base_url(provider: str, server: FakeServer) -> str:
    return server.url if provider in ("gemini", "anthropic") else f"{server.url}/v1"


def clean_env(monkeypatch: pytest.MonkeyPatch, provider: str | None = None) -> None:
    """No developer key reaches a test; the provider's key is a made-up one."""
    for name in PROVIDER_ENV:
        monkeypatch.delenv(name, raising=False)
    if provider is not None:
        monkeypatch.setenv(KEYS[provider], SECRET)


def nulls_answer(req: ModelRequest) -> str:
    """A model that answers null for every top-level property of the schema in the prompt."""
    schema_text = req.user.split("Respond with JSON matching this schema:\n", 1)[1]
    schema_text = schema_text.removesuffix("\n\nReturn ONLY the JSON object.\n\n")
    schema = json.loads(schema_text)
    return json.dumps(dict.fromkeys(schema.get("properties", {})))


def run_args(release: Path, provider: str, server: FakeServer, out: Path, workspace: Path, *extra: str) -> list[str]:
    return [
        "--release",
        str(release),
        "--provider",
        provider,
        "--model-id",
        "test-model",
        "--base-url",
        base_url(provider, server),
        "--output-root",
        str(out),
        "--workspace",
        str(workspace),
        "--quiet",
        *extra,
    ]


SOB_SCRIPT = r"""
import json, sys
from sob.common.prompts import SYSTEM_PROMPT, build_user_message
from sob.common.schema_utils import normalize_schema_strict, sanitize_schema_for_gemini, parse_if_string
from sob.common.serialization import build_eval_record

job = json.load(sys.stdin)
out = {"system": SYSTEM_PROMPT, "users": [], "gemini": [], "strict": [], "lines": []}
for row in job["rows"]:
    schema = parse_if_string(row["json_schema"])
    out["users"].append(build_user_message(row, schema=schema))
    out["gemini"].append(sanitize_schema_for_gemini(schema))
    out["strict"].append(normalize_schema_strict(schema))
for item in job["lines"]:
    out["lines"].append(build_eval_record(**item))
json.dump(out, sys.stdout)
"""


def sob_reference(rows: list[dict[str, Any]], lines: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """What SOB's own code gives for these release rows: its system prompt, user messages, Gemini and strict
    schemas, and `build_eval_record` for each of `lines` (its keyword arguments)."""
    done = subprocess.run(
        [sys.executable, "-B", "-c", SOB_SCRIPT],
        cwd=SOB_REPO,
        input=json.dumps({"rows": rows, "lines": lines or []}),
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
