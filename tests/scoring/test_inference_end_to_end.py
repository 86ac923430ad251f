"""The whole loop on the HotpotQA sample, as a curator runs it: a release, two models run on it through the real SDKs
against the Gemini and OpenAI stand-ins, scored by `python -m scoring`, ranked by `python -m scoring.leaderboard`.
The response files are what SOB's `python -m sob.run` writes (each line equals SOB's `build_eval_record`, so SOB's
evaluate.py reads them as it reads its own), and running the models again makes no call."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

from tests.scoring.inference_support import SECRET, base_url, nulls_answer, sob_reference, stand_in

ROOT = Path(__file__).resolve().parents[2]
SOB_NAMES = ROOT / "tests/data/sob_repo/data/evaluation/display_names.json"


def run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", *command], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(command)}\n{done.stdout[-1500:]}\n{done.stderr[-1500:]}"
    return done


def test_release_run_two_models_score_and_rank(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI_", "GOOGLE_", "OPENAI_", "ANTHROPIC_"))}
    env |= {"PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    run(["build_split", "--source", "hotpotqa", "--sample", "--release", "0.1.0", "--allow-unreviewed"], tmp_path, env)
    env |= {"GEMINI_API_KEY": SECRET, "OPENAI_API_KEY": SECRET}  # the models' keys (the release needed none)
    release = tmp_path / "workspace/releases/default/0.1.0"
    gemini, openai = stand_in("gemini"), stand_in("openai")
    gemini.answer = nulls_answer
    openai.answer = lambda req: "{}"
    try:
        for provider, server, model in (("gemini", gemini, "gemini-2.5-flash"), ("openai", openai, "gpt-4.1")):
            args = ["scoring.run", "--release", str(release), "--provider", provider, "--model-id", model]
            args += ["--base-url", base_url(provider, server), "--output-root", "runs", "--quiet"]
            run(args, tmp_path, env)
            calls = server.total_model_calls
            assert calls > 0
            run(args, tmp_path, env)  # again: nothing asked
            assert server.total_model_calls == calls
    finally:
        gemini.close()
        openai.close()
    files = sorted((tmp_path / "runs/text_responses").glob("*.jsonl"))
    assert [f.name for f in files] == ["response_gemini-2.5-flash.jsonl", "response_gpt-4.1.jsonl"]
    # Each line is the line SOB's own code builds for the same release row and reply.
    rows = {}
    for part in sorted((release / "data").glob("*.parquet")):
        for row in pq.read_table(part).to_pylist():
            rows[row["record_id"]] = row
    for file in files:
        lines = [json.loads(x) for x in file.read_text().splitlines()]
        assert len(lines) == len(rows)
        calls = [
            {
                "record": rows[line["metadata"]["record_id"]],
                "candidate": line["output"]["candidate_response"],
                "model_id": line["metadata"]["model_id"],
                "modality": "text",
                "input_tokens": line["eval_info"]["input_tokens"],
                "output_tokens": line["eval_info"]["output_tokens"],
                "avg_time": line["eval_info"]["avg_time_per_record"],
            }
            for line in lines
        ]
        assert lines == sob_reference([], calls)["lines"]
    run(["scoring", "--responses", "runs/text_responses", "--output-root", "evaluation", "--quiet"], tmp_path, env)
    assert sorted(p.name for p in (tmp_path / "evaluation/text").iterdir()) == ["gemini-2.5-flash", "gpt-4.1"]
    # SOB's display names (its folder for GPT-4.1 is openai-gpt-4.1, so gpt-4.1 keeps its folder's name)
    shutil.copy(SOB_NAMES, tmp_path / "evaluation/display_names.json")
    done = run(
        ["scoring.leaderboard", "evaluation", "--output", "leaderboard.json", "--markdown", "leaderboard.md"],
        tmp_path,
        env,
    )
    board = json.loads((tmp_path / "leaderboard.json").read_text())
    assert {row["model"] for row in board["rows"]} == {"Gemini-2.5-Flash", "gpt-4.1"}
    assert board["weights"]["text"]["W_from"].startswith("sum of difficulty_weight")
    assert all(row["modalities"] == ["text"] for row in board["rows"]) and "W_text" in done.stdout
