"""No silent overwrite: revisions per record, conflicts kept and listed, `--overwrite`, `--history`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from build_split import exit_codes
from build_split.cli import main
from build_split.sources import sample_authored
from core import revisions
from core.store import Store

SOURCE_ID = "sob-sample-0001"


def first_sample_line() -> dict:
    return json.loads(sample_authored("hotpotqa").read_text(encoding="utf-8").splitlines()[0])


def write_line(path: Path, line: dict) -> Path:
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    return path


def answer_with(town: str, annotator: str) -> dict:
    line = first_sample_line()
    assert line["source_id"] == SOURCE_ID
    line["ground_truth"]["observatory"]["town"] = town
    line["annotator"] = annotator
    return line


def run(ws: Path, *args: str) -> int:
    return main(["--source", "hotpotqa", "--workspace", str(ws), "--judge", "heuristic", *args])


def the_record(store: Store):
    question = first_sample_line()["question"]
    [stored] = [s for s in store.records("hotpotqa") if s.record.input.question == question]
    return stored


def stored_town(ws: Path) -> str:
    with Store.open(ws) as store:
        return the_record(store).record.output.ground_truth["observatory"]["town"]


@pytest.fixture
def ws(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    workspace = tmp_path / "ws"
    assert run(workspace, "--sample") == 0
    capsys.readouterr()
    return workspace


def test_the_same_file_twice_is_a_no_op(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Store.open(ws) as store:
        before = store.con.execute("SELECT count(*) FROM revisions").fetchone()[0]
    assert run(ws, "--sample") == 0
    out = capsys.readouterr().out
    assert "authored:   unchanged 10; 4 line(s) rejected" in out
    with Store.open(ws) as store:
        assert store.con.execute("SELECT count(*) FROM revisions").fetchone()[0] == before == 10


def test_a_second_file_with_another_answer_is_a_conflict_listed_and_not_applied(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = write_line(tmp_path / "other.jsonl", answer_with("Oslo", "bob"))
    assert run(ws, "--authored", str(other)) == exit_codes.CONFLICTS_NOT_APPLIED  # its exit code says so
    out, err = capsys.readouterr()
    assert "conflicts (not applied) 1" in out
    assert err.strip().splitlines()[-1].startswith("error: 1 incoming version(s) conflict")  # and its last line
    assert stored_town(ws) == "Elsford"  # the sample's answer stands

    assert run(ws, "--status") == 0
    assert "conflicts not applied: 1" in capsys.readouterr().out
    assert run(ws, "--rejections") == 0
    listed = capsys.readouterr().out
    conflict = listed[listed.index("conflict ") :]
    sample = sample_authored("hotpotqa").resolve()
    assert f"current:  rev 1 by curator-a from file {sample} line 1" in conflict
    assert f"incoming: rev 2 by bob from file {other.resolve()} line 1" in conflict and "not applied" in conflict
    assert '/ground_truth/observatory/town: "Elsford" -> "Oslo"' in conflict

    # The same conflicting file again: still one conflict, not two.
    assert run(ws, "--authored", str(other)) == exit_codes.CONFLICTS_NOT_APPLIED
    capsys.readouterr()
    with Store.open(ws) as store:
        assert revisions.count_open_conflicts(store.con, "hotpotqa") == 1

    # --overwrite settles it: applied, and the conflict is no longer open.
    assert run(ws, "--authored", str(other), "--overwrite") == 0
    assert "changed 1" in capsys.readouterr().out
    assert stored_town(ws) == "Oslo"
    assert run(ws, "--status") == 0
    assert "conflicts not applied" not in capsys.readouterr().out


def test_sample_does_not_reimpose_its_file_on_a_record_curators_changed(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fix = write_line(tmp_path / "fix.jsonl", answer_with("Elsford Hill", "ana"))
    assert run(ws, "--authored", str(fix), "--overwrite") == 0
    assert stored_town(ws) == "Elsford Hill"
    capsys.readouterr()
    assert run(ws, "--sample") == 0  # the README's command again
    out = capsys.readouterr().out
    assert "not re-applied (changed since) 1" in out and "conflicts" not in out
    assert stored_town(ws) == "Elsford Hill"
    # The curator's file again: a no-op too.
    assert run(ws, "--authored", str(fix)) == 0
    assert "unchanged 1" in capsys.readouterr().out


def test_the_same_file_edited_replaces_its_own_earlier_line(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_line(tmp_path / "mine.jsonl", answer_with("Elsford Hill", "ana"))
    assert run(ws, "--authored", str(path), "--overwrite") == 0
    write_line(path, answer_with("Elsford Vale", "ana"))  # the curator edits their own file
    assert run(ws, "--authored", str(path)) == 0
    assert "changed 1" in capsys.readouterr().out
    assert stored_town(ws) == "Elsford Vale"


def test_two_files_of_the_same_name_in_two_folders_are_two_origins(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 35: Bob's `fix.jsonl` used to replace Alice's value without a word (an origin was the file's name)."""
    (tmp_path / "alice").mkdir()
    (tmp_path / "bob").mkdir()
    alice = write_line(tmp_path / "alice" / "fix.jsonl", answer_with("Elsford Hill", "alice"))
    bob = write_line(tmp_path / "bob" / "fix.jsonl", answer_with("Oslo", "bob"))
    assert run(ws, "--authored", str(alice), "--overwrite") == 0
    capsys.readouterr()
    assert run(ws, "--authored", str(bob)) == exit_codes.CONFLICTS_NOT_APPLIED
    assert "conflicts (not applied) 1" in capsys.readouterr().out
    assert stored_town(ws) == "Elsford Hill"  # Alice's value stands until someone settles the conflict
    assert run(ws, "--rejections") == 0
    assert str(bob.resolve()) in capsys.readouterr().out  # the conflict names Bob's file by its path


