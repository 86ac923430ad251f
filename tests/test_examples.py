"""Every example command works as written: those in `--help` of the three CLIs and in the bash blocks of the README
and of each page of the documentation site (docs/*.md).

The commands of each document (each `--help`, the README, each docs page) run in the order a reader meets them, by
bash, in a folder of their own that stands for a user's checkout: the files the examples name
(`hotpot_dev_distractor_v1.json`, `bench_data`, `cases.jsonl`, `DIR`, ...) are the repository's samples put there
under those names, `python` is this virtualenv's, and nothing reaches the network: `GEMINI_API_KEY=...` examples
talk to the local Gemini stand-in and `HF_TOKEN=...` ones to the local Hub stand-in.
`EXAMPLES` says, for every command, that it runs or why it is skipped; a new or changed example without an entry
fails the first test, so none is left out silently.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

from tests.ci import missing as missing_part
from tests.exports.hub_fake import FakeHub
from tests.llm.fakes import FakeGemini

ROOT = Path(__file__).resolve().parents[1]
CLIS = ("build_split", "scoring", "scoring.run", "scoring.leaderboard", "judge.calibrate")
RUN = None  # an example that runs

SKIP_INSTALL = "installs the toolkit itself (creates .venv, apt, Label Studio): CI's .ci/run runs it on a clean machine"
SKIP_BENCH = "a speed benchmark (minutes, 25,000 records): figures are measured by hand, not in tests"
SKIP_GPU = "needs a CUDA GPU and the olmOCR model weights"
SKIP_HUB_DOWNLOAD = "downloads a source data set from the Hugging Face Hub: no local stand-in serves data set files"
SKIP_LABEL_STUDIO = "starts a Label Studio server: covered by tests/authoring/test_labelstudio_cli.py"
SKIP_TEAM_HOST = (
    "sets up a team's host (apt-get, the system's PostgreSQL cluster, a role with a password): the script was run "
    "by hand; the tests start a PostgreSQL of their own (tests/postgres.py)"
)
SKIP_TEAM_SERVER = (
    "runs a team's server or service until stopped: tests/authoring/test_team_labelstudio.py runs --serve against "
    "a Label Studio on PostgreSQL (one process, and two: tests/authoring/test_server_workers.py), "
    "tests/authoring/test_database_url.py checks --database"
)
SKIP_ACTIVATE = "activates the virtualenv `make demo` creates: the examples here run with that virtualenv's python"
SKIP_OWN_SOURCE = (
    "installs a package: test_the_source_package_example_runs_as_written runs these commands, as written, in a "
    "throwaway virtualenv (the shared one is never changed)"
)
SKIP_VLLM = (
    "needs a vLLM server with the model's weights (tests/scoring run --provider vllm on an OpenAI-compatible stand-in)"
)
SKIP_DRAFT_KEY = (
    "asks the draft model with the key of the reader's environment (GEMINI_API_KEY); without one it stops with "
    "`error: cannot start the Gemini client ... Set GEMINI_API_KEY` (tests/scoring cover --ambiguity on a stand-in)"
)
SKIP_LOCAL_LLM = (
    "needs the reader's local OpenAI-compatible server on 127.0.0.1:8000: tests/llm/test_offline_llm_recipe.py runs "
    "the command as written against the toolkit's own stand-in (python -m tests.llm.fakes openai)"
)

# Every example, in reading order: RUN or the reason it is skipped.
EXAMPLES: dict[str, str | None] = {
    # python -m build_split --help
    "python -m build_split --source hotpotqa --sample --release 0.1.0 --allow-unreviewed": RUN,
    "python -m build_split --source hotpotqa --input hotpot_dev_distractor_v1.json --limit 500 --seed 1": RUN,
    "python -m build_split --source hotpotqa --authored curators.jsonl --release 0.2.0 --allow-unreviewed": RUN,
    "python -m build_split --source ami --sample --release 0.1.0 --allow-unreviewed": RUN,
    "python -m build_split --source olmocr --input bench_data --category tables --ocr-server cpu": RUN,
    "python -m build_split --source documents --sample --release 0.1.0 --allow-unreviewed": RUN,
    "python -m build_split --source documents --input my_documents --config invoices --ocr-server cpu": RUN,
    "python -m build_split --source hotpotqa --status": RUN,
    "python -m build_split --source hotpotqa --release 0.2.0 --allow-unreviewed --push ./hub-preview": RUN,
    "HF_TOKEN=... python -m build_split --source hotpotqa --release 0.2.0 --allow-unreviewed "
    "--push owner/sob-structured --dry-run": RUN,
    "python -m build_split --source hotpotqa --sample --start-label-studio --serve": SKIP_LABEL_STUDIO,
    "python -m build_split --source hotpotqa --authored curators.jsonl --overwrite": RUN,
    "python -m build_split --source hotpotqa --sample --start-label-studio --serve --overlap 2": SKIP_LABEL_STUDIO,
    "python -m build_split --source hotpotqa --sample --start-label-studio --serve --overlap 2 --blind-second": (
        SKIP_LABEL_STUDIO
    ),
    "python -m build_split --source hotpotqa --diff 0.1.0 0.2.0": RUN,
    "python -m build_split --version": RUN,
    "python -m build_split init --title 'Invoices in JSON' --license cc-by-4.0 --source documents --sample": RUN,
    "python -m build_split --release 0.1.0 --allow-unreviewed": RUN,
    # python -m judge.calibrate --help
    "python -m judge.calibrate --cases tests/data/calibration/cases.jsonl --judge heuristic": RUN,
    "python -m judge.calibrate --cases tests/data/calibration/hotpotqa.jsonl --cases tests/data/calibration/ami.jsonl "
    "--cases tests/data/calibration/olmocr.jsonl --source hotpotqa "
    "--input tests/data/hotpotqa/hotpot_dev_distractor_v1.sample.json --judge heuristic --split test": RUN,
    "python -m judge.calibrate --cases cases.jsonl --judge heuristic --threshold 70 --show wrong-released": RUN,
    "GEMINI_API_KEY=... python -m judge.calibrate --cases cases.jsonl --source hotpotqa "
    "--input hotpot_dev_distractor_v1.json --judge gemini --prefilter --output calibration.json": RUN,
    # README.md and docs/*.md
    "make demo": SKIP_INSTALL,
    "make test": SKIP_INSTALL,
    "source .venv/bin/activate": SKIP_ACTIVATE,
    "python -m build_split --source hotpotqa --release 0.2.0 --push ./hub-preview": RUN,
    "bash scripts/install_label_studio.sh": SKIP_INSTALL,
    ".venv/bin/pip install -e '.[image]'": SKIP_INSTALL,
    "pip install -e ./examples/my_recipes": SKIP_OWN_SOURCE,
    "python -m build_split --source recipes --sample --release 0.1.0 --allow-unreviewed": SKIP_OWN_SOURCE,
    "python -m build_split --source olmocr --sample --release 0.1.0 --allow-unreviewed --with-page-images": RUN,
    "python -m judge.calibrate --cases tests/data/calibration8/hotpotqa.jsonl "
    "--cases tests/data/calibration8/ami.jsonl --cases tests/data/calibration8/olmocr.jsonl --source hotpotqa "
    "--input tests/data/hotpotqa/hotpot_dev_distractor_v1.sample.json --judge heuristic": RUN,
    "python -m build_split --source hotpotqa --sample --start-label-studio --keep-label-studio": SKIP_LABEL_STUDIO,
    "python -m build_split --source hotpotqa --authored fix.jsonl --overwrite": RUN,
    "python -m build_split --source hotpotqa --history 873587fbddd8": RUN,
    "python -m build_split --source olmocr --sample --release 0.1.0 --allow-unreviewed": RUN,
    "GEMINI_API_KEY=... python -m build_split --source hotpotqa --prefilter --release 0.2.0": RUN,
    "python -m build_split --source ami --from-hub --max-context-tokens 8000": SKIP_HUB_DOWNLOAD,
    "python -m build_split --source hotpotqa --rejections": RUN,
    "python -m build_split --source olmocr --input bench_data --mix sob --ocr-server cpu --start-label-studio "
    "--keep-label-studio": SKIP_LABEL_STUDIO,
    "python -m build_split --source olmocr --from-hub --category-quota headers_footers=67,tables=33 --limit 50 "
    "--seed 1": SKIP_HUB_DOWNLOAD,
    "pip install 'olmocr[gpu]'": SKIP_GPU,
    "vllm serve allenai/olmOCR-2-7B-1025-FP8 --served-model-name olmocr --max-model-len 16384 "
    "--limit-mm-per-prompt '{\"video\": 0}' --port 8000": SKIP_GPU,
    "python -m build_split --source olmocr --input bench_data --mix sob --ocr-server http://GPU-HOST:8000/v1": SKIP_GPU,
    "python -m judge.calibrate --cases tests/data/calibration/cases.jsonl --judge heuristic --show wrong-released "
    "--output calibration.json": RUN,
    "python -m build_split --source hotpotqa --sample --release 0.3.0 --allow-unreviewed "
    "--calibration calibration.json": RUN,
    "python -m scoring --responses tests/data/sob_eval/images_responses --output-root evaluation": RUN,
    "python -m scoring --release workspace/releases/default/0.1.0 --predictions gpt-4o.jsonl "
    "--predictions gemini.jsonl": RUN,
    "python -m scoring --release DIR --predictions preds/ --output-root evaluation": RUN,
    "python -m scoring --release DIR --predictions a.jsonl --predictions b.jsonl --predictions c.jsonl --suspects "
    "--workspace workspace": RUN,
    "python -m scoring --release DIR --curation --workspace workspace": RUN,
    "python -m scoring --ambiguity --workspace workspace --source hotpotqa --sample-drafts 3": SKIP_DRAFT_KEY,
    # python -m scoring.run --help, python -m scoring.leaderboard --help, docs/running-models.md
    "GEMINI_API_KEY=... python -m scoring.run --release workspace/releases/default/0.1.0 --provider gemini "
    "--model-id gemini-2.5-flash --output-root runs": RUN,
    "python -m scoring.run --release DIR --provider vllm --model-id Qwen/Qwen3-8B "
    "--base-url http://localhost:8000/v1 --sample-size 5": SKIP_VLLM,
    "vllm serve Qwen/Qwen3-8B --port 8000": SKIP_VLLM,
    "python -m scoring.run --release workspace/releases/default/0.1.0 --provider vllm --model-id Qwen/Qwen3-8B "
    "--base-url http://localhost:8000/v1 --output-root runs": SKIP_VLLM,
    "python -m scoring --responses runs/text_responses --output-root evaluation": RUN,
    "python -m scoring.leaderboard evaluation --output leaderboard.json --markdown leaderboard.md "
    "--plot leaderboard.png": RUN,
    "python -m scoring.leaderboard evaluation --output leaderboard.json --push ./hub-preview": RUN,
    ".venv/bin/python benchmarks/bench_inference.py --records 1000 --latency 0.1 --concurrency 20": SKIP_BENCH,
    ".venv/bin/python benchmarks/bench_text_pipeline.py --records 25000": SKIP_BENCH,
    ".venv/bin/python benchmarks/bench_ami.py": SKIP_BENCH,
    ".venv/bin/python benchmarks/bench_ocr.py --ocr-server cpu": SKIP_BENCH,
    ".venv/bin/python benchmarks/bench_llm_judge.py": SKIP_BENCH,
    ".venv/bin/python benchmarks/bench_llm_outage.py": SKIP_BENCH,
    ".venv/bin/python benchmarks/bench_labelstudio.py": SKIP_BENCH,
    ".venv/bin/python benchmarks/bench_team_labelstudio.py": SKIP_BENCH,
    ".venv/bin/python benchmarks/bench_release.py": SKIP_BENCH,
    ".venv/bin/python benchmarks/bench_scoring.py": SKIP_BENCH,
    # docs/team-label-studio.md
    "export 'LABEL_STUDIO_DATABASE_PASSWORD=a long random password'": SKIP_TEAM_HOST,
    "sudo --preserve-env=LABEL_STUDIO_DATABASE_PASSWORD bash scripts/install_postgresql.sh label_studio label_studio": (
        SKIP_TEAM_HOST
    ),
    "python -m authoring.server --workspace workspace --host 0.0.0.0 --port 8080 --workers 2 "
    "--database postgresql://label_studio@127.0.0.1:5432/label_studio": SKIP_TEAM_SERVER,
    "export LABEL_STUDIO_URL=http://127.0.0.1:8080 LABEL_STUDIO_API_KEY=ADMIN_TOKEN": SKIP_TEAM_SERVER,
    "python -m build_split --source hotpotqa --sample --serve": SKIP_TEAM_SERVER,
    ".venv/bin/python benchmarks/bench_team_labelstudio.py --curators 10 --minutes 10 --database postgresql": (
        SKIP_BENCH
    ),
    "OPENAI_API_KEY=local python -m build_split --source hotpotqa --sample --judge openai --judge-model local-model "
    "--llm-base-url http://127.0.0.1:8000/v1 --workspace llm-trial --release 0.1.0": SKIP_LOCAL_LLM,
}


def _commands(text: str) -> list[str]:
    """Shell commands of a block: `\\` continuations joined, comments and blank lines dropped, spaces collapsed."""
    commands = []
    for line in re.sub(r"\\\n", " ", text).splitlines():
        words = shlex.split(line, comments=True)
        if words:
            commands.append(" ".join(_requote(word) for word in words))
    return commands


def _requote(word: str) -> str:
    """A word as the example spells it (quoted again only where bash needs it)."""
    return word if re.fullmatch(r"[\w@%+=:,./*-]+", word) else shlex.quote(word)


def help_examples(module: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-m", module, "--help"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    _, found, examples = out.partition("\nexamples:\n")
    return _commands(examples) if found else []


def page_examples(path: Path) -> list[str]:
    """The commands of a Markdown page's bash blocks (indented blocks inside list items too)."""
    text = path.read_text(encoding="utf-8")
    return [cmd for block in re.findall(r"```(?:bash|sh)\n(.*?)```", text, re.S) for cmd in _commands(block)]


