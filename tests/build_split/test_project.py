"""The project file: `init` writes one, every command reads it, a flag overrides it, and two configs of the
documents source in one workspace are kept apart (their releases, cards and pushes)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from huggingface_hub import DatasetCard

from build_split.cli import main
from build_split.project import PROJECT_FILENAME, ProjectError, load_project
from loaders.sources.documents import SAMPLE_DIR

REPO = Path(__file__).resolve().parents[2]
CITATION = "@misc{fenwick_json,\n  title = {Fenwick records in JSON},\n  year = {2026}\n}"
# my own folder: three of the sample's documents under names of their own, so no source id is shared
MINE = {"a_invoice.txt": "invoice.txt", "b_letter.md": "letter.md", "c_minutes.md": "minutes.md"}
SAMPLE_NAMES = {p.name for p in (SAMPLE_DIR / "documents").iterdir()}


def released_rows(release: Path) -> list[dict]:
    return [row for file in sorted((release / "data").glob("*.parquet")) for row in pq.read_table(file).to_pylist()]


def card_problems(text: str) -> list[str]:
    """What no card a Hub visitor reads may hold: an empty link, a placeholder, an empty citation block."""
    problems = []
    if re.search(r"\(\s*\)", text):
        problems.append("an empty link ()")
    for placeholder in ("replace this paragraph", "(not published)", "<this-repo", "<your", "TODO"):
        if placeholder.lower() in text.lower():
            problems.append(f"placeholder {placeholder!r}")
    if re.search(r"```bibtex\s*```", text):
        problems.append("an empty citation block")
    return problems


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project made by `init` (title, licence, citation, the documents sample), plus a second config `mine`."""
    monkeypatch.chdir(tmp_path)
    code = main(
        ["init", "--title", "Fenwick records in JSON", "--license", "cc-by-4.0", "--citation", CITATION,
         "--source", "documents", "--sample"]
    )  # fmt: skip
    assert code == 0
    folder = tmp_path / "my_folder"
    folder.mkdir()
    for mine, sample in MINE.items():
        (folder / mine).write_text((SAMPLE_DIR / "documents" / sample).read_text(encoding="utf-8"), encoding="utf-8")
    renamed = {sample: mine for mine, sample in MINE.items()}
    with (tmp_path / "mine.jsonl").open("w", encoding="utf-8") as out:
        for line in (SAMPLE_DIR / "authored.jsonl").read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record["source_id"] in renamed:
                out.write(json.dumps(record | {"source_id": renamed[record["source_id"]]}) + "\n")
    with (tmp_path / PROJECT_FILENAME).open("a", encoding="utf-8") as out:
        out.write('\n[configs.mine]\nsource = "documents"\ninput = "my_folder"\n')
    return tmp_path


def test_two_configs_in_one_workspace_release_only_their_own_rows_with_cards_a_visitor_trusts(project: Path) -> None:
    assert main(["--config", "documents", "--release", "0.1.0", "--allow-unreviewed"]) == 0
    assert main(["--config", "mine", "--authored", "mine.jsonl", "--release", "0.1.0", "--allow-unreviewed"]) == 0

    sample_rows = released_rows(project / "workspace/releases/documents/0.1.0")
    mine_rows = released_rows(project / "workspace/releases/mine/0.1.0")
    assert sample_rows and mine_rows
    assert {row["source_id"] for row in sample_rows} <= SAMPLE_NAMES
    assert {row["source_id"] for row in mine_rows} <= set(MINE)  # not one of the sample's rows
    assert not {r["record_id"] for r in sample_rows} & {r["record_id"] for r in mine_rows}

    for config, rows, items in (("documents", sample_rows, len(SAMPLE_NAMES)), ("mine", mine_rows, len(MINE))):
        text = (project / f"workspace/releases/{config}/0.1.0/README.md").read_text(encoding="utf-8")
        card = DatasetCard(text)
        assert card.data.license == "cc-by-4.0" and card.data.pretty_name == "Fenwick records in JSON"
        assert card.data.language == ["en"]
        assert CITATION in text and "# Fenwick records in JSON" in text
        assert card_problems(text) == []
        assert f"{items} items were loaded" in text and f"· {len(rows)} records ·" in text
        assert "## An example record" in text and "## Limitations" in text
        assert "Pre-filter scores" in text and "![Judge scores" not in text  # the pre-filter's, labelled so

    # Both configs to one folder (the Hub's stand-in); the curator writes a paragraph in the README there.
    assert main(["--config", "documents", "--release", "0.1.0", "--push", "hub"]) == 0
    assert main(["--config", "mine", "--release", "0.1.0", "--push", "hub"]) == 0
    readme = project / "hub/README.md"
    own = "A paragraph the curator wrote: thanks to the Fenwick Garden Society."
    text = readme.read_text(encoding="utf-8")
    assert "<!-- curator-text: end -->" in text
    readme.write_text(text.replace("<!-- curator-text: end -->", own + "\n\n<!-- curator-text: end -->"), "utf-8")
    assert main(["--config", "mine", "--release", "0.2.0", "--allow-unreviewed", "--push", "hub"]) == 0
    pushed = readme.read_text(encoding="utf-8")
    assert own in pushed and pushed.count(own) == 1
    assert "mine" in json.loads((project / "hub/tags.json").read_text(encoding="utf-8"))["tags"].__repr__()
    card = DatasetCard(pushed)
    assert card.data.license == "cc-by-4.0" and card.data.pretty_name == "Fenwick records in JSON"
    assert CITATION in pushed and card_problems(pushed) == []