def test_history_prints_every_revision_with_what_changed(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = write_line(tmp_path / "other.jsonl", answer_with("Oslo", "bob"))
    assert run(ws, "--authored", str(other)) == exit_codes.CONFLICTS_NOT_APPLIED
    assert run(ws, "--authored", str(other), "--overwrite") == 0
    with Store.open(ws) as store:
        record_id = the_record(store).record.record_id
    capsys.readouterr()
    assert run(ws, "--history", record_id[:10]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{record_id} {SOURCE_ID}: Which university did the director")
    sample = sample_authored("hotpotqa").resolve()
    assert lines[1].startswith(f"rev 1 (applied) by curator-a from file {sample} line 1 (sha256 ")
    assert lines[2] == "    created"
    assert lines[3].startswith(f"rev 2 (conflict, settled) by bob from file {other.resolve()} line 1")
    assert lines[5].startswith(f"rev 3 (applied) by bob from file {other.resolve()} line 1")
    assert "with --overwrite" in lines[5]
    assert lines[6] == '    /ground_truth/observatory/town: "Elsford" -> "Oslo"'


def test_history_of_an_unknown_record_is_one_error_line(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(ws, "--history", "ffffffffffff") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "error: no hotpotqa record with an id starting 'ffffffffffff': --status and --rejections name the records"
    ]


def test_diff_shows_the_question_and_the_changed_fields(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = tmp_path / "ws"
    assert run(ws, "--sample", "--release", "0.1.0", "--allow-unreviewed") == 0
    line = first_sample_line()
    line["json_schema"]["properties"]["observatory"]["description"] = "the observatory named in the question"
    fix = write_line(tmp_path / "fix.jsonl", line)
    assert run(ws, "--authored", str(fix), "--overwrite", "--release", "0.2.0", "--allow-unreviewed") == 0
    capsys.readouterr()
    assert main(["--source", "hotpotqa", "--workspace", str(ws), "--diff", "0.1.0", "0.2.0"]) == 0
    out = capsys.readouterr().out.splitlines()
    [changed] = [i for i, text in enumerate(out) if text.startswith("    ~ ")]
    assert out[changed].endswith(f"  {line['question']}")
    assert out[changed + 1] == (
        '        json_schema /properties/observatory/description: "the observatory" -> '
        '"the observatory named in the question"'
    )