def doc_pages() -> list[Path]:
    """The pages of the documentation site."""
    return sorted((ROOT / "docs").glob("**/*.md"))


def documents() -> dict[str, list[str]]:
    """Each document's example commands, in reading order."""
    helps = {f"python -m {module} --help": help_examples(module) for module in CLIS}
    pages = {path.relative_to(ROOT).as_posix(): page_examples(path) for path in [ROOT / "README.md", *doc_pages()]}
    return helps | {name: commands for name, commands in pages.items() if commands}


def all_examples() -> list[str]:
    return list(dict.fromkeys(cmd for commands in documents().values() for cmd in commands))


def test_every_example_is_planned():
    found = all_examples()
    unplanned = [cmd for cmd in found if cmd not in EXAMPLES]
    stale = [cmd for cmd in EXAMPLES if cmd not in found]
    assert not unplanned, "examples with no entry in EXAMPLES (run or skip, with a reason):\n" + "\n".join(unplanned)
    assert not stale, "entries in EXAMPLES that no --help, README or docs page shows any more:\n" + "\n".join(stale)
    assert all(help_examples(module) for module in CLIS), "every CLI's --help shows examples"


def _predictions(release: Path, path: Path) -> None:
    """A model's predictions over a release: its ground truth as the response (a perfect model)."""
    rows = []
    for data in sorted((release / "data").glob("*.parquet")):
        for row in pq.read_table(data, columns=["record_id", "ground_truth"]).to_pylist():
            rows.append(json.dumps({"record_id": row["record_id"], "response": json.loads(row["ground_truth"])}))
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")


