"""A reader never kills or blocks a writer: `--status` from another terminal during a run waits for the run to
let go between its writes, prints, and the run goes on to the same end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from core.store import Store

REPO = Path(__file__).resolve().parents[2]
COPIES = 200  # of the 20 HotpotQA rows: 4,000 items, a run of several seconds with many write batches


def big_inputs(test_data: Path, folder: Path) -> tuple[Path, Path]:
    rows = json.loads((test_data / "hotpotqa" / "hotpot_dev_distractor_v1.sample.json").read_text())
    items, lines = [], []
    for copy in range(COPIES):
        for row in rows:
            item = dict(row, _id=f"{row['_id']}-{copy}", question=f"{row['question']} (copy {copy})")
            items.append(item)
            title, sentences = item["context"][0]
            schema = {
                "type": "object",
                "properties": {
                    "title": {"type": "string", "description": "first paragraph"},
                    "first_sentence": {"type": "string", "description": "its first sentence"},
                },
                "required": ["title", "first_sentence"],
            }
            truth = {"title": title, "first_sentence": sentences[0]}
            lines.append(
                json.dumps(
                    {
                        "source_id": item["_id"],
                        "question": item["question"],
                        "json_schema": schema,
                        "ground_truth": truth,
                        "annotator": "t",
                    }
                )
            )
    source, authored = folder / "hotpot.json", folder / "authored.jsonl"
    source.write_text(json.dumps(items))
    authored.write_text("\n".join(lines) + "\n")
    return source, authored


def build_split(ws: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "SOB_WORKERS": "0", "SOB_WORKSPACE_WAIT": "120"}
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "LABEL_STUDIO_URL", "LABEL_STUDIO_API_KEY"):
        env.pop(name, None)
    return subprocess.Popen(
        [sys.executable, "-m", "build_split", "--source", "hotpotqa", "--workspace", str(ws), *args],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_status_from_another_terminal_during_a_run(tmp_path: Path, test_data: Path) -> None:
    source, authored = big_inputs(test_data, tmp_path)
    ws = tmp_path / "ws"
    run = build_split(
        ws, "--input", str(source), "--authored", str(authored), "--judge", "heuristic", "--threshold", "0"
    )
    statuses: list[subprocess.CompletedProcess[str]] = []
    while run.poll() is None:
        if not (ws / "curation.duckdb").exists():
            time.sleep(0.2)
            continue
        status = build_split(ws, "--status")
        out, err = status.communicate(timeout=150)
        statuses.append(subprocess.CompletedProcess(status.args, status.returncode, out, err))
    out, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    assert statuses, "the run ended before any --status could be tried"
    for status in statuses:
        assert status.returncode == 0, status.stderr
        assert "records by state:" in status.stdout
    with Store.open(ws) as store:
        final = store.state_counts("hotpotqa")
        assert sum(final.values()) == 4000
        # Every record went through validation exactly once: nothing was lost or repeated around the hand-overs.
        validated = store.con.execute("SELECT count(*) FROM events WHERE stage = 'validation'").fetchone()[0]
    assert validated == 4000
    # At least one --status ran in the middle of the run: it saw records on their way, not the end state.
    seen = [next(line for line in s.stdout.splitlines() if line.startswith("records by state:")) for s in statuses]
    end = "records by state: " + ", ".join(f"{k} {v}" for k, v in final.items() if v)
    assert any(line not in (end, "records by state: none yet") for line in seen), seen
