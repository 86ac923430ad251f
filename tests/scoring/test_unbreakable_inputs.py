"""Nothing a model writes stops a scoring run, and no bad input passes in silence (through the CLI)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.cli import main
from scoring.evaluate import score_model
from scoring.inputs import Release, ReleaseRecord, load_release
from scoring.sob import Reference, ScoringOptions

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "count": {"type": "integer"}},
    "required": ["name", "count"],
}


def sob_line(rid, candidate, truth=None, model="m", schema=SCHEMA):
    return {
        "metadata": {"record_id": rid, "model_id": model, "schema_complexity": "easy"},
        "input": {"json_schema": schema},
        "output": {"candidate_response": candidate, "ground_truth": truth or {"name": "a", "count": 1}},
    }


def write_lines(path: Path, lines: list[str | bytes]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join((x if isinstance(x, bytes) else x.encode()) + b"\n" for x in lines))
    return path


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def records(out: Path, name: str = "m") -> list[dict]:
    return [json.loads(line) for line in (out / "text" / name / "eval_records.jsonl").open()]


def deep(depth: int) -> str:
    return '{"name": ' * depth + '"x"' + "}" * depth


def test_deep_nesting_as_json_text_and_as_an_object_is_refused_or_scored_never_a_traceback(tmp_path, capsys):
    good = json.dumps(sob_line("r1", {"name": "a", "count": 1}))
    as_object = '{"metadata": {"record_id": "r2", "model_id": "m"}, "output": {"candidate_response": ' + deep(1000)
    as_object += ', "ground_truth": {"name": "a", "count": 1}}, "input": {"json_schema": ' + json.dumps(SCHEMA) + "}}"
    as_text = json.dumps(sob_line("r3", deep(1000)))  # the response is JSON text nested 1,000 deep
    middling = json.dumps(sob_line("r4", json.loads(deep(300))))
    file = write_lines(tmp_path / "m.jsonl", [good, as_object, as_text, middling])
    out = tmp_path / "out"
    for flags in ([], ["--parse-text"]):
        code, printed, err = run(capsys, "--responses", file, "--output-root", out, *flags)
        assert code == 0, err
        assert f"{file.as_posix()}:2: nested deeper than Python can read" in printed
        rows = records(out)
        assert [r["record_id"] for r in rows] == ["r1", "r3", "r4"]
        assert rows[0]["leaf_value_em"] == 1.0 and rows[1]["json_parse_success"] == 0.0
        summary = json.loads((out / "text/m/eval_summary.json").read_text())
        assert summary["data_quality"]["malformed_jsonl_line_count"] == 1
        assert summary["rejected_lines"] == [f"{file.as_posix()}:2: nested deeper than Python can read"]


def test_big_integers_stay_integers_and_nan_lines_are_scored(tmp_path, capsys):
    big, huge = 2**70 + 1, "7" * 5000  # a 5,000-digit integer, past Python's default 4,300
    pair = json.dumps(sob_line("huge", {"name": "a", "count": 0}, {"name": "a", "count": 0}))
    lines = [
        json.dumps(sob_line("big", {"name": "a", "count": big}, {"name": "a", "count": big})),
        pair.replace('"count": 0', f'"count": {huge}'),
        json.dumps(sob_line("nan", {"name": "a", "count": float("nan")})),  # Python writes NaN, as SOB reads it
    ]
    assert "NaN" in lines[2]
    file = write_lines(tmp_path / "m.jsonl", lines)
    code, _, err = run(capsys, "--responses", file, "--output-root", tmp_path / "out")
    assert code == 0, err
    rows = {r["record_id"]: r for r in records(tmp_path / "out")}
    assert rows["big"]["leaf_value_em"] == 1.0 and rows["big"]["strict_json_em"] == 1.0
    assert rows["huge"]["leaf_value_em"] == 1.0 and rows["huge"]["type_precision"] == 1.0
    assert rows["nan"]["json_parse_success"] == 1.0 and rows["nan"]["schema_compliance"] == 0.0  # NaN is no integer


def test_big_integers_in_predictions_for_a_release(scored_release, tmp_path, capsys):
    release = load_release(scored_release.path)
    rid, record = next((k, r) for k, r in release.records.items() if "population" in r.ground_truth)
    answer = dict(record.ground_truth, population=2**70)
    file = write_lines(tmp_path / "p.jsonl", [json.dumps({"record_id": rid, "response": answer})])
    code, _, err = run(capsys, "--release", scored_release.path, "--predictions", file, "--output-root", tmp_path / "o")
    assert code == 0, err
    (row,) = records(tmp_path / "o", "p")
    assert row["leaf_value_em"] == pytest.approx(2 / 3)  # population is wrong, not unreadable
    assert row["json_parse_success"] == 1.0


def test_output_into_a_missing_folder_is_created(scored_release, tmp_path, capsys):
    release = load_release(scored_release.path)
    rid, record = next(iter(release.records.items()))
    file = write_lines(tmp_path / "p.jsonl", [json.dumps({"record_id": rid, "response": record.ground_truth})])
    report = tmp_path / "not" / "yet" / "report.json"
    code, _, err = run(capsys, "--release", scored_release.path, "--predictions", file, "--output", report)
    assert code == 0, err
    assert json.loads(report.read_text())["models"][0]["n"] == 1


def test_predictions_for_another_release_are_an_error(scored_release, tmp_path, capsys):
    file = write_lines(tmp_path / "p.jsonl", [json.dumps({"record_id": "other-release-id", "response": {}})])
    code, printed, err = run(capsys, "--release", scored_release.path, "--predictions", file)
    assert code == 2 and "none of the 1 predictions of p" in err and "another release" in err
    assert printed == ""


def test_an_empty_or_unusable_file_is_an_error_naming_it(scored_release, tmp_path, capsys):
    empty = write_lines(tmp_path / "empty.jsonl", [])
    code, _, err = run(capsys, "--release", scored_release.path, "--predictions", empty)
    assert code == 2 and f"predictions file {empty} is empty" in err
    junk = write_lines(tmp_path / "junk.jsonl", ["not json", "[1]"])
    code, _, err = run(capsys, "--release", scored_release.path, "--predictions", junk)
    assert code == 2 and f"{junk} has no usable line (2 refused" in err
    code, _, err = run(capsys, "--responses", empty, "--output-root", tmp_path / "o")
    assert code == 2 and f"no record to score in {empty}: it is empty" in err
    assert not (tmp_path / "o").exists()


def test_duplicates_across_files_are_reported_with_file_and_line(scored_release, tmp_path, capsys):
    rid, record = next(iter(load_release(scored_release.path).records.items()))
    line = json.dumps({"record_id": rid, "response": record.ground_truth, "model_id": "m"})
    first = write_lines(tmp_path / "a.jsonl", [line])
    second = write_lines(tmp_path / "b.jsonl", ["", line])
    code, printed, err = run(capsys, "--release", scored_release.path, "--predictions", first, "--predictions", second)
    assert code == 0, err
    assert f"{second.as_posix()}:2: duplicate prediction of m for {rid} (first at {first.as_posix()}:1)" in printed


def test_files_with_one_name_in_two_folders_stay_two_models(scored_release, tmp_path, capsys):
    rid, record = next(iter(load_release(scored_release.path).records.items()))
    good = json.dumps({"record_id": rid, "response": record.ground_truth})
    bad = json.dumps({"record_id": rid, "response": {}})
    write_lines(tmp_path / "a" / "preds.jsonl", [good])
    write_lines(tmp_path / "b" / "preds.jsonl", [bad])
    report = tmp_path / "r.json"
    code, _, err = run(
        capsys,
        "--release", scored_release.path, "--predictions", tmp_path / "a" / "preds.jsonl",
        "--predictions", tmp_path / "b" / "preds.jsonl", "--output", report,
    )  # fmt: skip
    assert code == 0, err
    models = {m["model"]: m for m in json.loads(report.read_text())["models"]}
    assert set(models) == {
        (tmp_path / "a" / "preds").as_posix().lstrip("/"),
        (tmp_path / "b" / "preds").as_posix().lstrip("/"),
    }
    assert sorted(m["overall"]["json_pass_rate"]["mean"] for m in models.values()) == [0.0, 1.0]


def test_invalid_utf8_is_refused_on_its_line(tmp_path, capsys):
    good = json.dumps(sob_line("r1", {"name": "a", "count": 1}))
    broken = (
        json.dumps(sob_line("r2", {"name": "Z\u00fcrich", "count": 1}), ensure_ascii=False)
        .encode()
        .replace(b"\xc3\xbc", b"\xfc")
    )
    file = write_lines(tmp_path / "m.jsonl", [good, broken])
    code, printed, err = run(capsys, "--responses", file, "--output-root", tmp_path / "o")
    assert code == 0, err
    assert f"{file.as_posix()}:2: not UTF-8 text" in printed
    assert [r["record_id"] for r in records(tmp_path / "o")] == ["r1"]


def test_a_folder_as_predictions_scores_its_files(scored_release, tmp_path, capsys):
    rid, record = next(iter(load_release(scored_release.path).records.items()))
    write_lines(tmp_path / "preds" / "m1.jsonl", [json.dumps({"record_id": rid, "response": record.ground_truth})])
    write_lines(tmp_path / "preds" / "m2.jsonl", [json.dumps({"record_id": rid, "response": {}})])
    report = tmp_path / "r.json"
    code, _, err = run(
        capsys, "--release", scored_release.path, "--predictions", tmp_path / "preds", "--output", report
    )
    assert code == 0, err
    assert [m["model"] for m in json.loads(report.read_text())["models"]] == ["m1", "m2"]


def test_an_unparsable_or_absent_response_leaves_every_field_missing(tmp_path):
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string", "evaluation_config": "string_exact"}, "alias": {"type": "null"}},
    }
    truth = {"name": "a", "alias": None}
    release = Release(
        tmp_path,
        "default",
        "hotpotqa",
        "1",
        {
            rid: ReleaseRecord(rid, "train", "", "", schema, truth, "easy", None, None, None)
            for rid in ("unparsable", "absent", "nulls", "wrong")
        },
    )
    options = ScoringOptions(count_missing=True)
    refs = {rid: Reference.build(rid, truth, schema, options) for rid in release.records}
    responses = {"unparsable": "not json", "nulls": {"name": None, "alias": None}, "wrong": {"name": "b", "alias": 3}}
    fields = score_model(release, refs, "m", responses).fields
    assert fields["missing"] == 4  # two records x two fields, not "null predicted"
    assert fields["null_predicted"] == 1 and fields["hallucinated"] == 1 and fields["mismatch"] == 1
    assert fields["match"] == 1


def test_response_files_duplicates_are_scored_as_sob_and_listed(tmp_path, capsys):
    line = json.dumps(sob_line("r1", {"name": "a", "count": 1}))
    file = write_lines(tmp_path / "m.jsonl", [line, json.dumps(sob_line("r2", {})), line])
    code, printed, err = run(capsys, "--responses", file, "--output-root", tmp_path / "o")
    assert code == 0, err
    assert [r["record_id"] for r in records(tmp_path / "o")] == ["r1", "r2", "r1"]  # as SOB's evaluator
    assert f"duplicate {file.as_posix()}:3: repeats line 1 (m, r1)" in printed
    summary = json.loads((tmp_path / "o/text/m/eval_summary.json").read_text())
    assert summary["num_records"] == 3 and len(summary["duplicate_lines"]) == 1


def test_response_files_with_one_name_in_two_folders_write_two_outputs(tmp_path, capsys):
    write_lines(tmp_path / "a" / "response_m.jsonl", [json.dumps(sob_line("r1", {"name": "a", "count": 1}))])
    write_lines(tmp_path / "b" / "response_m.jsonl", [json.dumps(sob_line("r1", {}))])
    out = tmp_path / "o"
    code, _, err = run(capsys, "--responses", tmp_path / "a", "--responses", tmp_path / "b", "--output-root", out)
    assert code == 0, err
    assert records(out, "a__m")[0]["schema_compliance"] == 1.0
    assert records(out, "b__m")[0]["schema_compliance"] == 0.0


def test_a_missing_responses_path_or_an_empty_folder_is_an_error(tmp_path, capsys):
    code, _, err = run(capsys, "--responses", tmp_path / "nowhere.jsonl")
    assert code == 2 and "nowhere.jsonl does not exist" in err
    (tmp_path / "empty").mkdir()
    code, _, err = run(capsys, "--responses", tmp_path / "empty")
    assert code == 2 and "no *.jsonl response files in this folder" in err