def _user_folder(home: Path) -> None:
    """The files the examples name, made from the repository's samples."""
    hotpotqa_sample = ROOT / "tests/data/hotpotqa/hotpot_dev_distractor_v1.sample.json"
    shutil.copy(hotpotqa_sample, home / "hotpot_dev_distractor_v1.json")
    shutil.copy(ROOT / "loaders/samples/hotpotqa/authored.jsonl", home / "curators.jsonl")
    shutil.copy(ROOT / "loaders/samples/hotpotqa/authored.jsonl", home / "fix.jsonl")
    shutil.copytree(ROOT / "loaders/samples/olmocr/bench_data", home / "bench_data")
    # A curator's own documents: the documents sample's text files and one of the olmOCR sample's PDFs.
    shutil.copytree(ROOT / "loaders/samples/documents/documents", home / "my_documents")
    shutil.copy(ROOT / "loaders/samples/olmocr/bench_data/pdfs/tables/harbour_ferries.pdf", home / "my_documents")
    shutil.copy(ROOT / "tests/data/calibration/cases.jsonl", home / "cases.jsonl")
    (home / "tests").mkdir()
    for name in ("calibration", "calibration8", "hotpotqa", "sob_eval"):
        (home / "tests" / "data").mkdir(exist_ok=True)
        (home / "tests" / "data" / name).symlink_to(ROOT / "tests" / "data" / name)