def test_a_command_without_source_takes_the_projects_only_config_and_a_flag_overrides_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["init", "--source", "documents", "--sample"]) == 0
    assert main(["init", "--source", "documents"]) == 2  # never over an existing file
    assert "exists" in capsys.readouterr().err
    assert main(["--release", "0.1.0", "--allow-unreviewed"]) == 0  # no --source, no --sample: the project's
    assert (tmp_path / "workspace/releases/documents/0.1.0/manifest.json").is_file()
    assert main(["--workspace", "elsewhere", "--release", "0.1.0", "--allow-unreviewed"]) == 0  # the flag wins
    assert (tmp_path / "elsewhere/releases/documents/0.1.0/manifest.json").is_file()
    capsys.readouterr()
    assert main(["--status", "--threshold", "101"]) == 2
    assert "--threshold" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("old", "new", "key", "line_of"),
    [
        ('license = "cc-by-4.0"', 'license = "CC BY 4.0!"', "dataset.license", "license ="),
        ('languages = ["en"]', 'languages = ["English"]', "dataset.languages", "languages ="),
        ('source = "documents"', 'source = "nosuch"', "configs.documents", "[configs.documents]"),
        ("\nsample = true", "\nsample = true\nthresold = 3", "configs.documents.thresold", "thresold ="),
        (
            "\nsample = true",
            '\nsample = true\n[configs.documents.rules]\nignore = ["no_such_rule"]',
            "configs.documents.rules",
            "[configs.documents.rules]",
        ),
    ],
)
def test_a_wrong_project_file_names_the_key_and_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], old: str, new: str,
    key: str, line_of: str,
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    assert main(["init", "--sample"]) == 0
    path = tmp_path / PROJECT_FILENAME
    text = path.read_text(encoding="utf-8")
    assert old in text
    text = text.replace(old, new, 1)
    path.write_text(text, encoding="utf-8")
    line = next(n for n, raw in enumerate(text.splitlines(), start=1) if raw.startswith(line_of))
    named = f"{key} (line {line}): "
    with pytest.raises(ProjectError, match=re.escape(named)):
        load_project(path)
    assert main(["--status"]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and named in error[0]


def test_a_project_file_that_is_no_toml_says_where(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["init", "--sample"]) == 0
    path = tmp_path / PROJECT_FILENAME
    path.write_text(path.read_text(encoding="utf-8").replace('title = "', 'title = "unclosed\n', 1), "utf-8")
    with pytest.raises(ProjectError, match=r"not valid TOML: .*line \d+"):
        load_project(path)


def test_other_licence_needs_its_name_and_link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["init", "--sample", "--license", "other"]) == 2  # refused: `other` says nothing by itself
    assert not (tmp_path / PROJECT_FILENAME).exists()


@pytest.mark.parametrize("module", ["build_split", "scoring"])
def test_version(module: str) -> None:
    done = subprocess.run([sys.executable, "-m", module, "--version"], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0 and re.fullmatch(rf"python -m {module} \d+\.\d+\.\d+\S*\n", done.stdout)


def test_the_projects_rule_set_runs_and_a_flag_overrides_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`[configs.NAME.rules]` is the rule set of every run of that config; the release's manifest names it."""
    monkeypatch.chdir(tmp_path)
    assert main(["init", "--source", "documents", "--sample"]) == 0
    with (tmp_path / PROJECT_FILENAME).open("a", encoding="utf-8") as out:
        out.write('\n[configs.documents.rules]\nignore = ["value_not_near_entity"]\n')
    assert main(["--release", "0.1.0", "--allow-unreviewed"]) == 0
    manifest = json.loads((tmp_path / "workspace/releases/documents/0.1.0/manifest.json").read_text("utf-8"))
    assert manifest["review"]["rules"]["off"] == ["value_not_near_entity"]
    assert main(["--ignore", "scale_dropped", "--release", "0.2.0", "--allow-unreviewed"]) == 0  # the flag wins
    manifest = json.loads((tmp_path / "workspace/releases/documents/0.2.0/manifest.json").read_text("utf-8"))
    assert manifest["review"]["rules"]["off"] == ["scale_dropped"]  # the command's rule set, not the project's
