"""`python -m judge.calibrate` as a curator runs it: the matrix released / needs_review / rejected by right / wrong
with Wilson 95% intervals, the --output figures, --show, and bad case lines reported with their numbers."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from judge.calibrate import main

REPO = Path(__file__).resolve().parents[2]
CASES = REPO / "tests" / "data" / "calibration" / "cases.jsonl"
Z = 1.959963984540054  # the 97.5% normal quantile


def wilson(count: int, n: int) -> tuple[float, float]:
    """The Wilson score interval in its closed form, independent of the code under test."""
    p = count / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def pct(value: float) -> str:
    return f"{100 * value:.0f}%"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_calibrate_prints_the_matrix_with_wilson_intervals_and_writes_every_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "calibration.json"
    code, out, _ = run(capsys, "--cases", str(CASES), "--judge", "heuristic", "--output", str(output))
    assert code == 0
    figures = json.loads(output.read_text(encoding="utf-8"))
    lines = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]
    # No case is lost: one result per line, in order, with its label and kind.
    assert [(r["id"], r["label"], r["kind"]) for r in figures["results"]] == [
        (line["id"], line["label"], line["kind"]) for line in lines
    ]
    assert (figures["cases"], figures["right"], figures["wrong"]) == (10, 4, 6)
    by_id = {r["id"]: r for r in figures["results"]}
    # A string where the schema asks for a boolean: validation proves it wrong.
    assert by_id["hp-novels-wrong-type"]["outcome"] == "rejected"
    assert by_id["hp-novels-wrong-type"]["reasons"][0]["stage"] == "validation"
    for result in figures["results"]:  # a case held for review carries its flags, one reason each
        if result["outcome"] == "needs_review":
            assert result["reasons"] and all(r["stage"] == "gate" for r in result["reasons"])

    # The printed matrix: the counts of the results, their shares and their Wilson intervals.
    overall = figures["overall"]
    all_rows = out[out.index("\nall") + 1 :].splitlines()[1:3]
    for row, label in zip(all_rows, ("right", "wrong"), strict=True):
        n = sum(1 for r in figures["results"] if r["label"] == label)
        assert row.split()[:2] == [label, f"({n})"]
        for outcome in ("released", "needs_review", "rejected"):
            count = sum(1 for r in figures["results"] if r["label"] == label and r["outcome"] == outcome)
            low, high = wilson(count, n)
            cell = overall[label][outcome]
            assert (cell["count"], cell["of"]) == (count, n)
            assert cell["low"] == pytest.approx(low, abs=1e-9) and cell["high"] == pytest.approx(high, abs=1e-9)
            assert f"{count:>3} {pct(count / n):>4} [{pct(low)}-{pct(high)}]" in row
    assert "by source" in out and "  hotpotqa" in out and "  ami" in out
    assert "by kind" in out and "  boolean flipped" in out and "  type mismatch" in out
    released_wrong = overall["wrong"]["released"]
    low, high = wilson(released_wrong["count"], 6)
    assert (
        f"false releases (wrong answers released): {released_wrong['count']} of 6 = "
        f"{pct(released_wrong['count'] / 6)} [{pct(low)}-{pct(high)}]" in out
    )
    assert figures["judge"] == "heuristic" and figures["threshold"] == 60 and "Wilson" in figures["interval"]


def test_show_lists_the_cases_with_their_reasons(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--cases", str(CASES), "--judge", "heuristic", "--show", "wrong-rejected")
    assert code == 0
    listed = out[out.index("wrong-rejected:") :]
    assert "hp-novels-wrong-type (line 6, hotpotqa sob-sample-0002, type mismatch)" in listed
    assert "[validation/" in listed


def test_a_higher_threshold_moves_cases_to_rejected(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    low, high = tmp_path / "60.json", tmp_path / "100.json"
    run(capsys, "--cases", str(CASES), "--judge", "heuristic", "--output", str(low))
    run(capsys, "--cases", str(CASES), "--judge", "heuristic", "--threshold", "100", "--output", str(high))
    rejected = [
        sum(f["overall"][label]["rejected"]["count"] for label in ("right", "wrong"))
        for f in (json.loads(low.read_text()), json.loads(high.read_text()))
    ]
    assert rejected[1] > rejected[0]


BAD = [
    '{"source_id": "calib-1", "question": "Q?", "json_schema": {"type": "object"}, "ground_truth": {}, '
    '"annotator": "a", "label": "right", "kind": "ok", "context": "Some text."}',
    "{not json",
    '{"source_id": "calib-2", "question": "Q?", "json_schema": {}, "ground_truth": {}, "annotator": "a", "kind": "k"}',
    '{"source_id": "calib-3", "question": "Q?", "json_schema": {}, "ground_truth": {}, "annotator": "a", '
    '"label": "maybe", "kind": "k", "context": "x"}',
    '{"source_id": "no-such-item", "question": "Q?", "json_schema": {}, "ground_truth": {}, "annotator": "a", '
    '"label": "wrong", "kind": "k", "source": "hotpotqa"}',
    '["a list"]',
]


def test_bad_lines_are_reported_with_their_numbers_and_nothing_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text("\n".join(BAD) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "--cases", str(cases), "--judge", "heuristic", "--source", "hotpotqa")
    assert code == 2 and out == ""
    assert "5 bad line(s)" in err
    problems = [line.strip() for line in err.splitlines() if line.startswith("  line ")]
    assert [p.split(":", 1)[0] for p in problems] == ["line 2", "line 3", "line 4", "line 5", "line 6"]
    assert "label" in problems[1] and "Field required" in problems[1]
    assert "label" in problems[2] and "'right' or 'wrong'" in problems[2]
    assert "no-such-item" in problems[3] and "--input" in problems[3]
    assert "expected a JSON object" in problems[4]
    assert "Traceback" not in err


def test_a_line_without_a_source_needs_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text(BAD[0] + "\n", encoding="utf-8")
    code, _, err = run(capsys, "--cases", str(cases), "--judge", "heuristic")
    assert code == 2 and 'line 1: no "source" on the line and no --source given' in err
    code, _, err = run(capsys, "--cases", str(tmp_path / "missing.jsonl"), "--judge", "heuristic")
    assert code == 2 and "no such file" in err


def test_the_module_runs_as_documented() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "judge.calibrate", "--cases", str(CASES), "--judge", "heuristic"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("calibration: 10 case(s) (4 right, 6 wrong) from cases.jsonl; judge heuristic")
    help_text = subprocess.run(
        [sys.executable, "-m", "judge.calibrate", "--help"], cwd=REPO, capture_output=True, text=True, timeout=60
    ).stdout
    assert "--cases" in help_text and "--show" in help_text and "--output" in help_text


def test_the_release_card_states_the_calibration(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from build_split.cli import main as build_split

    figures_path = tmp_path / "calibration.json"
    assert main(["--cases", str(CASES), "--judge", "heuristic", "--output", str(figures_path)]) == 0
    figures = json.loads(figures_path.read_text(encoding="utf-8"))
    ws = tmp_path / "ws"
    base = ["--source", "hotpotqa", "--workspace", str(ws), "--judge", "heuristic"]
    capsys.readouterr()
    assert build_split([*base, "--sample", "--calibration", str(figures_path)]) == 2
    assert "--calibration: needs --release VERSION" in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    broken.write_text('{"cases": 3}', encoding="utf-8")
    assert (
        build_split([*base, "--sample", "--release", "0.1.0", "--allow-unreviewed", "--calibration", str(broken)]) == 2
    )
    assert "not the figures of python -m judge.calibrate --output" in capsys.readouterr().err
    assert not (ws / "releases" / "default" / "0.1.0").exists()

    release = ["--release", "0.1.0", "--allow-unreviewed", "--calibration", str(figures_path)]
    assert build_split([*base, *release]) == 0
    folder = ws / "releases" / "default" / "0.1.0"
    card = (folder / "README.md").read_text(encoding="utf-8")
    section = card[card.index("## Judge calibration") :]
    assert "The rows were released by `heuristic`. Calibrated on `cases.jsonl` (10 labelled records" in section
    wrong_released = figures["overall"]["wrong"]["released"]
    low, high = wilson(wrong_released["count"], 6)
    assert (
        f"| wrong answers released (false releases) | {wrong_released['count']} of 6 | "
        f"{100 * wrong_released['count'] / 6:.1f}% | {100 * low:.1f}% - {100 * high:.1f}% |" in section
    )
    assert "| right answers rejected (false rejections) |" in section
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["judge_calibration"]["cases_sha256"] == figures["cases_sha256"]
    assert manifest["judge_calibration"]["false_releases"] == wrong_released


def test_an_llm_judge_answers_through_the_cache_so_a_rerun_pays_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.llm.fakes import FakeGemini, judge_answer, quoted_record

    monkeypatch.setenv("GEMINI_API_KEY", "test-key-not-real")
    server = FakeGemini()
    try:
        wrong = json.dumps(True)

        def answer(req):  # the fake judge finds the flipped boolean wrong, everything else right
            record = quoted_record(req)
            accuracy = 20 if json.dumps(record["ground_truth"].get("same_nationality")) == wrong else 95
            return judge_answer({"accuracy": accuracy})(req)

        server.answer = answer
        ws = tmp_path / "calibration"
        args = ["--cases", str(CASES), "--judge", "gemini", "--llm-base-url", server.url, "--workspace", str(ws)]
        first, second = tmp_path / "first.json", tmp_path / "second.json"
        assert main([*args, "--output", str(first)]) == 0
        calls = server.total_model_calls
        assert calls == 9  # every case but the one validation rejects
        assert main([*args, "--output", str(second)]) == 0
        assert server.total_model_calls == calls  # answered from the store's cache
        runs = [json.loads(p.read_text(encoding="utf-8")) for p in (first, second)]
        outcomes = [[(r["id"], r["outcome"]) for r in run["results"]] for run in runs]
        assert outcomes[0] == outcomes[1]
        by_id = dict(outcomes[0])
        assert by_id["hp-novels-wrong-boolean"] == "rejected" and by_id["hp-novels-wrong-type"] == "rejected"
        assert by_id["hp-novels-right"] == "released"
        assert runs[0]["judge"] == "gemini:gemini-2.5-pro" and runs[0]["judge_version"].startswith("rubric-")

        # With the pre-filter, only the cases the heuristic alone would release are sent.
        heuristic = tmp_path / "heuristic.json"
        assert main(["--cases", str(CASES), "--judge", "heuristic", "--output", str(heuristic)]) == 0
        passed = {r["id"] for r in json.loads(heuristic.read_text())["results"] if r["outcome"] == "released"}
        assert main([*args, "--prefilter", "--workspace", str(tmp_path / "other"), "--output", str(first)]) == 0
        assert server.total_model_calls == calls + len(passed)
        prefiltered = {r["id"]: r for r in json.loads(first.read_text())["results"]}
        assert len(prefiltered) == 10
        for case_id, result in prefiltered.items():
            if case_id not in passed:  # decided by validation or the pre-filter, with its reasons
                assert result["outcome"] in ("rejected", "needs_review") and result["reasons"]
    finally:
        server.close()
    capsys.readouterr()


LABELLED = Path(__file__).resolve().parents[1] / "data" / "calibration"
HOTPOT_ROWS = Path(__file__).resolve().parents[1] / "data" / "hotpotqa" / "hotpot_dev_distractor_v1.sample.json"


def test_several_files_and_one_half_of_the_labelled_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The project's labelled set: three files, rows from --input and from the embedded sample, one half."""
    out = tmp_path / "test-half.json"
    args = ["--source", "hotpotqa", "--input", str(HOTPOT_ROWS), "--judge", "heuristic", "--output", str(out)]
    files = [arg for name in ("hotpotqa", "ami", "olmocr") for arg in ("--cases", str(LABELLED / f"{name}.jsonl"))]
    assert main([*files, *args, "--split", "test"]) == 0
    figures = json.loads(out.read_text())
    every = [json.loads(line) for name in ("hotpotqa", "ami", "olmocr") for line in open(LABELLED / f"{name}.jsonl")]
    wanted = {case["id"] for case in every if case["split"] == "test"}
    assert {case["id"] for case in figures["results"]} == wanted
    assert figures["split"] == "test"


def test_a_split_no_case_has_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--cases", str(CASES), "--judge", "heuristic", "--split", "test"]) == 2
    assert 'no case has "split": "test"' in capsys.readouterr().err


def test_an_id_in_two_files_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--cases", str(CASES), "--cases", str(CASES), "--judge", "heuristic"]) == 2
    assert "more than one file" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["folder", "cases file", "under a file"])
def test_an_output_that_cannot_be_written_is_said_before_the_run(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 35: `--output FOLDER` ended the whole run with a traceback; now one line, and nothing runs."""
    cases = tmp_path / "cases.jsonl"
    cases.write_bytes(CASES.read_bytes())
    output = {"folder": tmp_path, "cases file": cases, "under a file": cases / "figures.json"}[where]
    code, out, err = run(capsys, "--cases", str(cases), "--judge", "heuristic", "--output", str(output))
    assert (code, out) == (2, ""), out  # the matrix is not printed: no case was run
    assert err.startswith(f"error: --output {output}: ") and err.count("\n") == 1, err
    assert cases.read_bytes() == CASES.read_bytes()