FIRST_RELEASE = "python -m build_split --source hotpotqa --sample --release 0.1.0 --allow-unreviewed"
# Commands that read a workspace: a page shows them once the reader has built one (the README's first release).
READS_A_WORKSPACE = ("--status", "--rejections", "--history", "--diff")


def _before(command: str, home: Path, run) -> None:
    """What the reader has by the time they reach `command`: a release to score (the README's first one), and the
    predictions of the models the example names."""
    release = home / "workspace/releases/default/0.1.0"
    reads_workspace = any(f"{flag} " in f"{command} " for flag in READS_A_WORKSPACE)
    if ("workspace/releases" in command or " DIR " in command or reads_workspace) and not release.exists():
        run(FIRST_RELEASE)
    if command.startswith("python -m scoring.leaderboard evaluation") and not (home / "evaluation").exists():
        run("python -m scoring --responses tests/data/sob_eval/images_responses --output-root evaluation")
    if "--predictions" in command and not (home / "DIR").exists():
        (home / "DIR").symlink_to(release)
        (home / "preds").mkdir()
        for name in ("gpt-4o.jsonl", "gemini.jsonl", "a.jsonl", "b.jsonl", "c.jsonl", "preds/model-x.jsonl"):
            _predictions(release, home / name)


def _require_ocr_tools() -> None:
    """The olmOCR examples OCR on the CPU: without Tesseract, poppler and olmocr the run is skipped here and
    fails in CI."""
    absent = [tool for tool in ("tesseract", "pdftoppm") if shutil.which(tool) is None]
    if importlib.util.find_spec("olmocr") is None:
        absent.append("olmocr (pip install -e '.[image]')")
    if absent:
        missing_part(f"the olmOCR examples need {', '.join(absent)} (apt-get install -y poppler-utils tesseract-ocr)")


def test_every_runnable_example_runs_as_written(tmp_path):
    _require_ocr_tools()
    gemini, hub = FakeGemini(), FakeHub(token="...")  # the examples' `GEMINI_API_KEY=...`, `HF_TOKEN=...`
    hub.start()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("GEMINI_", "GOOGLE_", "OPENAI_", "HF_", "LABEL_STUDIO_"))
    }
    env |= {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        "PYTHONPATH": str(ROOT),
        "HF_HOME": str(tmp_path / "hf-home"),
        "HF_DATASETS_OFFLINE": "1",
        "HF_ENDPOINT": hub.endpoint,
        "HF_HUB_DISABLE_XET": "1",
        "GOOGLE_GEMINI_BASE_URL": gemini.url,
        "MPLBACKEND": "Agg",
    }
    failures, ran = [], 0
    try:
        for number, (document, commands) in enumerate(documents().items()):
            home = tmp_path / f"checkout-{number}"
            home.mkdir()
            _user_folder(home)

            def run(command: str, home: Path = home, document: str = document) -> None:
                done = subprocess.run(
                    ["bash", "-c", command], cwd=home, env=env, capture_output=True, text=True, timeout=600
                )
                if done.returncode != 0:
                    failures.append(f"{document}: $ {command}\nexit {done.returncode}\n{done.stderr[-1500:]}")

            for command in commands:
                if EXAMPLES[command] is RUN:
                    _before(command, home, run)
                    run(command)
                    ran += 1
    finally:
        gemini.close()
        hub.stop()
    assert not failures, "\n\n".join(failures)
    assert ran >= sum(skip is RUN for skip in EXAMPLES.values())
    assert gemini.model_calls, "the GEMINI_API_KEY=... examples reached the local Gemini stand-in"
    assert hub.requests, "the HF_TOKEN=... example reached the local Hub stand-in"


def test_the_source_package_example_runs_as_written(tmp_path):
    """docs/sources-own.md's package: the page's code is the shipped examples/my_recipes, and the page's commands
    install it and build a release with it. They run in a throwaway virtualenv that sees the toolkit's packages
    (a .pth file), so `pip install -e` changes nothing shared."""
    page = (ROOT / "docs" / "sources-own.md").read_text(encoding="utf-8")
    [code] = re.findall(r"```python\n(# my_recipes/__init__.py\n.*?)```", page, re.S)
    assert (ROOT / "examples/my_recipes/my_recipes/__init__.py").read_text(encoding="utf-8") == code
    commands = [cmd for cmd in page_examples(ROOT / "docs" / "sources-own.md") if EXAMPLES[cmd] == SKIP_OWN_SOURCE]
    assert [c.split()[0] for c in commands] == ["pip", "python"], commands

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    [site] = list((venv / "lib").glob("python*/site-packages"))
    toolkit_site = Path(importlib.util.find_spec("duckdb").origin).parent.parent  # the toolkit's own venv
    (site / "toolkit.pth").write_text(f"{toolkit_site}\n{ROOT}\n", encoding="utf-8")
    home = tmp_path / "checkout"
    shutil.copytree(ROOT / "examples", home / "examples")
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env |= {"PATH": f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    for command in commands:
        done = subprocess.run(["bash", "-c", command], cwd=home, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"$ {command}\n{done.stdout[-1500:]}\n{done.stderr[-1500:]}"
    assert (home / "workspace/releases/recipes/0.1.0/manifest.json").is_file()
